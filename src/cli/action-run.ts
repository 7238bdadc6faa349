/**
 * Running an action from the command line, once its command line is read (by
 * commander, action-command.ts, or without it, action-options.ts's
 * plainActionLine): the main PDF from the arguments or standard input, the
 * output to -o or standard output, batch mode for several inputs.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { kebabName, type AnyAction } from '../core/action.js';
import { ValidationError, ValidationErrors } from '../core/errors.js';
import { describeRules, type Field, type RawValues } from '../core/fields.js';
import type { Packaging } from '../core/packaging.js';
import { run } from '../core/run.js';
import type { RemoteSettings } from './remote.js';
import { inlineLess, optimizeLater, optimizeLaterWhenTiny } from '../core/heap-growth.js';
import { describeFsError, readInput, refuseUnwritableOutputFile, StagedParts } from './io.js';
import { writeOutput } from './output.js';
import { camel, positionalField, secretEnvName } from './action-options.js';
import { formatBytes, Progress, stderrIsTerminal } from './progress.js';

/**
 * Runs `action` on what its command line gave: `positional`, the paths (commander's `[inputs...]`), and
 * `options`, the options' values by commander's names (`outDir`); `remote`: remote mode's settings;
 * `formatGiven`: --format was on the line (not its default).
 */
export async function runActionCommand(
  action: AnyAction,
  positional: string | string[] | undefined,
  options: Record<string, unknown>,
  remote: RemoteSettings | undefined,
  formatGiven = false,
): Promise<void> {
  // --format packs the parts for standard output: beside -o DIR or --out-dir it would be ignored (-o parts.zip made a directory).
  if (formatGiven && ((options.output !== undefined && options.output !== '-') || options.outDir !== undefined)) {
    throw ValidationError.field(
      'format',
      'packs the parts for standard output, but -o DIR and --out-dir write them as files (00001.pdf, 00002.pdf, …): leave --format out, or write the archive to standard output (-o - > parts.zip)',
    );
  }
  const input = positionalField(action);
  const single = input && !(input[1].kind === 'file' && input[1].multiple);
  if (single && Array.isArray(positional)) {
    const paths = positional;
    if (paths.length > 1 || options.outDir !== undefined || options.inPlace) {
      if (options.output !== undefined) throw ValidationError.field('output', '-o names one output; with several inputs use --out-dir DIR');
      const { runBatch } = await import('./batch.js');
      const shared = await collectRawValues(action, undefined, undefined, options);
      const jobs = options.jobs === undefined ? undefined : Number(options.jobs);
      if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= 256))
        throw ValidationError.field('jobs', `must be a whole number from 1 to 256; got ${JSON.stringify(options.jobs)}`);
      const connection = remote && (await import('./remote.js')).connect(remote);
      try {
        process.exitCode = await runBatch(action, input[0], paths, shared, { ...options, jobs }, connection);
      } finally {
        connection?.close();
      }
      return;
    }
    positional = paths[0];
  }
  await runFromCli(action, input?.[0], positional, options, remote);
}

/** `lazy`: PDF inputs read only where the reader looks (local work); remote mode sends them whole. */
async function collectRawValues(
  action: AnyAction,
  inputName: string | undefined,
  positional: string | string[] | undefined,
  options: Record<string, unknown>,
  lazy = true,
): Promise<RawValues> {
  const raw: RawValues = {};
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    const key = camel(kebabName(name));
    if (name === inputName && field.kind === 'file') {
      if (field.multiple) {
        const paths = (positional as string[] | undefined) ?? [];
        if (paths.filter((p) => p === '-').length > 1) throw ValidationError.field(name, 'standard input (-) can be given only once');
        raw[name] = paths.length === 0 ? [await readInput(undefined, name)] : await Promise.all(paths.map((p) => readInput(p, name, lazy, paths.length > 1)));
      } else {
        raw[name] = await readInput(positional as string | undefined, name, lazy);
      }
      continue;
    }
    const value = options[key];
    if (field.kind === 'file') {
      if (typeof value === 'string') raw[name] = await readInput(value, name);
      continue;
    }
    if (field.kind === 'text' && field.secret) {
      raw[name] = await secretValue(name, value as string | undefined, options[`${key}File`] as string | undefined);
      continue;
    }
    if (value !== undefined) raw[name] = value as string;
  }
  // --json prints the problem the API would return, its messages included.
  if (!options.json) refuseMissingOptions(action, raw);
  return raw;
}

/**
 * A required option left out, said with the options that give it: the
 * action's own message speaks to HTTP clients ("send the image as a file
 * part"), and a secret may also come from a file or the environment.
 */
function refuseMissingOptions(action: AnyAction, raw: RawValues): void {
  const missing = new ValidationErrors();
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    if (!field.required || raw[name] !== undefined || (field.kind === 'file' && field.accepts === 'pdf')) continue;
    const flag = `--${kebabName(name)}`;
    if (field.kind === 'text' && field.secret) {
      const empty = field.emptyFor ? `; give it empty (${flag} '') for ${field.emptyFor}` : '';
      missing.add(name, `is required: ${secretOptions(name)}${empty}`);
    } else if (field.kind === 'file') missing.add(name, `is required: give ${flag} FILE`);
    else missing.add(name, `is required: give ${flag}, ${describeRules(field)}`);
  }
  missing.throwIfAny();
}

function secretOptions(name: string): string {
  const flag = `--${kebabName(name)}`;
  return `give ${flag} VALUE, ${flag}-file FILE, or set ${secretEnvName(name)}`;
}

/** A secret from its option, else its file option, else its environment variable. */
async function secretValue(name: string, direct: string | undefined, file: string | undefined): Promise<string | undefined> {
  if (direct !== undefined) return direct;
  if (file !== undefined) {
    try {
      return (await readFile(file, 'utf8')).split(/\r?\n/)[0];
    } catch (err) {
      throw ValidationError.field(name, `cannot read the ${name} file ${JSON.stringify(file)}: ${describeFsError(err)}`);
    }
  }
  return process.env[secretEnvName(name)];
}

async function runFromCli(
  action: AnyAction,
  inputName: string | undefined,
  positional: string | string[] | undefined,
  options: Record<string, unknown>,
  remote?: RemoteSettings,
): Promise<void> {
  // `-o -` is standard output, as `-` is standard input (it made a file named '-').
  const output = options.output === '-' ? undefined : (options.output as string | undefined);
  if (action.output === 'document' && output === undefined && process.stdout.isTTY) {
    throw ValidationError.field('output', 'refusing to write PDF bytes to a terminal: use -o FILE, or redirect standard output (> out.pdf)');
  }
  if (action.output === 'document' && output !== undefined) refuseUnwritableOutputFile(output);
  const raw = await collectRawValues(action, inputName, positional, options, !remote);
  // Off the terminal (pipes, scripts) nothing changes: no thread, no counting.
  const progress = stderrIsTerminal() && !options.quiet && inputName ? new Progress(progressLabel(positional, raw[inputName])) : undefined;
  // A local split into a directory writes each part as it is made.
  const staged = !remote && action.output === 'documents' && output !== undefined ? new StagedParts(output, Boolean(options.force)) : undefined;
  try {
    const result = remote ? await runRemotely(remote, action, raw) : await runLocally(action, raw, progress, staged);
    await writeOutput(result, output, {
      force: Boolean(options.force),
      packaging: options.format as Packaging,
      writing: progress && ((total) => progress.writing(total)),
    });
  } catch (err) {
    staged?.discard();
    throw err;
  } finally {
    // Before any error is printed: the terminal is left clean.
    progress?.stop();
  }
}

/** `scan.pdf (57.3 MB)`, or `3 files (…)` for merge. */
function progressLabel(positional: string | string[] | undefined, input: RawValues[string]): string {
  const paths = ([] as Array<string | undefined>).concat(positional ?? '-');
  const size = inputSizes(input).reduce((sum, bytes) => sum + bytes, 0);
  const name = paths.length > 1 ? `${paths.length} files` : paths[0] === '-' || paths[0] === undefined ? 'standard input' : basename(paths[0]);
  return `${name} (${formatBytes(size)})`;
}

/** The size of each input (one, or several for merge). */
function inputSizes(input: RawValues[string]): number[] {
  return ([] as unknown[]).concat(input).map((bytes) => (bytes as Uint8Array | undefined)?.byteLength ?? 0);
}

function runLocally(action: AnyAction, raw: RawValues, progress?: Progress, staged?: StagedParts) {
  // A V8 flag is the whole process's: set by the command line only, after the code cache is taken, once the inputs' size is known.
  const sizes = inputSizes(raw.file);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (action.name === 'merge_documents') optimizeLater(sizes);
  optimizeLaterWhenTiny(total);
  inlineLess(total, action.name === 'merge_documents' || action.group === 'split');
  // Damage the input was read through: the output is made, and the user told.
  return run(action, raw, {
    keepPart: staged?.keep,
    onWarning: ({ field, message }) => {
      const line = `pdfsvc: warning: ${field}: ${message}\n`;
      if (progress) progress.say(line);
      else process.stderr.write(line);
    },
  });
}

async function runRemotely(settings: RemoteSettings, action: AnyAction, raw: RawValues) {
  const remote = (await import('./remote.js')).connect(settings);
  try {
    return await remote.run(action, raw);
  } finally {
    remote.close();
  }
}
