/**
 * The options of `serve`, `keys` and `accounts`, declared as data (src/server/options.ts):
 * the command line has exactly the declared options, and the declarations
 * type and check what commander parsed, naming the option in the error.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { camelOption, parseOptions } from '../../src/cli/options.js';
import { ValidationError } from '../../src/core/errors.js';
import { ACCOUNTS_OPTIONS, KEYS_OPTIONS, SERVE_OPTIONS } from '../../src/server/options.js';
import type { OptionMap } from '../../src/cli/options.js';

/** The error a parse throws, by option. */
function refusal(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error('no error');
}

describe('declared options', () => {
  const program = buildProgram();
  const command = (...path: string[]) => path.reduce((at, name) => at.commands.find((c) => c.name() === name)!, program);

  const declarations: Array<[string[], OptionMap]> = [
    [['serve'], SERVE_OPTIONS],
    ...Object.entries(KEYS_OPTIONS).map(([name, declared]): [string[], OptionMap] => [['keys', name], declared]),
    ...Object.entries(ACCOUNTS_OPTIONS).map(([name, declared]): [string[], OptionMap] => [['accounts', name], declared]),
  ];

  it.each(declarations)('%s has every declared option, with its default', (path, declared) => {
    const options = command(...path).options;
    for (const [flag, spec] of Object.entries(declared)) {
      const option = options.find((o) => o.attributeName() === camelOption(flag));
      expect(option, flag).toBeDefined();
      expect(option!.long).toBe(`--${'negatable' in spec ? 'no-' : ''}${flag}`);
      expect(option!.description).toBe(spec.help);
      if ('default' in spec) expect(option!.defaultValue).toBe(spec.default);
      if ('defaultHelp' in spec) expect(option!.defaultValueDescription).toBe(spec.defaultHelp);
      expect(option!.mandatory, flag).toBe('required' in spec);
      expect(option!.envVar).toBe(spec.env);
    }
  });

  it('accounts create refuses to run without a declared required option, naming it', () => {
    const create = command('accounts', 'create');
    create.exitOverride();
    create.configureOutput({ writeErr: () => {} });
    expect(() => create.parse(['shop', '--email', 'owner@example.com'], { from: 'user' })).toThrow(/required option '--plan <plan>' not specified/);
  });

  it('types what commander parsed: whole numbers as numbers, defaults kept', () => {
    const parsed = command('serve').parseOptions([]);
    expect(parsed.unknown).toEqual([]);
    const options = parseOptions(SERVE_OPTIONS, { ...command('serve').opts(), port: '0', workers: '3' });
    expect(options).toMatchObject({ port: 0, workers: 3, region: 'global', maxUploadBytes: 100 * 1024 * 1024, requestTimeoutMs: 120_000, host: '127.0.0.1' });
  });

  it('refuses a bad value naming the option, as the messages always said', () => {
    expect(refusal(() => parseOptions(SERVE_OPTIONS, { port: 'abc' }))).toEqual({ port: ['must be a whole number; got "abc"'] });
    expect(refusal(() => parseOptions(SERVE_OPTIONS, { workers: '0' }))).toEqual({ workers: ['must be a whole number above 0; got "0"'] });
    expect(refusal(() => parseOptions(SERVE_OPTIONS, { maxUploadBytes: '-5' }))).toEqual({ 'max-upload-bytes': ['must be a whole number above 0; got "-5"'] });
    expect(refusal(() => parseOptions(SERVE_OPTIONS, { region: 'mars' }))).toEqual({
      region: ['unknown region "mars"; use one of global, us, us-hipaa, eu, uk, ca, au, jp, in, br'],
    });
    expect(refusal(() => parseOptions(KEYS_OPTIONS.create, { plan: 'gold' }))).toEqual({ plan: ['must be one of free, starter, business; got "gold"'] });
  });
});
