/**
 * Running an action, the one way the library, the command line, batch mode
 * and the server's workers all do: validate the raw values against the
 * declaration, load the transform, run it with a context that takes the
 * run's warnings and counts the pages it read, name split outputs.
 */
import { partName, type AnyAction, type KeepPart, type NamedDocument, type TransformContext } from './action.js';
import { parseFields, type RawValues } from './fields.js';
import { describeValue, isFieldObject, notFieldObject } from './input-shape.js';
import { joinPdf, type PdfData } from './pdf-data.js';
import type { WarningHandler } from './warnings.js';

export type ActionResult = { output: 'document'; bytes: Uint8Array } | { output: 'documents'; documents: NamedDocument[] };

/** What an action made, as the pieces it was written in (the CLI writes them without joining). */
export type ActionOutput = { output: 'document'; data: PdfData } | { output: 'documents'; documents: Array<{ name: string; data: PdfData }> };

export interface RunOptions {
  /**
   * Receives warnings about damage the input was read through (a rebuilt
   * cross-reference table, a repaired page tree). The output is still made;
   * nothing is printed unless this says so.
   */
  onWarning?: WarningHandler | undefined;
}

/** What the command line adds: it writes each part of a split to disk as it is made (TransformContext.keepPart). */
interface StagingRunOptions extends RunOptions {
  keepPart?: KeepPart;
}

/** An action's output, and the pages of the input documents it read (the server's pages processed). */
export type Run = ActionOutput & { pages: number };

/** Checks every field and the cross-field rules; throws ValidationError (TypeError for arguments of the wrong shape). */
export function validateInput(action: AnyAction, raw: RawValues): Record<string, unknown> {
  checkArguments('validateInput', action, raw);
  return parsedInput(action, raw);
}

function parsedInput(action: AnyAction, raw: RawValues): Record<string, unknown> {
  const values = parseFields(action.fields, raw);
  action.check?.(values as never);
  return values;
}

/**
 * The exported generic forms' arguments, as a JavaScript caller may get them
 * wrong: a name where the action goes, the bytes where the fields go (which
 * would otherwise be refused one "unknown field" per byte).
 */
function checkArguments(functionName: string, action: unknown, raw: unknown): asserts action is AnyAction {
  if (!isAction(action)) {
    const remedy = typeof action === 'string' ? `: pass findAction(${JSON.stringify(action)})` : '';
    throw new TypeError(`${functionName} takes an action first, from actions or findAction(name); got ${describeValue(action)}${remedy}`);
  }
  if (!isFieldObject(raw)) throw notFieldObject(`${functionName}(${action.name}, fields)`, Object.keys(action.fields), raw);
}

function isAction(value: unknown): value is AnyAction {
  const action = value as Partial<AnyAction> | null;
  return (
    typeof action === 'object' &&
    action !== null &&
    typeof action.name === 'string' &&
    typeof action.fields === 'object' &&
    typeof action.transform === 'function'
  );
}

/**
 * Runs `action` on raw field values: throws ValidationError for invalid
 * input (a document the PDF layer refused included, with its code),
 * PdfsvcError for other failures; anything else is an internal fault.
 */
export async function run(action: AnyAction, raw: RawValues, options: StagingRunOptions = {}): Promise<Run> {
  const values = parsedInput(action, raw);
  const { default: transform } = await action.transform();
  let pages = 0;
  const context: TransformContext = {
    action: action.name,
    warn: options.onWarning ?? (() => {}),
    pagesRead: (count) => {
      pages += count;
    },
    keepPart: options.keepPart,
  };
  const result = await transform(values as never, context);
  if (action.output === 'document') return { output: 'document', data: result as PdfData, pages };
  return { output: 'documents', documents: (result as PdfData[]).map((data, i) => ({ name: partName(i), data })), pages };
}

/** The library's form: outputs joined into one buffer each. */
export async function runAction(action: AnyAction, raw: RawValues, options: RunOptions = {}): Promise<ActionResult> {
  checkArguments('runAction', action, raw);
  // Only the options a library caller has: a keepPart (the command line's) would make parts this cannot join.
  return joined(await run(action, raw, { onWarning: options.onWarning }));
}

/** An output as buffers, for callers that need them in memory (the library, the server's workers). */
export function joined(output: ActionOutput): ActionResult {
  return output.output === 'document'
    ? { output: 'document', bytes: joinPdf(output.data) }
    : { output: 'documents', documents: output.documents.map(({ name, data }) => ({ name, bytes: joinPdf(data) })) };
}
