/**
 * pdfsvc as a library: one function per action, taking the action's fields
 * (files as bytes) and returning the output PDF, or the named parts of a
 * split. Invalid input throws ValidationError (`.errors` maps field → messages;
 * `.code`, from ERROR_CODES, says what was wrong with a refused document).
 *
 *   import { rotatePages } from 'pdfsvc';
 *   const out = await rotatePages({ file: bytes, angle: 90, pages: '1..3' });
 */
import { camelName, type ActionDefinition, type ActionInput, type ActionOutput, type NamedDocument } from './core/action.js';
import { isFieldObject, notFieldObject } from './core/input-shape.js';
import { runAction, type RunOptions } from './core/run.js';
import type { RawValues } from './core/fields.js';
import * as catalog from './actions/index.js';

// biome-ignore lint/suspicious/noExplicitAny: matches a split action whatever its fields.
type Output<A> = A extends ActionDefinition<any, 'documents'> ? NamedDocument[] : Uint8Array;

// biome-ignore lint/suspicious/noExplicitAny: any action whatever its fields (its `check` takes its own fields' values, so a FieldMap constraint refuses it).
function library<A extends ActionDefinition<any, ActionOutput>>(action: A): (input: ActionInput<A>, options?: RunOptions) => Promise<Output<A>> {
  const name = camelName(action.name);
  return async (input, options = {}) => {
    // `rotatePages(bytes)` would otherwise be refused field by field: one "unknown field" per byte.
    if (!isFieldObject(input)) throw notFieldObject(name, Object.keys(action.fields), input);
    const result = await runAction(action, input as unknown as RawValues, options);
    return (result.output === 'document' ? result.bytes : result.documents) as Output<A>;
  };
}

// Library functions: generated from the catalog by `npm run readme`; do not edit by hand.
export const addPassword = library(catalog.addPassword);
export const addRestrictions = library(catalog.addRestrictions);
export const removePassword = library(catalog.removePassword);
export const removeRestrictions = library(catalog.removeRestrictions);
export const removeSignatures = library(catalog.removeSignatures);
export const reorderPages = library(catalog.reorderPages);
export const extractPages = library(catalog.extractPages);
export const rotatePages = library(catalog.rotatePages);
export const reversePages = library(catalog.reversePages);
export const removePages = library(catalog.removePages);
export const mergeDocuments = library(catalog.mergeDocuments);
export const splitBySize = library(catalog.splitBySize);
export const splitByPageCount = library(catalog.splitByPageCount);
export const splitAtPage = library(catalog.splitAtPage);
export const splitByGroups = library(catalog.splitByGroups);
export const addTextWatermark = library(catalog.addTextWatermark);
export const addImageWatermark = library(catalog.addImageWatermark);
// End of library functions.

export { actions, findAction } from './actions/index.js';
export { runAction, validateInput, type ActionResult, type RunOptions } from './core/run.js';
export { ERROR_CODES, PdfsvcError, ValidationError, type ErrorCode } from './core/errors.js';
export type { ActionDefinition, NamedDocument } from './core/action.js';
export type { Warning, WarningHandler } from './core/warnings.js';
