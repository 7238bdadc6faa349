/**
 * A plain command line of one action, read without commander
 * (src/cli/action-options.ts, plainActionLine): every line it reads, commander
 * reads the same (the same paths and option values reach the action), and
 * every line it cannot be sure of it leaves to commander.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { kebabName, type AnyAction } from '../../src/core/action.js';
import { ValidationError } from '../../src/core/errors.js';
import type { Field } from '../../src/core/fields.js';
import { actionOptions, plainActionLine } from '../../src/cli/action-options.js';
import { actionNamedIn } from '../../src/cli/main.js';
import { buildProgram, parseCommandLine } from '../../src/cli/program.js';

/** What commander handed the action: runActionCommand's arguments, the run itself left out. */
const handed: unknown[][] = [];
vi.mock('../../src/cli/action-run.js', () => ({
  runActionCommand: (action: AnyAction, positional: unknown, options: Record<string, unknown>, remote: unknown, formatGiven: unknown) => {
    handed.push([action.name, positional, { ...options }, remote, formatGiven]);
    return Promise.resolve();
  },
}));

/** A value each option takes, and one it may refuse. */
function sampleValues(action: AnyAction, long: string): string[] {
  const field = Object.entries(action.fields as Record<string, Field>).find(([name]) => kebabName(name) === long)?.[1];
  if (long === 'format') return ['zip', 'json', 'multipart', 'tar'];
  if (field?.kind === 'choice') return [...field.values, 'bogus'];
  if (field?.kind === 'boolean') return ['true', 'false', 'yes'];
  if (field?.kind === 'integer' || field?.kind === 'number') return ['90', '0', '', '1.5', '-1', '-0.5', '.5'];
  if (field?.kind === 'pages') return ['1..3', '-1..1', '-1', '1;2', ''];
  return ['out.pdf', 'a b', '', 'x=y', '-'];
}

/** Command lines (after `node pdfsvc`) for `action`: each option in its spellings, and the odd ones. */
function commandLines(action: AnyAction): string[][] {
  const name = kebabName(action.name);
  const lines: string[][] = [];
  for (const called of [name, action.name, ...(action.aliases ?? [])]) lines.push([called, 'in.pdf'], [called]);
  for (const spec of actionOptions(action)) {
    const flags = [`--${spec.long}`, ...(spec.short ? [`-${spec.short}`] : [])];
    for (const flag of flags) {
      if (spec.value === undefined) {
        lines.push([name, flag, 'in.pdf'], [name, 'in.pdf', flag], [name, flag, flag, 'in.pdf'], [name, `${flag}=true`, 'in.pdf']);
        continue;
      }
      for (const value of sampleValues(action, spec.long)) {
        lines.push([name, flag, value, 'in.pdf'], [name, 'in.pdf', flag, value], [name, `${flag}=${value}`, 'in.pdf']);
      }
      lines.push(
        [name, 'in.pdf', flag],
        [name, flag, '-', 'in.pdf'],
        [name, flag, '-x', 'in.pdf'],
        [name, flag, '-V', 'in.pdf'],
        [name, flag, '-Vx', 'in.pdf'],
        [name, flag, '--version', 'in.pdf'],
        [name, flag, '--server=http://127.0.0.1:1', 'in.pdf'],
        [name, flag, '-h', 'in.pdf'],
        [name, flag, '--quiet', 'in.pdf'],
        [name, `${flag}1`, 'in.pdf'],
        [name, flag, 'a', flag, 'b', 'in.pdf'],
      );
    }
  }
  // Every option at once, values the action refuses or not: commander leaves that to the action.
  const all = actionOptions(action).flatMap((spec) => (spec.value !== undefined ? [`--${spec.long}`, sampleValues(action, spec.long)[0]] : [`--${spec.long}`]));
  lines.push([name, 'in.pdf', ...all], [name, ...all], [name, ...all, 'a.pdf', 'b.pdf']);
  for (const odd of [
    ['-'],
    ['-', '-'],
    ['a.pdf', 'b.pdf'],
    ['--'],
    ['--', '-x.pdf'],
    ['-h'],
    ['--help'],
    ['-V'],
    ['--version'],
    ['--server', 'http://127.0.0.1:1'],
    ['--server=http://127.0.0.1:1'],
    ['--api-key-file', 'k'],
    ['--cacert', 'ca.pem'],
    ['--bogus'],
    ['--no-quiet'],
    ['-5'],
    ['-qj'],
    ['-oout.pdf'],
    ['-o=out.pdf'],
    ['help'],
    ['--=x'],
  ]) {
    lines.push([name, ...odd, 'in.pdf'], [name, 'in.pdf', ...odd]);
  }
  lines.push(['--server', 'http://127.0.0.1:1', name, 'in.pdf'], ['--quiet', name, 'in.pdf'], ['help', name]);
  return lines;
}

/** What commander hands the action for `args`, or undefined when it refuses the line (or prints help). */
async function commanderReads(argv: string[]): Promise<unknown[] | undefined> {
  handed.length = 0;
  // With --json a refusal is thrown, for main() to print as a problem object.
  const refused = await parseCommandLine(argv, actionNamedIn(argv)).then(
    () => false,
    (err: unknown) => {
      if (err instanceof ValidationError) return true;
      throw err;
    },
  );
  if (refused) return undefined;
  expect(handed.length).toBeLessThanOrEqual(1);
  return handed[0];
}

describe('plain command lines', () => {
  let exitCode: typeof process.exitCode;
  beforeEach(() => {
    exitCode = process.exitCode;
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = exitCode;
  });

  it.each(actions.map((a) => [a.name, a as AnyAction] as const))('%s: read as commander reads them, or left to it', async (_, action) => {
    let read = 0;
    for (const args of commandLines(action)) {
      const argv = ['node', 'pdfsvc', ...args];
      const plain = actionNamedIn(argv) && plainActionLine(actionNamedIn(argv)!, argv);
      const commander = await commanderReads(argv);
      if (plain === undefined) continue;
      read++;
      expect(commander, args.join(' ')).toEqual([action.name, plain.positional, plain.options, undefined, plain.formatGiven]);
    }
    // The plain spellings are read: each option given once, with a value it takes, before or after the path.
    expect(read).toBeGreaterThan(3 * actionOptions(action).length);
  });

  it('reads the 10-page rotate of the bench', () => {
    const argv = ['node', 'pdfsvc', 'rotate', '--angle', '90', 'ten-pages.pdf', '-o', 'x.pdf'];
    expect(plainActionLine(actionNamedIn(argv)!, argv)).toEqual({
      positional: ['ten-pages.pdf'],
      options: { angle: '90', output: 'x.pdf' },
      formatGiven: false,
    });
  });

  it('leaves remote mode by PDFSVC_SERVER to commander, which reads it', () => {
    const argv = ['node', 'pdfsvc', 'rotate', '--angle', '90', 'in.pdf'];
    vi.stubEnv('PDFSVC_SERVER', '');
    try {
      expect(plainActionLine(actionNamedIn(argv)!, argv)).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(plainActionLine(actionNamedIn(argv)!, argv)).toBeDefined();
  });

  it("no action option is one of the program's own (commander would read it before the action's)", () => {
    const program = buildProgram();
    const own = program.options.flatMap((o) => [o.long, o.short]).concat('--help', '-h');
    for (const action of actions as readonly AnyAction[]) {
      for (const spec of actionOptions(action)) {
        expect(own, spec.long).not.toContain(`--${spec.long}`);
        if (spec.short) expect(own, spec.long).not.toContain(`-${spec.short}`);
      }
    }
  });
});
