/**
 * Field declarations: the one place where an action's inputs, their rules,
 * defaults and help text live. The CLI options, the HTTP form parsing, the
 * validation messages and the OpenAPI schema are all derived from these.
 *
 * Every parser accepts both the text form (CLI and HTTP send strings) and the
 * typed form (library callers pass numbers and booleans), so one validation
 * serves all three surfaces.
 */
import { ValidationErrors, ValidationError } from './errors.js';
import { parsePageSpec, MAX_PAGE_SPEC_LENGTH } from './pages.js';
import type { Message } from './words.js';
import { bytesRemedy, describeValue } from './input-shape.js';

interface FieldCommon {
  /** One sentence for --help, the OpenAPI description and the docs page. */
  help: string;
  required?: boolean;
  /** A required text field that may be empty: what the empty value is for, said when the field is missing. */
  emptyFor?: string;
}

export interface FileField extends FieldCommon {
  kind: 'file';
  /** What the bytes must be; checked when the file is opened, not here. */
  accepts: 'pdf' | 'image';
  /** merge_documents: several files; over HTTP the part repeated (or numbered `file_1` … `file_N`). */
  multiple?: { numberedUpTo: number };
  /** A file of fixtures/out/ (scripts/build-fixtures.mjs) the action succeeds on: the tests send it; a list for `multiple`. */
  example: string | readonly string[];
}

export interface TextField extends FieldCommon {
  kind: 'text';
  minLength?: number;
  maxLength?: number;
  /** Space through tilde only: the PDF standard handlers' portable password alphabet. */
  printableAscii?: boolean;
  /** Passwords: never logged, never echoed; the CLI can also read them from a file or the environment. */
  secret?: boolean;
  /** Treat an empty value as absent (docs/contract.md, "Fields": an empty user_password means none). */
  emptyMeansAbsent?: boolean;
  /** A value the action takes: the OpenAPI document, /docs, the README and the tests show or send it. */
  example: string;
}

export interface IntegerField extends FieldCommon {
  kind: 'integer';
  min?: number;
  max?: number;
  oneOf?: readonly number[];
  default?: number;
  /** As TextField's example. */
  example: number;
}

export interface NumberField extends FieldCommon {
  kind: 'number';
  min: number;
  max: number;
  unit?: string;
  default?: number;
  /** Text for the default when it is computed per page rather than fixed. */
  defaultHelp?: string;
  /** As TextField's example. */
  example: number;
}

export interface BooleanField extends FieldCommon {
  kind: 'boolean';
  default: boolean;
  /** As TextField's example. */
  example: boolean;
}

export interface ChoiceField<V extends string = string> extends FieldCommon {
  kind: 'choice';
  values: readonly V[];
  default?: V;
  /** As TextField's example. */
  example: V;
}

export interface ColorField extends FieldCommon {
  kind: 'color';
  default: string;
  /** As TextField's example. */
  example: string;
}

/**
 * Page syntax. `set`: order and duplicates ignored; `ordered`: a list, kept as
 * given; `groups`: ordered lists separated by `;`; `single`: one page.
 * The value stays text (syntax-checked here): resolving needs the page count.
 */
export interface PagesField extends FieldCommon {
  kind: 'pages';
  form: 'set' | 'ordered' | 'groups' | 'single';
  /** As TextField's example. */
  example: string;
}

export type Field = FileField | TextField | IntegerField | NumberField | BooleanField | ChoiceField | ColorField | PagesField;
export type FieldMap = Record<string, Field>;

type ValueOf<F extends Field> = F extends FileField
  ? F['multiple'] extends object
    ? Uint8Array[]
    : Uint8Array
  : F extends IntegerField | NumberField
    ? number
    : F extends BooleanField
      ? boolean
      : F extends ChoiceField<infer V>
        ? V
        : string;

type HasValue<F extends Field> = F extends { required: true } ? true : F extends { default: unknown } ? true : false;

/** The validated values a transform receives. */
export type FieldValues<M extends FieldMap> = {
  -readonly [K in keyof M as HasValue<M[K]> extends true ? K : never]: ValueOf<M[K]>;
} & {
  -readonly [K in keyof M as HasValue<M[K]> extends true ? never : K]?: ValueOf<M[K]>;
};

/**
 * What library callers pass: text or typed values, files as bytes (the HTTP client also takes Blobs: `File`). An
 * optional field may be given as undefined, which means absent (so it compiles under exactOptionalPropertyTypes).
 */
export type FieldInput<M extends FieldMap, File = Uint8Array> = {
  [K in keyof M as M[K] extends { required: true } ? K : never]: InputOf<M[K], File>;
} & {
  [K in keyof M as M[K] extends { required: true } ? never : K]?: InputOf<M[K], File> | undefined;
};
type InputOf<F extends Field, File> = F extends FileField
  ? F['multiple'] extends object
    ? File[]
    : File
  : F extends IntegerField | NumberField
    ? NumberInput<F>
    : F extends BooleanField
      ? boolean | 'true' | 'false'
      : F extends ChoiceField<infer V>
        ? V
        : F extends { kind: 'pages'; form: 'single' }
          ? string | number
          : string;
/** A number, or its decimal text (`'90'`); where the field lists its values (`oneOf`), only those. */
type NumberInput<F extends IntegerField | NumberField> = F extends { oneOf: readonly (infer V extends number)[] } ? V | `${V}` : number | `${number}`;

/** A raw value as it arrives: text from a form or argv, bytes for files, typed values from the library. */
export type RawValue = string | number | boolean | Uint8Array | Uint8Array[] | undefined;
export type RawValues = Record<string, RawValue>;

const INTEGER = /^[+-]?\d+$/;
/** Decimal notation, with an exponent as JavaScript's String(n) writes very small and very large numbers (1e-7). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** The largest whole number every client and JSON reader holds exactly: 2^53 - 1. */
export const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

/** Validates one field; returns the typed value, or undefined when absent and optional. */
function parseField(name: string, field: Field, raw: RawValue, errors: ValidationErrors): unknown {
  // An empty value is a value, checked like any other (docs/contract.md, "Fields":
  // a boolean is true or false, anything else a 400), so that `allow_print=` never passes for
  // "omitted" and keeps a permission on. Only a field that says so takes it as
  // absent (an empty user_password means none).
  if (raw === '' && field.kind === 'text' && field.emptyMeansAbsent) raw = undefined;
  if (raw === undefined) {
    if ('default' in field && field.default !== undefined) return field.default;
    if (field.required) errors.add(name, missingMessage(field));
    return undefined;
  }
  if (raw === '' && field.kind !== 'text' && field.kind !== 'file' && field.kind !== 'pages') {
    errors.add(name, emptyMessage(field));
    return undefined;
  }
  switch (field.kind) {
    case 'file': {
      const files = Array.isArray(raw) ? raw : [raw];
      // Only the library can get here (the server and the command line read files as bytes): say what to pass.
      const notBytes = files.findIndex((f) => !(f instanceof Uint8Array));
      if (notBytes >= 0) {
        const got: unknown = files[notBytes];
        errors.add(name, `must be the file's bytes, a Uint8Array (a Buffer is one); got ${describeValue(got)}${bytesRemedy(got)}`);
        return undefined;
      }
      if (!field.multiple && files.length > 1) {
        errors.add(name, `takes one file; ${files.length} were sent`);
        return undefined;
      }
      return field.multiple ? files : files[0];
    }
    case 'text': {
      if (typeof raw !== 'string') return (errors.add(name, 'must be text'), undefined);
      const chars = [...raw].length;
      if (field.printableAscii && !/^[\x20-\x7e]*$/.test(raw)) {
        errors.add(name, 'may contain only printable ASCII characters (space through tilde); no accents, tabs or line breaks');
      } else if (field.minLength !== undefined && chars < field.minLength) {
        errors.add(name, `${chars === 0 ? 'is empty' : `is ${chars} characters long`}; it must be at least ${field.minLength}`);
      } else if (field.maxLength !== undefined && chars > field.maxLength) {
        errors.add(name, `is ${chars} characters long; the maximum is ${field.maxLength}`);
      } else return raw;
      return undefined;
    }
    case 'integer': {
      const n = toNumber(raw, INTEGER);
      // Beyond 2^53 a number is rounded: its text (digits only here) says what was sent.
      const got = typeof raw === 'string' ? raw.trim() : String(n);
      if (n === undefined || !Number.isInteger(n)) {
        errors.add(name, `must be a whole number written in decimal digits; got ${quote(raw)}`);
      } else if (field.oneOf && !field.oneOf.includes(n)) {
        errors.add(name, `must be one of ${field.oneOf.join(', ')}; got ${got}`);
      } else if (field.min !== undefined && n < field.min) {
        errors.add(name, `must be ${field.min} or greater; got ${got}`);
      } else if (field.max !== undefined && n > field.max) {
        errors.add(name, `must be ${field.max} or less; got ${got}`);
      } else if (!Number.isSafeInteger(n)) {
        errors.add(
          name,
          `is too ${n > 0 ? 'large' : 'small'}: the ${n > 0 ? 'largest' : 'smallest'} accepted is ${n > 0 ? '' : '-'}${MAX_INTEGER} (2^53 - 1); got ${got}`,
        );
      } else return n;
      return undefined;
    }
    case 'number': {
      const n = toNumber(raw, DECIMAL);
      if (n === undefined || Number.isNaN(n)) {
        errors.add(name, `must be a number such as 12, 12.5 or -0.5; got ${quote(raw)}`);
      } else if (n < field.min || n > field.max) {
        // 1e400 is Infinity: out of range like any other large number.
        errors.add(name, `must be from ${field.min} to ${field.max}${field.unit ? ` ${field.unit}` : ''}; got ${typeof raw === 'string' ? raw.trim() : n}`);
      } else return n;
      return undefined;
    }
    case 'boolean': {
      if (raw === true || raw === 'true') return true;
      if (raw === false || raw === 'false') return false;
      errors.add(name, `must be true or false; got ${quote(raw)}`);
      return undefined;
    }
    case 'choice': {
      if (typeof raw === 'string' && field.values.includes(raw)) return raw;
      errors.add(name, `must be one of ${field.values.join(', ')}; got ${quote(raw)}`);
      return undefined;
    }
    case 'color': {
      if (typeof raw === 'string' && /^#[0-9a-fA-F]{6}$/.test(raw)) return raw.toLowerCase();
      errors.add(name, `must be a colour written #RRGGBB (for example #808080); got ${quote(raw)}`);
      return undefined;
    }
    case 'pages': {
      if (typeof raw === 'number' && field.form === 'single') raw = String(raw);
      if (typeof raw !== 'string') return (errors.add(name, 'must be page syntax text such as 1..3,5'), undefined);
      try {
        checkPageSyntax(raw, field, name);
        return raw;
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const message of err.errors[name] ?? []) errors.add(name, message);
        return undefined;
      }
    }
  }
}

function checkPageSyntax(text: string, field: PagesField, name: string): void {
  if (field.form !== 'groups') {
    parsePageSpec(text, name);
    if (field.form === 'single' && /[,.]/.test(text)) {
      throw ValidationError.field(name, `must be one page number (such as 3 or -1), not a list or range; got ${quote(text)}`);
    }
    return;
  }
  if (text.length > MAX_PAGE_SPEC_LENGTH) {
    throw ValidationError.field(name, `is ${text.length} characters long; the maximum is ${MAX_PAGE_SPEC_LENGTH}`);
  }
  if (text.trim() === '') throw ValidationError.field(name, 'is empty: give groups such as 1..3;4,6;7.. (one output document per group)');
  text.split(';').forEach((group, i) => {
    if (group.trim() === '') {
      throw ValidationError.field(name, `group ${i + 1} is empty; separate non-empty page lists with ';' (for example 1..3;4,6;7..)`);
    }
    parsePageSpec(group, name);
  });
}

function missingMessage(field: Field): Message {
  switch (field.kind) {
    case 'file':
      return field.multiple
        ? 'is required: send at least one PDF as a file part'
        : `is required: send the ${field.accepts === 'pdf' ? 'PDF' : 'image'} as a file part`;
    default: {
      const { emptyFor } = field;
      return emptyFor ? (words) => `is required; ${words.give} it empty for ${emptyFor}` : 'is required';
    }
  }
}

/** An empty value of a field that is not text: what to give instead (a form field is sent, an option given). */
function emptyMessage(field: Field): Message {
  const fallback = describeDefault(field);
  return (words) => {
    const omit = field.required ? '' : `, or leave the ${words.field} out${fallback !== undefined ? ` for the default (${fallback})` : ''}`;
    return `is empty; ${words.give} ${describeRules(field)}${omit}`;
  };
}

function toNumber(raw: RawValue, pattern: RegExp): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && pattern.test(raw.trim())) return Number(raw.trim());
  return undefined;
}

function quote(raw: RawValue): string {
  if (raw instanceof Uint8Array || Array.isArray(raw)) return 'a file';
  const text = String(raw);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/**
 * Validates every field of an action at once, so a caller sees all problems
 * in one answer. Unknown names are errors too: a typo is never ignored.
 */
export function parseFields(fields: FieldMap, raw: RawValues): Record<string, unknown> {
  const errors = new ValidationErrors();
  for (const name of Object.keys(raw)) {
    if (!Object.hasOwn(fields, name) && raw[name] !== undefined) {
      const known = Object.keys(fields).join(', ');
      errors.add(name, `unknown field; this action takes ${known}`);
    }
  }
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value = parseField(name, field, raw[name], errors);
    if (value !== undefined) values[name] = value;
  }
  errors.throwIfAny();
  return values;
}

/** The rules of a field in words: for --help, OpenAPI descriptions and the docs page. */
export function describeRules(field: Field): string {
  switch (field.kind) {
    // What the file is; how an HTTP form sends several is describeFileParts' (the command line takes paths).
    // The image's formats are its help's to say (with what each keeps): said here too, --help said them twice.
    case 'file':
      if (field.multiple) return `one or more ${field.accepts === 'pdf' ? 'PDF' : 'image'} files`;
      return field.accepts === 'pdf' ? 'a PDF file' : 'an image file';
    case 'text': {
      const parts: string[] = [];
      if (field.minLength !== undefined && field.maxLength !== undefined) parts.push(`${field.minLength} to ${field.maxLength} characters`);
      else if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
      if (field.printableAscii) parts.push('printable ASCII (space through tilde)');
      return parts.join(', ');
    }
    case 'integer':
      if (field.oneOf) return `one of ${field.oneOf.join(', ')}`;
      if (field.max !== undefined) return `whole number from ${field.min} to ${field.max}`;
      return `whole number, ${field.min} or greater`;
    case 'number':
      return `number from ${field.min} to ${field.max}${field.unit ? ` ${field.unit}` : ''}`;
    case 'boolean':
      return 'true or false';
    case 'choice':
      return `one of ${field.values.join(', ')}`;
    case 'color':
      return 'colour as #RRGGBB';
    case 'pages':
      return {
        set: 'page selection such as 1..3,5,-1 (order and duplicates ignored); at most 1000 characters',
        ordered: 'ordered page list such as 3,1,2 or 5..1 (a page listed twice appears twice); at most 1000 characters',
        groups: "page lists separated by ';', such as 1..3;4,6;7.. (one output document per group); at most 1000 characters",
        single: 'one page number such as 3 or -1 (negative counts from the end)',
      }[field.form];
  }
}

/** How an HTTP form sends a file field that takes several (`repeat the part, or number them file_1 to file_10`), for the OpenAPI document and the README; undefined for one file. */
export function describeFileParts(name: string, field: FileField): string | undefined {
  return field.multiple ? `repeat the part, or number them ${name}_1 to ${name}_${field.multiple.numberedUpTo}` : undefined;
}

/** The default of a field in words, or undefined when it has none. */
export function describeDefault(field: Field): string | undefined {
  if (field.kind === 'number' && field.defaultHelp) return field.defaultHelp;
  if ('default' in field && field.default !== undefined) return String(field.default);
  if (field.kind === 'pages' && field.form === 'set' && !field.required) return 'every page';
  return undefined;
}
