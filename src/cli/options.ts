/**
 * Options of the commands that are not actions (`serve`, `keys …`, `accounts …`),
 * declared as data like the actions' fields: one declaration gives the
 * commander option (flag, help, default, environment variable), the type of
 * the parsed options, and their validation (a bad value is a ValidationError
 * naming the option: exit status 2).
 */
import { Option, type Command } from 'commander';
import { ValidationError } from '../core/errors.js';

interface OptionCommon {
  help: string;
  /** Read from this environment variable when the option is not given. */
  env?: string;
}

/** Free text (a host, a path, a URL); checked where it is used. */
export interface TextOption extends OptionCommon {
  kind: 'text';
  /** The value's name in --help: `--host <host>`. */
  value: string;
  default?: string;
  /** The default --help shows when the value is left out for the code that uses it to fill in (no value is set). */
  defaultHelp?: string;
  /** The command refuses to run without it (commander's message, exit status 2). */
  required?: true;
}

/** A whole number written in decimal digits. */
export interface IntegerOption extends OptionCommon {
  kind: 'integer';
  value: string;
  /** 0 (a port: 0 picks a free one) or 1 (the default: above 0). */
  min?: 0 | 1;
  default?: string;
}

export interface ChoiceOption<V extends string = string> extends OptionCommon {
  kind: 'choice';
  value: string;
  values: readonly V[];
  default?: V;
  /** What a wrong value is called in the message (`unknown region "mars"`); otherwise "must be one of …". */
  noun?: string;
}

/** On or off; `negatable`: on by default, `--no-<name>` turns it off. */
export interface FlagOption extends OptionCommon {
  kind: 'flag';
  negatable?: true;
}

export type OptionSpec = TextOption | IntegerOption | ChoiceOption | FlagOption;
/** Options by their flag without the dashes (`max-upload-bytes`). */
export type OptionMap = Record<string, OptionSpec>;

/** `max-upload-bytes` → `maxUploadBytes`, commander's name for the value. */
type CamelOption<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelOption<Tail>>}` : S;

type ValueOf<O extends OptionSpec> = O extends IntegerOption ? number : O extends FlagOption ? boolean : O extends ChoiceOption<infer V> ? V : string;
type Given<O extends OptionSpec> = O extends { default: string } ? true : O extends { negatable: true } ? true : O extends { required: true } ? true : false;

/** The options as parseOptions returns them: typed, and present when the declaration gives a default. */
export type OptionValues<M extends OptionMap> = {
  -readonly [K in keyof M & string as Given<M[K]> extends true ? CamelOption<K> : never]: ValueOf<M[K]>;
} & {
  -readonly [K in keyof M & string as Given<M[K]> extends true ? never : CamelOption<K>]?: ValueOf<M[K]>;
};

export function camelOption(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Adds the declared options to a command. */
export function addOptions(command: Command, options: OptionMap): Command {
  for (const [flag, spec] of Object.entries(options)) {
    const option = spec.kind === 'flag' ? new Option(`--${spec.negatable ? 'no-' : ''}${flag}`, spec.help) : new Option(`--${flag} <${spec.value}>`, spec.help);
    if (spec.kind !== 'flag' && spec.default !== undefined) option.default(spec.default);
    if (spec.kind === 'text' && spec.defaultHelp !== undefined) option.default(undefined, spec.defaultHelp);
    if (spec.kind === 'text' && spec.required) option.makeOptionMandatory();
    if (spec.env) option.env(spec.env);
    command.addOption(option);
  }
  return command;
}

/** Checks what commander parsed against the declarations; the first bad value is a ValidationError naming its option. */
export function parseOptions<const M extends OptionMap>(options: M, raw: Record<string, unknown>): OptionValues<M> {
  const values: Record<string, unknown> = { ...raw };
  for (const [flag, spec] of Object.entries(options)) {
    const name = camelOption(flag);
    const given = raw[name];
    if (given === undefined) continue;
    if (spec.kind === 'integer') {
      const text = String(given);
      const allowZero = spec.min === 0;
      if (!/^\d+$/.test(text) || (!allowZero && Number(text) === 0)) {
        throw ValidationError.field(flag, `must be a whole number${allowZero ? '' : ' above 0'}; got ${JSON.stringify(text)}`);
      }
      values[name] = Number(text);
    } else if (spec.kind === 'choice' && !spec.values.includes(String(given))) {
      throw ValidationError.field(
        flag,
        spec.noun
          ? `unknown ${spec.noun} ${JSON.stringify(given)}; use one of ${spec.values.join(', ')}`
          : `must be one of ${spec.values.join(', ')}; got ${JSON.stringify(given)}`,
      );
    }
  }
  return values as OptionValues<M>;
}
