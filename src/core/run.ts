/**
 * Running an action: validate the raw values against the declaration, load
 * the transform, run it, name split outputs. The same path serves the
 * library, the CLI and the server's workers.
 */
import { partName, type AnyAction, type NamedDocument } from './action.js';
import { parseFields, type RawValues } from './fields.js';
import { joinPdf, type PdfData } from './pdf-data.js';
import { outsideActions } from './outside.js';

export type ActionResult =
  | { output: 'document'; bytes: Uint8Array }
  | { output: 'documents'; documents: NamedDocument[] };

/** Checks every field and the cross-field rules; throws ValidationError. */
export function validateInput(action: AnyAction, raw: RawValues): Record<string, unknown> {
  const values = parseFields(action.fields, raw);
  action.check?.(values as never);
  return values;
}

/** Runs an action on values that validateInput has already checked. */
export async function runValidated(action: AnyAction, values: Record<string, unknown>): Promise<ActionResult> {
  const result = await runValidatedPieces(action, values);
  return result.output === 'document'
    ? { output: 'document', bytes: joinPdf(result.data) }
    : { output: 'documents', documents: result.documents.map(({ name, data }) => ({ name, bytes: joinPdf(data) })) };
}

/** The same, leaving outputs as the pieces they were written in (the CLI writes them without joining). */
export async function runValidatedPieces(
  action: AnyAction,
  values: Record<string, unknown>,
): Promise<{ output: 'document'; data: PdfData } | { output: 'documents'; documents: Array<{ name: string; data: PdfData }> }> {
  // Loaded outside this action: the module keeps its loading promise, and with it whatever context it was made in.
  const { default: transform } = await outsideActions(() => action.transform());
  const result = await transform(values as never, { action: action.name });
  if (action.output === 'document') return { output: 'document', data: result as PdfData };
  return { output: 'documents', documents: (result as PdfData[]).map((data, i) => ({ name: partName(i), data })) };
}

export async function runAction(action: AnyAction, raw: RawValues): Promise<ActionResult> {
  return runValidated(action, validateInput(action, raw));
}

