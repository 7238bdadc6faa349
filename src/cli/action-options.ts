/**
 * An action's command-line options, made from its declaration: commander's
 * command (action-command.ts) is built from this list, and a plain command
 * line (`pdfsvc rotate --angle 90 in.pdf -o out.pdf`) is read from it without
 * commander (plainActionLine), which a short run spends ~1.5 ms loading,
 * building and parsing (bench/README.md, startup3 and argv).
 */
import { kebabName, type AnyAction } from '../core/action.js';
import type { Field } from '../core/fields.js';
import { PACKAGINGS } from '../core/packaging.js';

/** One option of an action's command, as commander declares it. */
export interface ActionOption {
  /** What --help says of an option that is not a field; a field's is made from `field` when commander's command is (a plain line needs none). */
  help?: string;
  /** The field it gives. */
  field?: Field;
  /** The flag without its dashes (`out-dir`); commander's name for the value is its camel case (`outDir`). */
  long: string;
  /** `o` for `-o`. */
  short?: string;
  /** The value's name in --help (`0|90|180|270`, `path`): the option takes a value (`--angle 90`); without one it is on when given (`--quiet`). */
  value?: string;
  /** The values commander accepts (it refuses others itself). */
  choices?: readonly string[];
  /** The values of a choice field, for the completion script (the action checks them). */
  fieldValues?: readonly string[];
  default?: string;
}

/** The field read from positional arguments: the action's PDF input(s). */
export function positionalField(action: AnyAction): [string, Field] | undefined {
  return Object.entries(action.fields as Record<string, Field>).find(([, f]) => f.kind === 'file' && f.accepts === 'pdf');
}

/** `PDFSVC_OWNER_PASSWORD` for `owner_password`: where the CLI also looks for a secret. */
export function secretEnvName(field: string): string {
  return `PDFSVC_${field.toUpperCase()}`;
}

/**
 * `true|false`, `over|under`; a longer list (position's nine places) is named instead, as `position`:
 * commander sets every description beside the widest option, so one long placeholder pushed all of them
 * past the width of the terminal. The help's rules list the values.
 */
function placeholder(name: string, field: Field): string {
  if (field.kind === 'boolean') return 'true|false';
  if (field.kind !== 'choice') return 'value';
  const values = field.values.join('|');
  return values.length <= 22 ? values : kebabName(name);
}

/** commander's flags for `spec`: `--angle <0|90|180|270>`, `-o, --output <path>`. */
export function flagsOf(spec: ActionOption): string {
  return `${spec.short === undefined ? '' : `-${spec.short}, `}--${spec.long}${spec.value === undefined ? '' : ` <${spec.value}>`}`;
}

/** The options of `action`'s command, in the order its help lists them. */
export function actionOptions(action: AnyAction): ActionOption[] {
  const input = positionalField(action);
  const options: ActionOption[] = [];
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    if (input && name === input[0]) continue;
    const long = kebabName(name);
    if (field.kind === 'file') {
      options.push({ long, value: 'path', field });
      continue;
    }
    options.push(
      field.kind === 'choice' ? { long, value: placeholder(name, field), field, fieldValues: field.values } : { long, value: placeholder(name, field), field },
    );
    if (field.kind === 'text' && field.secret) {
      options.push({
        long: `${long}-file`,
        value: 'path',
        help: `read the ${name.replaceAll('_', ' ')} from the first line of a file (keeps it out of the process list); or set ${secretEnvName(name)}`,
      });
    }
  }
  options.push({
    long: 'output',
    short: 'o',
    value: 'path',
    help:
      action.output === 'documents'
        ? 'directory to write 00001.pdf, 00002.pdf, … into (created if missing); - or none: standard output, packaged as --format says'
        : 'file to write the PDF to; - or none: standard output',
  });
  if (action.output === 'documents') {
    options.push(
      {
        long: 'format',
        value: 'format',
        help: 'packaging on standard output (no -o, or -o -): zip, a ZIP archive; json, {"documents":[{"name","content" (base64),"content_type"}]}; multipart, multipart/mixed with one part per document',
        choices: PACKAGINGS,
        default: 'zip',
      },
      { long: 'force', help: 'overwrite existing files in the -o directory' },
    );
  }
  if (input && !(input[1].kind === 'file' && input[1].multiple)) {
    // Batch mode, for every action that takes one PDF.
    options.push(
      { long: 'out-dir', value: 'dir', help: 'batch mode: write one output per input into this directory (created if missing)' },
      { long: 'jobs', value: 'n', help: 'batch mode: files worked on at once, each on a worker thread (default: one per core)' },
      {
        long: 'name',
        value: 'template',
        help: `batch mode: output name from {stem}, {name}, {ext} of the input (default: ${action.output === 'documents' ? '{stem}, a folder of parts' : '{name}'})`,
      },
    );
    if (action.output === 'document') {
      options.push(
        { long: 'in-place', help: 'batch mode: replace each input, only once its output was written in full' },
        { long: 'force', help: 'overwrite existing outputs in --out-dir' },
      );
    }
  }
  options.push(
    { long: 'quiet', help: 'no progress on standard error (shown only when it is a terminal: for batch mode, and for one file that takes more than a second)' },
    { long: 'json', help: 'on failure, print the problem object (as the HTTP API returns it) on standard error' },
  );
  return options;
}

/** `out-dir` → `outDir`: commander's name for an option's value, made as commander makes it. */
export function camel(kebab: string): string {
  return kebab.split('-').reduce((name, word) => name + word[0].toUpperCase() + word.slice(1));
}

/**
 * A value commander gives the option it follows, whatever the option: not one that looks like an option
 * (`--server`, `-V`: the program reads its own options anywhere on the line), but `-` (standard input or
 * output) and a negative number or page (`--page-order -1..1`), which commander reads as the value.
 */
function plainValue(value: string): boolean {
  return !value.startsWith('-') || value === '-' || /^-[\d.]/.test(value);
}

/** What commander hands an action's command: its positional arguments and its options' values. */
export interface ActionLine {
  positional: string[];
  options: Record<string, unknown>;
  /** --format was on the line, not its default (commander's getOptionValueSource). */
  formatGiven: boolean;
}

/**
 * `argv` (node, script, arguments) read as commander reads an action's command line when that is certain: the
 * command's name or alias first, then its options as `--name value`, `--name=value`, `-o value` or a bare flag,
 * each at most once, and paths (or `-`). Anything else (help, --version, global options, remote mode, `--`,
 * `-abc`, a value that looks like an option, an unknown or repeated option, a missing value, a choice commander
 * refuses) is undefined: commander runs that line, with its own messages.
 */
export function plainActionLine(action: AnyAction, argv: readonly string[]): ActionLine | undefined {
  const names = [kebabName(action.name), ...(action.aliases ?? []), action.name];
  // PDFSVC_SERVER is --server's value (commander reads it): remote mode.
  if (!names.includes(argv[2]) || 'PDFSVC_SERVER' in process.env) return undefined;
  const byFlag = new Map<string, ActionOption>();
  const values: Record<string, unknown> = {};
  for (const spec of actionOptions(action)) {
    byFlag.set(`--${spec.long}`, spec);
    if (spec.short !== undefined) byFlag.set(`-${spec.short}`, spec);
    if (spec.default !== undefined) values[camel(spec.long)] = spec.default;
  }
  const given = new Set<ActionOption>();
  const positional: string[] = [];
  for (let i = 3; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-' || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const spec = byFlag.get(equals === -1 ? arg : arg.slice(0, equals));
    if (spec === undefined || given.has(spec) || (equals !== -1 && spec.value === undefined)) return undefined;
    given.add(spec);
    if (spec.value === undefined) {
      values[camel(spec.long)] = true;
      continue;
    }
    const value = equals === -1 ? argv[++i] : arg.slice(equals + 1);
    if (value === undefined || !plainValue(value) || (spec.choices && !spec.choices.includes(value))) return undefined;
    values[camel(spec.long)] = value;
  }
  if (positional.length > 0 && positionalField(action) === undefined) return undefined;
  const format = byFlag.get('--format');
  return { positional, options: values, formatGiven: format !== undefined && given.has(format) };
}
