/**
 * One commander subcommand per action, generated from its declaration:
 * options from the fields, the main PDF from the arguments or standard input,
 * the output to -o or standard output.
 */
import { Command, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { kebabName, type AnyAction } from '../core/action.js';
import { ValidationError, ValidationErrors } from '../core/errors.js';
import { describeDefault, describeRules, type Field, type RawValues } from '../core/fields.js';
import { PACKAGINGS, type Packaging } from '../core/packaging.js';
import { run } from '../core/run.js';
import type { RemoteSettings } from './remote.js';
import { inlineLess, optimizeLater, optimizeLaterWhenTiny } from '../core/heap-growth.js';
import { describeFsError, readInput, refuseUnwritableOutputFile, StagedParts } from './io.js';
import { writeOutput } from './output.js';
import { CLI_WORDS } from './words.js';
import { sayText } from '../core/words.js';
import { formatBytes, Progress, stderrIsTerminal } from './progress.js';

/** The field read from positional arguments: the action's PDF input(s). */
function positionalField(action: AnyAction): [string, Field] | undefined {
  return Object.entries(action.fields as Record<string, Field>).find(([, f]) => f.kind === 'file' && f.accepts === 'pdf');
}

/** `PDFSVC_OWNER_PASSWORD` for `owner_password`: where the CLI also looks for a secret. */
function secretEnvName(field: string): string {
  return `PDFSVC_${field.toUpperCase()}`;
}

function optionHelp(field: Field): string {
  const parts = [sayText(field.help, CLI_WORDS).replace(/\.$/, ''), describeRules(field)];
  const fallback = describeDefault(field);
  if (field.required) parts.push('required');
  else if (fallback !== undefined) parts.push(`default: ${fallback}`);
  return parts.filter(Boolean).join('; ');
}

/** The values of each choice option, for the completion script: its placeholder lists them only when they fit. */
export const choiceValues = new WeakMap<Option, readonly string[]>();

/**
 * `<true|false>`, `<over|under>`; a longer list (position's nine places) is named instead, as `<position>`:
 * commander sets every description beside the widest option, so one long placeholder pushed all of them
 * past the width of the terminal. The help's rules list the values.
 */
function placeholder(name: string, field: Field): string {
  if (field.kind === 'boolean') return '<true|false>';
  if (field.kind !== 'choice') return '<value>';
  const values = `<${field.values.join('|')}>`;
  return values.length <= 24 ? values : `<${kebabName(name)}>`;
}

export function actionCommand(action: AnyAction): Command {
  const summary = sayText(action.summary, CLI_WORDS);
  const command = new Command(kebabName(action.name))
    .summary(summary)
    .description(action.description ? `${summary}\n\n${sayText(action.description, CLI_WORDS)}` : summary)
    // The short verb first: commander shows the first alias in usage lines and suggests only it for a typo (`rotat`).
    .aliases([...(action.aliases ?? []), action.name])
    // Commander wraps a description only in 40 columns or more: beside `--allow-print-high-resolution <true|false>`
    // that left none, and every line of add-restrictions' help ran past 80 columns. 34 are left there.
    .configureHelp({ minWidthToWrap: 30 });
  const input = positionalField(action);
  if (input) {
    const [name, field] = input;
    const multiple = field.kind === 'file' && field.multiple;
    command.argument(
      '[inputs...]',
      multiple
        ? `${sayText(field.help, CLI_WORDS)} Their paths; - (once) for standard input, which is also read when none is given.`
        : `${sayText(field.help, CLI_WORDS)} A path, or - (or nothing) for standard input; several paths with --out-dir or --in-place (batch mode).`,
    );
    void name;
  }
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    if (input && name === input[0]) continue;
    const flag = `--${kebabName(name)}`;
    if (field.kind === 'file') {
      command.addOption(new Option(`${flag} <path>`, optionHelp(field)));
      continue;
    }
    const option = new Option(`${flag} ${placeholder(name, field)}`, optionHelp(field));
    if (field.kind === 'choice') choiceValues.set(option, field.values);
    command.addOption(option);
    if (field.kind === 'text' && field.secret) {
      command.addOption(
        new Option(
          `${flag}-file <path>`,
          `read the ${name.replaceAll('_', ' ')} from the first line of a file (keeps it out of the process list); or set ${secretEnvName(name)}`,
        ),
      );
    }
  }
  command.option(
    '-o, --output <path>',
    action.output === 'documents'
      ? 'directory to write 00001.pdf, 00002.pdf, … into (created if missing); - or none: standard output, packaged as --format says'
      : 'file to write the PDF to; - or none: standard output',
  );
  if (action.output === 'documents') {
    command.addOption(
      new Option(
        '--format <format>',
        'packaging on standard output (no -o, or -o -): zip, a ZIP archive; json, {"documents":[{"name","content" (base64),"content_type"}]}; multipart, multipart/mixed with one part per document',
      )
        .choices(PACKAGINGS)
        .default('zip'),
    );
    command.option('--force', 'overwrite existing files in the -o directory');
  }
  if (input && !(input[1].kind === 'file' && input[1].multiple)) {
    // Batch mode, for every action that takes one PDF.
    command.option('--out-dir <dir>', 'batch mode: write one output per input into this directory (created if missing)');
    command.option('--jobs <n>', 'batch mode: files worked on at once, each on a worker thread (default: one per core)');
    command.option(
      '--name <template>',
      `batch mode: output name from {stem}, {name}, {ext} of the input (default: ${action.output === 'documents' ? '{stem}, a folder of parts' : '{name}'})`,
    );
    if (action.output === 'document') {
      command.option('--in-place', 'batch mode: replace each input, only once its output was written in full');
      command.option('--force', 'overwrite existing outputs in --out-dir');
    }
  }
  command.option('--quiet', 'no progress on standard error (shown only when it is a terminal: for batch mode, and for one file that takes more than a second)');
  command.option('--json', 'on failure, print the problem object (as the HTTP API returns it) on standard error');
  command.action(async (...args: unknown[]) => {
    const options = command.opts();
    // --format packs the parts for standard output: beside -o DIR or --out-dir it would be ignored (-o parts.zip made a directory).
    if (command.getOptionValueSource('format') === 'cli' && ((options.output !== undefined && options.output !== '-') || options.outDir !== undefined)) {
      throw ValidationError.field(
        'format',
        'packs the parts for standard output, but -o DIR and --out-dir write them as files (00001.pdf, 00002.pdf, …): leave --format out, or write the archive to standard output (-o - > parts.zip)',
      );
    }
    const remote = remoteSettings(command.optsWithGlobals());
    let positional = args[0] as string | string[] | undefined;
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
  });
  return command;
}

/** Remote mode's global options (`--server` or PDFSVC_SERVER); undefined: work locally. */
function remoteSettings(globals: Record<string, unknown>): RemoteSettings | undefined {
  const server = globals.server as string | undefined;
  if (server === undefined || server === '') return undefined;
  return { server, apiKeyFile: globals.apiKeyFile as string | undefined, cacert: globals.cacert as string | undefined };
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

function camel(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
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
