/**
 * pdfsvc as a library: one function per action, taking the action's fields
 * (files as bytes) and returning the output PDF, or the named parts of a
 * split. Invalid input throws ValidationError (`.errors` maps field → messages).
 *
 *   import { rotatePages } from 'pdfsvc';
 *   const out = await rotatePages({ file: bytes, angle: 90, pages: '1..3' });
 */
import type { ActionDefinition, ActionInput, NamedDocument } from './core/action.js';
import { runAction } from './core/run.js';
import { runWithWarnings, type WarningHandler } from './core/warnings.js';
import type { RawValues } from './core/fields.js';
import * as catalog from './actions/index.js';

// biome-ignore lint/suspicious/noExplicitAny: matches a split action whatever its fields.
type Output<A> = A extends ActionDefinition<any, 'documents'> ? NamedDocument[] : Uint8Array;

export interface RunOptions {
  /**
   * Receives warnings about damage the input was read through (a rebuilt
   * cross-reference table, a repaired page tree). The output is still made;
   * nothing is printed unless this says so.
   */
  onWarning?: WarningHandler;
}

// biome-ignore lint/suspicious/noExplicitAny: any action, whatever its fields and output.
function library<A extends ActionDefinition<any, any>>(action: A): (input: ActionInput<A>, options?: RunOptions) => Promise<Output<A>> {
  return async (input, options = {}) => {
    const result = await runWithWarnings(options.onWarning, () => runAction(action, input as unknown as RawValues));
    return (result.output === 'document' ? result.bytes : result.documents) as Output<A>;
  };
}

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

export { actions, findAction } from './actions/index.js';
export { runAction, validateInput, type ActionResult } from './core/run.js';
export { PdfsvcError, ValidationError } from './core/errors.js';
export type { ActionDefinition, NamedDocument } from './core/action.js';
export type { Warning, WarningHandler } from './core/warnings.js';
