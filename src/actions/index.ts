/**
 * The catalog: every action, in the order listings show them. Adding an
 * action means adding its folder and one line here; the CLI, the routes, the
 * OpenAPI document and the library functions follow.
 */
import type { AnyAction } from '../core/action.js';
import addPassword from './add_password/action.js';
import addRestrictions from './add_restrictions/action.js';
import removePassword from './remove_password/action.js';
import removeRestrictions from './remove_restrictions/action.js';
import removeSignatures from './remove_signatures/action.js';
import extractPages from './extract_pages/action.js';
import mergeDocuments from './merge_documents/action.js';
import removePages from './remove_pages/action.js';
import reorderPages from './reorder_pages/action.js';
import reversePages from './reverse_pages/action.js';
import rotatePages from './rotate_pages/action.js';
import splitAtPage from './split_at_page/action.js';
import splitByGroups from './split_by_groups/action.js';
import splitByPageCount from './split_by_page_count/action.js';
import splitBySize from './split_by_size/action.js';
import addTextWatermark from './add_text_watermark/action.js';
import addImageWatermark from './add_image_watermark/action.js';

export const actions = [
  addPassword,
  addRestrictions,
  removePassword,
  removeRestrictions,
  removeSignatures,
  reorderPages,
  extractPages,
  rotatePages,
  reversePages,
  removePages,
  mergeDocuments,
  splitBySize,
  splitByPageCount,
  splitAtPage,
  splitByGroups,
  addTextWatermark,
  addImageWatermark,
] as const satisfies readonly AnyAction[];

const byName = new Map<string, AnyAction>();
for (const action of actions as readonly AnyAction[]) {
  for (const name of [action.name, action.name.replaceAll('_', '-'), ...(action.aliases ?? [])]) byName.set(name, action);
}

/** Finds an action by API name, kebab-case name or alias. */
export function findAction(name: string): AnyAction | undefined {
  return byName.get(name);
}

export { addPassword, addRestrictions, removePassword, removeRestrictions, removeSignatures };
export { extractPages, mergeDocuments, removePages, reorderPages, reversePages, rotatePages };
export { splitAtPage, splitByGroups, splitByPageCount, splitBySize };
export { addTextWatermark, addImageWatermark };
