/**
 * An action is declared once, as data: its name, summary, fields and the
 * transform it runs. The CLI, the HTTP routes, validation and the OpenAPI
 * document are generated from these declarations.
 *
 * The transform lives in its own module and is imported on first use, so that
 * listing actions or printing help never loads the PDF library.
 */
import type { FieldInput, FieldMap, FieldValues } from './fields.js';
import type { PdfData, PdfPieces } from './pdf-data.js';
import type { Warning } from './warnings.js';

/** One output document of a split action. */
export interface NamedDocument {
  name: string;
  bytes: Uint8Array;
}

export type ActionOutput = 'document' | 'documents';

/** What a transform is given beside its values, by the one runner (core/run.ts). */
export interface TransformContext {
  /** The API name of the action being run (for messages such as "call X first"). */
  action: string;
  /** Takes a warning about damage an input was read through: the run's caller decides what becomes of it. */
  warn: (warning: Warning) => void;
  /** Adds the pages of an input document accepted for work to the run's tally. */
  pagesRead: (pages: number) => void;
  /**
   * Takes each part of a split as soon as it is made (index from 0) and returns
   * what stands for it in the result: the command line writes it out at once,
   * so that a split does not hold every part in memory until the last is made.
   */
  keepPart?: KeepPart;
}

export type KeepPart = (part: PdfPieces, index: number) => PdfPieces;

export type Transform<M extends FieldMap, O extends ActionOutput> = (
  values: FieldValues<M>,
  context: TransformContext,
) => Promise<O extends 'document' ? PdfData : PdfData[]>;

export interface ActionDefinition<M extends FieldMap = FieldMap, O extends ActionOutput = ActionOutput, N extends string = string> {
  /** API name, also the route (`POST /v1/<name>`) and a CLI alias (kept as a literal type: the HTTP client's method names come from it). */
  name: N;
  /** Short CLI verbs, where unambiguous (`rotate`). */
  aliases?: readonly string[];
  /** Which group the action belongs to, for listings and the docs page. */
  group: 'security' | 'pages' | 'split' | 'watermark';
  /** One line: what the action does. */
  summary: string;
  /** Optional longer explanation (rules that concern several fields). */
  description?: string;
  fields: M;
  /** Rules that concern several fields together; throws ValidationError. */
  check?: (values: FieldValues<M>) => void;
  /** One PDF, or several named `00001.pdf`, `00002.pdf`, … (split actions). */
  output: O;
  /** Loads the transform module on first use. */
  transform: () => Promise<{ default: Transform<M, O> }>;
}

/** Any declared action, whatever its fields (for registries and edges). */
// biome-ignore lint/suspicious/noExplicitAny: the fields' types differ per action; `unknown` would not accept them.
export type AnyAction = ActionDefinition<any, ActionOutput>;

/** Identity with inference: keeps field literal types for the transform's values. */
export function defineAction<const M extends FieldMap, const O extends ActionOutput, const N extends string>(
  definition: ActionDefinition<M, O, N>,
): ActionDefinition<M, O, N> {
  return definition;
}

export type ActionInput<A> = A extends ActionDefinition<infer M, ActionOutput> ? FieldInput<M> : never;

/** `rotate_pages` → `rotate-pages` (CLI subcommand). */
export function kebabName(name: string): string {
  return name.replaceAll('_', '-');
}

/** `rotate_pages` → `rotatePages` (library function). */
export function camelName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** camelName as a type: `'rotate_pages'` → `'rotatePages'`. */
export type CamelName<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelName<Tail>>}` : S;

/** `00001.pdf`, `00002.pdf`, … (docs/contract.md, "Split outputs"). */
export function partName(index: number): string {
  return `${String(index + 1).padStart(5, '0')}.pdf`;
}
