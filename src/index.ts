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
/** Encrypt a PDF so that it opens only with a password. The action add_password: README, "Actions". */
export const addPassword = library(catalog.addPassword);
/** Restrict what readers may do (print, copy, change …), guarded by an owner password. The action add_restrictions: README, "Actions". */
export const addRestrictions = library(catalog.addRestrictions);
/** Decrypt a password-protected PDF, so that it opens without a password. The action remove_password: README, "Actions". */
export const removePassword = library(catalog.removePassword);
/** Clear the permission restrictions of a PDF that opens without a password. The action remove_restrictions: README, "Actions". */
export const removeRestrictions = library(catalog.removeRestrictions);
/** Remove every digital signature and document time stamp, keeping the content. The action remove_signatures: README, "Actions". */
export const removeSignatures = library(catalog.removeSignatures);
/** Put pages in a new order, repeat or drop them. The action reorder_pages: README, "Actions". */
export const reorderPages = library(catalog.reorderPages);
/** Keep only the selected pages, in document order. The action extract_pages: README, "Actions". */
export const extractPages = library(catalog.extractPages);
/** Rotate pages by a multiple of 90 degrees. The action rotate_pages: README, "Actions". */
export const rotatePages = library(catalog.rotatePages);
/** Reverse the order of the pages. The action reverse_pages: README, "Actions". */
export const reversePages = library(catalog.reversePages);
/** Drop the selected pages. The action remove_pages: README, "Actions". */
export const removePages = library(catalog.removePages);
/** Merge several PDFs into one, in the order given. The action merge_documents: README, "Actions". */
export const mergeDocuments = library(catalog.mergeDocuments);
/** Split into consecutive parts, each as large as possible without passing a size in bytes. The action split_by_size: README, "Actions". */
export const splitBySize = library(catalog.splitBySize);
/** Split into consecutive parts of a fixed number of pages. The action split_by_page_count: README, "Actions". */
export const splitByPageCount = library(catalog.splitByPageCount);
/** Split into two parts, the second starting at the given page. The action split_at_page: README, "Actions". */
export const splitAtPage = library(catalog.splitAtPage);
/** Split into explicit groups of pages, one output PDF per group. The action split_by_groups: README, "Actions". */
export const splitByGroups = library(catalog.splitByGroups);
/** Draw up to five lines of text on pages, upright and placed as the reader sees each page. The action add_text_watermark: README, "Actions". */
export const addTextWatermark = library(catalog.addTextWatermark);
/** Draw a PNG or JPEG image on pages, placed as the reader sees each page. The action add_image_watermark: README, "Actions". */
export const addImageWatermark = library(catalog.addImageWatermark);
// End of library functions.

export { actions, findAction } from './actions/index.js';
export { runAction, validateInput, type ActionResult, type RunOptions } from './core/run.js';
export { ERROR_CODES, PdfsvcError, ValidationError, type ErrorCode } from './core/errors.js';
export type { ActionDefinition, NamedDocument } from './core/action.js';
export type { Warning, WarningHandler } from './core/warnings.js';
