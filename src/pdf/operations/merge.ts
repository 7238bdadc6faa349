/**
 * Merging documents in place: every input after the first moves into the
 * first document's object store, renumbered (model/merged-objects.ts: what
 * the merge does not look at is copied as its input bytes), and the page tree, outline,
 * form, named destinations, attachments, page labels and optional content
 * are combined there. pdf-lib's copyPages is not used: it loses form fields,
 * outlines, page labels and names.
 */
import {
  PDFArray,
  PDFBool,
  PDFContext,
  PDFDict,
  type PDFDocument,
  PDFHeader,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObject,
  PDFRef,
  PDFStream,
  PDFString,
} from '../model/primitives.js';
import { copyObject } from '../model/copy.js';
import { MergedObjects } from '../model/merged-objects.js';
import { NamedDestinations, destinationName, forEachNameTreeEntry } from '../structure/destinations.js';
import { arrayAt, dictAt } from '../model/objects.js';
import { linkOutlineChildren, outlineChildren, outlineItems, recount, relinkOutline } from '../structure/outline.js';
import { readPageLabels, writePageLabels, type PageLabel } from '../structure/page-labels.js';
import { pageEntries, setPages } from '../structure/page-tree.js';
import { objectTableOf } from '../reader/object-table.js';
import { walkFieldTree } from '../structure/trees.js';

const D = PDFName.of('D');
const DA = PDFName.of('DA');
const DEST = PDFName.of('Dest');
const T = PDFName.of('T');

/** One input, as the merge sees it. After moving, its catalog and page refs are in the target's numbering. */
interface Part {
  doc: PDFDocument;
  catalog: PDFDict;
  pages: PDFRef[];
  labels?: PageLabel[];
  title?: string;
}

/**
 * Merges `docs`, in order, into the first of them and returns it. The other
 * documents are consumed: their objects now belong to the first.
 */
export function mergeInto(docs: PDFDocument[]): PDFDocument {
  if (docs.length === 0) throw new Error('mergeInto needs at least one document');
  const target = docs[0];
  if (docs.length === 1) return target;
  const parts = docs.map((doc, i) => preparePart(doc, i === 0));
  const merged = MergedObjects.over(target.context);
  for (const part of parts.slice(1)) movePart(target, merged, part);
  setPages(
    target,
    parts.flatMap((part) => part.pages),
  );
  mergeOutlines(target, parts);
  mergeNamedDestinations(target, parts);
  mergeForms(target, parts);
  mergePageLabels(target, parts);
  mergeAttachments(target, parts);
  mergeDocumentScripts(target, parts);
  mergeAssociatedFiles(target, parts);
  mergeOptionalContent(target, parts);
  mergeLanguage(target, parts);
  raiseVersion(target, docs);
  return target;
}

// ---------------------------------------------------------------------------
// Reading each input before it moves

function preparePart(doc: PDFDocument, isFirst: boolean): Part {
  // Inherited attributes go onto the leaves: the input's page tree nodes are left behind.
  const pages = pageEntries(doc);
  inlineNamedDestinations(
    doc,
    pages.map((page) => page.dict),
  );
  // Only the first document's structure tree is kept (see forgetStructure); not moving the others saves work.
  if (!isFirst) doc.catalog.delete(PDFName.of('StructTreeRoot'));
  return {
    doc,
    catalog: doc.catalog,
    pages: pages.map((page) => page.ref),
    labels: directPrefixes(doc, readPageLabels(doc, pages.length)),
    title: infoTitle(doc),
  };
}

/** The Info /Title, read without pdf-lib's getTitle, which creates an Info dictionary when there is none. */
function infoTitle(doc: PDFDocument): string | undefined {
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  const title = info instanceof PDFDict ? info.lookup(PDFName.of('Title')) : undefined;
  const text = textOf(title)?.trim();
  return text ? text : undefined;
}

/** Label prefixes held by reference would point into the input's numbering once it moves: make them direct. */
function directPrefixes(doc: PDFDocument, labels: PageLabel[] | undefined): PageLabel[] | undefined {
  return labels?.map((label) => (label.prefix instanceof PDFRef ? { ...label, prefix: doc.context.lookup(label.prefix) } : label));
}

/**
 * Replaces every use of a named destination (outline items, annotation
 * /Dest and GoTo actions, the opening action) by the explicit destination it
 * names. After the merge one name tree serves every input and the first
 * input's names win, so a later input's `page.1` or `section.1` (every LaTeX
 * document has them) would otherwise lead into the first input. The first
 * input is done too: its catalog /Dests dictionary, the only place a name
 * object (rather than a string) is looked up, is folded into the name tree.
 */
function inlineNamedDestinations(doc: PDFDocument, pages: PDFDict[]): void {
  const named = new NamedDestinations(doc);
  const inline = (holder: PDFDict) => inlineDestinationOf(doc, holder, named);
  const outlines = dictAt(doc.catalog, 'Outlines');
  if (outlines) for (const item of outlineItems(doc, outlines)) inline(item.dict);
  for (const page of pages) {
    for (const annot of arrayAt(page, 'Annots')?.asArray() ?? []) {
      const dict = doc.context.lookup(annot);
      if (dict instanceof PDFDict) inline(dict);
    }
  }
  inlineOpenAction(doc, named);
}

/** /OpenAction is either a destination or an action dictionary. */
function inlineOpenAction(doc: PDFDocument, named: NamedDestinations): void {
  const open = doc.catalog.get(PDFName.of('OpenAction'));
  if (open === undefined) return;
  if (doc.context.lookup(open) instanceof PDFDict) {
    // Wrapped as an item's /A, so that the action is edited where it is.
    inlineDestinationOf(doc, doc.context.obj({ A: open }) as PDFDict, named);
    return;
  }
  const explicit = explicitDestination(doc, open, named);
  if (explicit) doc.catalog.set(PDFName.of('OpenAction'), explicit);
}

/** Inlines the holder's /Dest, or the /D of its GoTo action. */
function inlineDestinationOf(doc: PDFDocument, holder: PDFDict, named: NamedDestinations): void {
  const dest = holder.get(DEST);
  const explicit = dest !== undefined ? explicitDestination(doc, dest, named) : undefined;
  if (explicit) holder.set(DEST, explicit);
  const action = dictAt(holder, 'A');
  if (!action || action.lookup(PDFName.of('S')) !== PDFName.of('GoTo')) return;
  const target = action.get(D);
  const explicitTarget = target !== undefined ? explicitDestination(doc, target, named) : undefined;
  if (explicitTarget) action.set(D, explicitTarget);
}

/**
 * The explicit destination array a named destination stands for (a copy), or
 * undefined when `dest` is not a name or names nothing in this document.
 */
function explicitDestination(doc: PDFDocument, dest: PDFObject, named: NamedDestinations): PDFArray | undefined {
  const name = destinationName(doc.context.lookup(dest) ?? dest);
  if (name === undefined) return undefined;
  let value = named.get(name);
  for (let depth = 0; value !== undefined && depth < 8; depth++) {
    const resolved = doc.context.lookup(value);
    if (resolved instanceof PDFArray) return copyObject(resolved, doc.context);
    value = resolved instanceof PDFDict ? resolved.get(D) : undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Moving an input's objects into the target

/**
 * Gives the input's objects numbers in the target (merged-objects.ts): the
 * merge keeps working with the part's catalog and page dictionaries, now in
 * the target's numbering; everything else it has is renumbered as it is
 * parsed or written. A reference to an object the input does not have is
 * null by definition, never another object of the target.
 */
function movePart(target: PDFDocument, merged: MergedObjects, part: Part): void {
  const table = objectTableOf(part.doc.context);
  if (!table) throw new Error('a merged document must be opened by the reader');
  const input = merged.addInput(table);
  part.catalog = input.adopt(part.catalog);
  part.pages = part.pages.map((ref) => input.mapRef(ref) as PDFRef);
  forgetStructure(target.context, part.pages);
}

/**
 * Structure trees cannot be combined safely, so only the first input's is
 * kept. The moved pages, annotations and XObjects lose their keys into a
 * parent tree (MergedInput.adopt, and here annotations written directly into
 * /Annots, which are not indirect objects): left alone they would collide
 * with the first input's keys.
 */
function forgetStructure(context: PDFContext, pages: PDFRef[]): void {
  for (const page of pages) {
    const annots = arrayAt(context.lookup(page) as PDFDict, 'Annots');
    for (const annot of annots?.asArray() ?? []) {
      if (annot instanceof PDFDict) {
        annot.delete(PDFName.of('StructParents'));
        annot.delete(PDFName.of('StructParent'));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Outline

/**
 * A new outline: one top-level entry per input (its Info title, else
 * "Document N") pointing at its first page, holding that input's own
 * top-level items with their subtrees.
 */
function mergeOutlines(target: PDFDocument, parts: Part[]): void {
  const { context } = target;
  const root = context.obj({ Type: 'Outlines' }) as PDFDict;
  const rootRef = context.register(root);
  const entries = parts.map((part, i) => {
    const dict = context.obj({ Dest: [part.pages[0], 'Fit'] }) as PDFDict;
    dict.set(PDFName.of('Title'), textString(part.title ?? `Document ${i + 1}`));
    const ref = context.register(dict);
    const outline = dictAt(part.catalog, 'Outlines');
    // The input's items move under this entry, relinked first: a loop in them would stay a loop in the output.
    if (outline) relinkOutline(target, ref, outline);
    linkOutlineChildren(ref, dict, outline ? outlineChildren(target, outline) : []);
    return { ref, dict };
  });
  linkOutlineChildren(rootRef, root, entries);
  recount(target, root, true);
  target.catalog.set(PDFName.of('Outlines'), rootRef);
}

// ---------------------------------------------------------------------------
// Name trees: named destinations and attachments

interface NameEntry {
  name: string;
  key: PDFObject;
  value: PDFObject;
}

/** The entries of the name tree `/Names /<tree>` of an input's catalog. */
function nameTreeEntries(target: PDFDocument, catalog: PDFDict, tree: string): NameEntry[] {
  const names = dictAt(catalog, 'Names');
  const root = names && dictAt(names, tree);
  const entries: NameEntry[] = [];
  if (root) {
    forEachNameTreeEntry(target, root, (name, value, key) => {
      entries.push({ name, key: target.context.lookup(key) ?? key, value });
    });
  }
  return entries;
}

/** Replaces `/Names /<tree>` of the target by one sorted leaf holding `entries`. */
function writeNameTree(target: PDFDocument, tree: string, entries: NameEntry[]): void {
  const { context } = target;
  let names = dictAt(target.catalog, 'Names');
  if (!names) {
    names = context.obj({}) as PDFDict;
    target.catalog.set(PDFName.of('Names'), context.register(names));
  }
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const leaf = context.obj({}) as PDFDict;
  leaf.set(PDFName.of('Names'), context.obj(sorted.flatMap(({ key, value }) => [key, value])));
  names.set(PDFName.of(tree), context.register(leaf));
}

/**
 * Every input's named destinations (name tree and catalog /Dests) in one
 * name tree; the first input to define a name keeps it. Links and outline
 * items no longer depend on names (inlineNamedDestinations), so the names
 * only serve references from outside (`file.pdf#nameddest=…`).
 */
function mergeNamedDestinations(target: PDFDocument, parts: Part[]): void {
  const byName = new Map<string, NameEntry>();
  let found = false;
  for (const part of parts) {
    const old = dictAt(part.catalog, 'Dests');
    const fromDictionary = old ? old.entries().map(([key, value]) => ({ name: key.decodeText(), key: byteString(key.decodeText()), value })) : [];
    // Within one input the name tree wins over /Dests, as NamedDestinations reads them.
    for (const entry of [...nameTreeEntries(target, part.catalog, 'Dests'), ...fromDictionary]) {
      found = true;
      if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
  }
  if (!found) return;
  writeNameTree(target, 'Dests', [...byName.values()]);
  target.catalog.delete(PDFName.of('Dests'));
}

/** Every input's attachments; a name already taken becomes `name (2).ext`, `name (3).ext`, … */
function mergeAttachments(target: PDFDocument, parts: Part[]): void {
  const taken = new Set<string>();
  const entries: NameEntry[] = [];
  for (const part of parts) {
    for (const entry of nameTreeEntries(target, part.catalog, 'EmbeddedFiles')) {
      if (taken.has(entry.name)) entry.name = renameAttachment(target, entry, taken);
      taken.add(entry.name);
      entries.push(entry);
    }
  }
  if (entries.length > 0) writeNameTree(target, 'EmbeddedFiles', entries);
}

/**
 * Every input's document-level JavaScript, which its field and page scripts
 * may call: a name already taken becomes `name (2)` (the names only order
 * the scripts). A script an earlier input has under the same name, word for
 * word, is kept once: a file merged with itself would run its opening script
 * twice. Left as it is when only the first input has any.
 */
function mergeDocumentScripts(target: PDFDocument, parts: Part[]): void {
  const perPart = parts.map((part) => nameTreeEntries(target, part.catalog, 'JavaScript'));
  if (perPart.slice(1).every((entries) => entries.length === 0)) return;
  const taken = new Set<string>();
  const kept = new Set<string>();
  const entries: NameEntry[] = [];
  for (const entry of perPart.flat()) {
    const script = `${entry.name}\n${scriptText(target, entry.value)}`;
    if (kept.has(script)) continue;
    kept.add(script);
    if (taken.has(entry.name)) {
      let n = 2;
      while (taken.has(`${entry.name} (${n})`)) n++;
      entry.name = `${entry.name} (${n})`;
      entry.key = textString(entry.name);
    }
    taken.add(entry.name);
    entries.push(entry);
  }
  writeNameTree(target, 'JavaScript', entries);
}

/** A JavaScript action's script as written (a string, or a stream's filters and bytes), to compare. */
function scriptText(target: PDFDocument, action: PDFObject): string {
  const dict = target.context.lookup(action);
  const js = dict instanceof PDFDict ? dict.lookup(PDFName.of('JS')) : undefined;
  if (js instanceof PDFStream) return `${String(js.dict.lookup(PDFName.of('Filter')))} ${Buffer.from(js.getContents()).toString('latin1')}`;
  return String(js);
}

/**
 * The catalog's associated files (/AF: PDF/A-3's embedded sources and data)
 * of every input, so that none is lost with its input's catalog.
 */
function mergeAssociatedFiles(target: PDFDocument, parts: Part[]): void {
  if (parts.slice(1).every((part) => !arrayAt(part.catalog, 'AF'))) return;
  const files = parts.flatMap((part) => arrayAt(part.catalog, 'AF')?.asArray() ?? []);
  target.catalog.set(PDFName.of('AF'), target.context.obj(files));
}

/**
 * /Lang is the first input's, as qpdf --pages keeps its primary file's. A
 * first input without one says nothing of its pages' language; the output
 * then takes the one every later input states, when they all state the same
 * (language tags compare without case), so a report merged after a cover
 * page without /Lang keeps its language for screen readers and PDF/UA. A
 * later input without one, or two that disagree, leave it unstated: PDF has
 * no language per page, and one input's tag would speak for the others'.
 */
function mergeLanguage(target: PDFDocument, parts: Part[]): void {
  const LANG = PDFName.of('Lang');
  if (target.catalog.has(LANG)) return;
  const later = parts.slice(1).map((part) => part.catalog.lookup(LANG));
  const tags = new Set(later.map((language) => textOf(language)?.toLowerCase()));
  if (tags.size === 1 && !tags.has(undefined) && !tags.has('')) target.catalog.set(LANG, later[0]!);
}

/**
 * A free name for a colliding attachment. Its file specification's /F and
 * /UF follow when they carried the old name, since readers list and save
 * attachments under those.
 */
function renameAttachment(target: PDFDocument, entry: NameEntry, taken: Set<string>): string {
  const oldName = entry.name;
  const dot = entry.name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [entry.name.slice(0, dot), entry.name.slice(dot)] : [entry.name, ''];
  let n = 2;
  while (taken.has(`${stem} (${n})${ext}`)) n++;
  const name = `${stem} (${n})${ext}`;
  entry.key = textString(name);
  const spec = target.context.lookup(entry.value);
  if (spec instanceof PDFDict) {
    for (const key of ['F', 'UF']) {
      if (textOf(spec.lookup(PDFName.of(key))) === oldName) spec.set(PDFName.of(key), textString(name));
    }
  }
  return name;
}

// ---------------------------------------------------------------------------
// Interactive form

/**
 * One AcroForm with every input's fields. A top-level field whose name an
 * earlier input already used is renamed (`shared` → `shared_2`), so both
 * values survive; renaming the top level renames its whole subtree. Each
 * input's default resources join the merged /DR, renamed where a name is
 * taken by another resource, and its fields' /DA strings follow the renames.
 */
function mergeForms(target: PDFDocument, parts: Part[]): void {
  const forms = parts.map((part) => dictAt(part.catalog, 'AcroForm'));
  if (forms.every((form) => form === undefined)) return;
  const form = forms[0] ?? createForm(target);
  const defaults = formDefaults(forms);
  const defaultRenames = new Map<string, string>();
  const taken = new Set<string>();
  const fields: PDFObject[] = [];
  forms.forEach((input, i) => {
    if (!input) return;
    const own = arrayAt(input, 'Fields')?.asArray() ?? [];
    if (i > 0) renameCollidingFields(target, own, taken);
    for (const field of own) {
      const name = fieldName(target, field);
      if (name !== undefined) taken.add(name);
    }
    pushDownDefaults(target, input, own, defaults);
    if (input !== form) {
      const renames = mergeFormResources(target, form, input);
      renameInAppearanceStrings(target, form, input, own, renames);
      if (input.lookup(PDFName.of('DA')) === defaults.DA) for (const [from, to] of renames) defaultRenames.set(from, to);
    }
    fields.push(...own);
  });
  form.set(PDFName.of('Fields'), target.context.obj(fields));
  applyFormFlags(target, form, forms, defaultRenames);
  if (form.lookup(PDFName.of('NeedAppearances')) === PDFBool.True) {
    forms.forEach((input) => {
      if (input && input.lookup(PDFName.of('NeedAppearances')) !== PDFBool.True) giveButtonsAFont(target, form, input);
    });
  }
}

function createForm(target: PDFDocument): PDFDict {
  const form = target.context.obj({}) as PDFDict;
  target.catalog.set(PDFName.of('AcroForm'), target.context.register(form));
  return form;
}

function fieldName(target: PDFDocument, field: PDFObject): string | undefined {
  const dict = target.context.lookup(field);
  return dict instanceof PDFDict ? textOf(dict.lookup(T)) : undefined;
}

/** Renames the top-level fields of one input whose names are `taken`; fields sharing a name stay together. */
function renameCollidingFields(target: PDFDocument, fields: PDFObject[], taken: Set<string>): void {
  const own = new Set(fields.map((field) => fieldName(target, field)));
  const renamed = new Map<string, string>();
  for (const field of fields) {
    const name = fieldName(target, field);
    if (name === undefined || !taken.has(name)) continue;
    let next = renamed.get(name);
    if (next === undefined) {
      let n = 2;
      while (taken.has(`${name}_${n}`) || own.has(`${name}_${n}`) || [...renamed.values()].includes(`${name}_${n}`)) n++;
      next = `${name}_${n}`;
      renamed.set(name, next);
    }
    (target.context.lookup(field) as PDFDict).set(T, textString(next));
  }
}

/** The merged form's /DA and /Q: the first input's that has them. */
function formDefaults(forms: Array<PDFDict | undefined>): { DA?: PDFObject; Q?: PDFObject } {
  const first = (key: string) => forms.map((form) => form?.lookup(PDFName.of(key))).find((value) => value !== undefined);
  return { DA: first('DA'), Q: first('Q') };
}

/**
 * /DA and /Q of an AcroForm are defaults its fields inherit. Where an input's
 * differ from the merged form's, they go onto its top-level fields that do
 * not set their own, so its fields keep their look when a reader redraws them.
 */
function pushDownDefaults(target: PDFDocument, input: PDFDict, fields: PDFObject[], defaults: { DA?: PDFObject; Q?: PDFObject }): void {
  for (const key of ['DA', 'Q'] as const) {
    const own = input.lookup(PDFName.of(key));
    if (own === undefined || String(own) === String(defaults[key])) continue;
    for (const field of fields) {
      const dict = target.context.lookup(field);
      if (dict instanceof PDFDict && !dict.has(PDFName.of(key))) dict.set(PDFName.of(key), own);
    }
  }
}

/**
 * Adds the input's /DR resources (fonts, colour spaces and the rest) to the
 * merged form's. A name the merged /DR already gives another resource (every
 * generator calls its first font /F0 or /Helv) is renamed (`F0` → `F0_2`);
 * the renames, keyed `Font/F0` (category and name), are returned for the
 * input's /DA strings.
 */
function mergeFormResources(target: PDFDocument, form: PDFDict, input: PDFDict): Map<string, string> {
  const renames = new Map<string, string>();
  const from = dictAt(input, 'DR');
  if (!from) return renames;
  const into = dictAt(form, 'DR');
  if (!into) {
    form.set(PDFName.of('DR'), input.get(PDFName.of('DR'))!);
    return renames;
  }
  for (const [category, value] of from.entries()) {
    const theirs = from.lookup(category);
    const ours = into.lookup(category);
    if (ours === undefined) into.set(category, value);
    else if (theirs instanceof PDFDict && ours instanceof PDFDict) {
      for (const [name, resource] of theirs.entries()) {
        const held = ours.get(name);
        if (held === undefined) ours.set(name, resource);
        else if (!sameResource(target, held, resource)) {
          const free = freeResourceName(ours, name.decodeText());
          ours.set(PDFName.of(free), resource);
          renames.set(`${category.decodeText()}/${name.decodeText()}`, free);
        }
      }
    }
  }
  return renames;
}

/** The same object, or two direct ones written alike (a standard font named in place). */
function sameResource(target: PDFDocument, a: PDFObject, b: PDFObject): boolean {
  if (a === b) return true;
  if (a instanceof PDFRef || b instanceof PDFRef) return false;
  return String(target.context.lookup(a)) === String(target.context.lookup(b));
}

function freeResourceName(resources: PDFDict, name: string): string {
  let n = 2;
  while (resources.has(PDFName.of(`${name}_${n}`))) n++;
  return `${name}_${n}`;
}

/**
 * Rewrites the /DA strings of a later input's field tree so that they name,
 * in the merged form, what they named in the input: its renamed /DR
 * resources take their new names. A field with a /DR of its own (qpdf's test
 * files, LibreOffice) is read two ways: poppler and pdf.js look for a name
 * there first, qpdf (--generate-appearances) and the standard in the form's
 * /DR only. Such a field's /DA takes the form's new name and its own /DR
 * holds its resource under that name too; a resource only its own /DR holds,
 * under a name the merged /DR gives another resource (the first input's
 * /F0), joins the merged /DR under a free name. Each kind of reader then
 * finds what it found before the merge.
 */
function renameInAppearanceStrings(target: PDFDocument, form: PDFDict, input: PDFDict, fields: PDFObject[], renames: Map<string, string>): void {
  const inputResources = dictAt(input, 'DR');
  walkFieldTree(target.context, fields, {
    inherit: ['DR'],
    decide: ({ node, inherited }) => {
      const da = textOf(node.lookup(DA));
      if (da === undefined) return 'kids';
      const local = node.lookup(PDFName.of('DR')) ?? inherited.get('DR');
      const renamed = renameInAppearanceString(da, (category, name) => {
        const own = local instanceof PDFDict ? dictAt(local, category) : undefined;
        const resource = own?.get(PDFName.of(name));
        if (!own || resource === undefined) return renames.get(`${category}/${name}`);
        const inForm = inputResources && dictAt(inputResources, category)?.has(PDFName.of(name));
        const formName = inForm ? renames.get(`${category}/${name}`) : joinFieldResource(target, form, category, name, resource, own);
        return formName !== undefined && aliasFieldResource(target, own, formName, resource) ? formName : undefined;
      });
      if (renamed !== undefined) node.set(DA, literalString(renamed));
      return 'kids';
    },
  });
}

/**
 * The name the merged /DR gives `resource`, a field's own /DR entry `name`
 * that its input's form /DR lacks: undefined (the name stays) while the
 * merged /DR gives the name nothing else; else the name of the same resource
 * there, or a name free in both dictionaries it joins under.
 */
function joinFieldResource(target: PDFDocument, form: PDFDict, category: string, name: string, resource: PDFObject, own: PDFDict): string | undefined {
  const resources = dictAt(form, 'DR');
  const merged = resources && dictAt(resources, category);
  const taken = merged?.get(PDFName.of(name));
  if (!merged || taken === undefined || sameResource(target, taken, resource)) return undefined;
  const same = merged.entries().find(([, held]) => sameResource(target, held, resource));
  if (same) return same[0].decodeText();
  let n = 2;
  while (merged.has(PDFName.of(`${name}_${n}`)) || own.has(PDFName.of(`${name}_${n}`))) n++;
  merged.set(PDFName.of(`${name}_${n}`), resource);
  return `${name}_${n}`;
}

/** Gives a field's own /DR (`own`, one category) `resource` under `name` too; false when the name holds another resource there. */
function aliasFieldResource(target: PDFDocument, own: PDFDict, name: string, resource: PDFObject): boolean {
  const held = own.get(PDFName.of(name));
  if (held === undefined) own.set(PDFName.of(name), resource);
  return held === undefined || sameResource(target, held, resource);
}

/**
 * A /DA string with the resources it names (`/F0 12 Tf`, `/CS0 cs`) renamed
 * as `rename` says (undefined: the name stays), or undefined when none is.
 */
function renameInAppearanceString(da: string, rename: (category: 'Font' | 'ColorSpace', name: string) => string | undefined): string | undefined {
  let changed = false;
  const renamed = da.replace(/\/([^\s/()<>[\]{}%]+)(?=(\s+[-+.\d]+)?\s+(Tf|cs|CS)\b)/g, (written, name: string, _size, operator: string) => {
    const decoded = name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    const to = rename(operator === 'Tf' ? 'Font' : 'ColorSpace', decoded);
    if (to === undefined || to === decoded) return written;
    changed = true;
    return PDFName.of(to).toString();
  });
  return changed ? renamed : undefined;
}

/**
 * When the merged form asks readers to redraw every field (/NeedAppearances,
 * from another input), an input that drew its own appearances is redrawn
 * too. Its check boxes and radio buttons without a /DA then have no font to
 * draw their mark with (poppler: "Missing 'Tf' operator in field's DA
 * string"): they get ZapfDingbats, the font Acrobat draws marks with, from
 * the merged /DR.
 */
function giveButtonsAFont(target: PDFDocument, form: PDFDict, input: PDFDict): void {
  const fields = arrayAt(input, 'Fields')?.asArray() ?? [];
  if (input.lookup(DA) !== undefined || fields.length === 0) return;
  let da: PDFString | undefined;
  walkFieldTree(target.context, fields, {
    inherit: ['FT', 'Ff', 'DA'],
    decide: ({ node, inherited }) => {
      if (arrayAt(node, 'Kids')?.size()) return 'kids';
      const type = node.lookup(PDFName.of('FT')) ?? inherited.get('FT');
      const flags = node.lookup(PDFName.of('Ff')) ?? inherited.get('Ff');
      const isPushButton = flags instanceof PDFNumber && (flags.asNumber() & (1 << 16)) !== 0;
      if (type !== PDFName.of('Btn') || isPushButton || node.has(DA) || inherited.has('DA')) return 'keep';
      da ??= literalString(`/${dingbatsFontName(target, form)} 0 Tf 0 g`);
      node.set(DA, da);
      return 'keep';
    },
  });
}

/** The name of a ZapfDingbats font in the merged /DR, added as /ZaDb (or a free name) when there is none. */
function dingbatsFontName(target: PDFDocument, form: PDFDict): string {
  const { context } = target;
  const resources = dictAt(form, 'DR') ?? setDirect(form, 'DR', context.obj({}) as PDFDict);
  const fonts = dictAt(resources, 'Font') ?? setDirect(resources, 'Font', context.obj({}) as PDFDict);
  for (const [name] of fonts.entries()) {
    const font = fonts.lookup(name);
    if (font instanceof PDFDict && font.lookup(PDFName.of('BaseFont')) === PDFName.of('ZapfDingbats')) return name.decodeText();
  }
  const name = fonts.has(PDFName.of('ZaDb')) ? freeResourceName(fonts, 'ZaDb') : 'ZaDb';
  fonts.set(PDFName.of(name), context.register(context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'ZapfDingbats' })));
  return name;
}

/** /DA, /Q, /NeedAppearances, /SigFlags and /CO over all inputs; /XFA no longer describes the form. */
function applyFormFlags(target: PDFDocument, form: PDFDict, forms: Array<PDFDict | undefined>, defaultRenames: Map<string, string>): void {
  const defaults = formDefaults(forms);
  const da = textOf(defaults.DA);
  const renamedDA = da === undefined ? undefined : renameInAppearanceString(da, (category, name) => defaultRenames.get(`${category}/${name}`));
  if (renamedDA !== undefined) form.set(DA, literalString(renamedDA));
  else if (defaults.DA !== undefined) form.set(DA, defaults.DA);
  if (defaults.Q !== undefined) form.set(PDFName.of('Q'), defaults.Q);
  if (forms.some((input) => input?.lookup(PDFName.of('NeedAppearances')) === PDFBool.True)) {
    form.set(PDFName.of('NeedAppearances'), PDFBool.True);
  }
  const sigFlags = forms.reduce((flags, input) => {
    const value = input?.lookup(PDFName.of('SigFlags'));
    return flags | (value instanceof PDFNumber ? value.asNumber() : 0);
  }, 0);
  if (sigFlags !== 0) form.set(PDFName.of('SigFlags'), PDFNumber.of(sigFlags));
  const order = forms.flatMap((input) => (input && arrayAt(input, 'CO')?.asArray()) ?? []);
  if (order.length > 0) form.set(PDFName.of('CO'), target.context.obj(order));
  form.delete(PDFName.of('XFA'));
}

// ---------------------------------------------------------------------------
// Page labels, optional content, version

/** Each input keeps its labels; when any input has labels, those without get 1, 2, 3, … */
function mergePageLabels(target: PDFDocument, parts: Part[]): void {
  if (parts.every((part) => part.labels === undefined)) return;
  const decimal = (count: number): PageLabel[] => Array.from({ length: count }, (_, i) => ({ style: PDFName.of('D'), prefixText: '', value: i + 1 }));
  writePageLabels(
    target,
    parts.flatMap((part) => part.labels ?? decimal(part.pages.length)),
  );
}

/**
 * Every input's optional-content groups (layers) join the target's, and
 * their default visibility, panel order, radio-button groups and locks join
 * the target's default configuration.
 */
function mergeOptionalContent(target: PDFDocument, parts: Part[]): void {
  const inputs = parts.slice(1).flatMap((part) => dictAt(part.catalog, 'OCProperties') ?? []);
  if (inputs.length === 0) return;
  const { context } = target;
  let properties = dictAt(target.catalog, 'OCProperties');
  if (!properties) {
    properties = context.obj({ OCGs: [], D: {} }) as PDFDict;
    target.catalog.set(PDFName.of('OCProperties'), context.register(properties));
  }
  const groups = arrayIn(context, properties, 'OCGs');
  const config = dictAt(properties, 'D') ?? setDirect(properties, 'D', context.obj({}) as PDFDict);
  for (const input of inputs) {
    const theirGroups = arrayAt(input, 'OCGs')?.asArray() ?? [];
    for (const group of theirGroups) if (groups.indexOf(group) === undefined) groups.push(group);
    const theirConfig = dictAt(input, 'D');
    if (!theirConfig) continue;
    for (const key of ['ON', 'OFF', 'Order', 'RBGroups', 'Locked']) {
      for (const item of arrayAt(theirConfig, key)?.asArray() ?? []) arrayIn(context, config, key).push(item);
    }
    keepInitialVisibility(context, config, theirConfig, theirGroups);
    mergeAutoStates(context, config, theirConfig);
  }
}

/**
 * /AS names, per event (View, Print, Export) and its categories, the groups
 * whose /Usage sets their state then: a layer shown on screen but not
 * printed says so there. An input's groups join the target's entry for the
 * same event and categories, or keep an entry of their own; left out, they
 * would print (or export) as they show.
 */
function mergeAutoStates(context: PDFContext, config: PDFDict, theirConfig: PDFDict): void {
  const theirs = arrayAt(theirConfig, 'AS')?.asArray() ?? [];
  if (theirs.length === 0) return;
  const ours = arrayIn(context, config, 'AS');
  for (const item of theirs) {
    const usage = context.lookup(item);
    if (!(usage instanceof PDFDict)) continue;
    const key = usageKey(usage);
    const same = ours.asArray().find((entry) => {
      const dict = context.lookup(entry);
      return dict instanceof PDFDict && usageKey(dict) === key;
    });
    const match = same && (context.lookup(same) as PDFDict);
    if (!match) {
      ours.push(item);
      continue;
    }
    const groups = arrayIn(context, match, 'OCGs');
    for (const group of arrayAt(usage, 'OCGs')?.asArray() ?? []) if (groups.indexOf(group) === undefined) groups.push(group);
  }
}

/** An /AS entry's event and categories, as text to compare. */
function usageKey(usage: PDFDict): string {
  const event = usage.lookup(PDFName.of('Event'));
  const categories = arrayAt(usage, 'Category')?.asArray() ?? [];
  return [String(event), ...categories.map(String).sort()].join(' ');
}

/**
 * ON and OFF lists only name the exceptions to /BaseState. When an input's
 * base state differs from the target's, its groups it did not list must be
 * listed now, or they would change visibility.
 */
function keepInitialVisibility(context: PDFContext, config: PDFDict, theirConfig: PDFDict, groups: PDFObject[]): void {
  const baseState = (dict: PDFDict) => (dict.lookup(PDFName.of('BaseState')) === PDFName.of('OFF') ? 'OFF' : 'ON');
  const theirs = baseState(theirConfig);
  if (theirs === baseState(config)) return;
  const exceptions = arrayAt(theirConfig, theirs === 'OFF' ? 'ON' : 'OFF')?.asArray() ?? [];
  const list = arrayIn(context, config, theirs);
  for (const group of groups) if (!exceptions.includes(group)) list.push(group);
}

/** The array under `key`, created empty when missing. */
function arrayIn(context: PDFContext, holder: PDFDict, key: string): PDFArray {
  return arrayAt(holder, key) ?? setDirect(holder, key, context.obj([]) as PDFArray);
}

function setDirect<T extends PDFObject>(holder: PDFDict, key: string, value: T): T {
  holder.set(PDFName.of(key), value);
  return value;
}

/** The output's version is the highest of the inputs' (header or catalog /Version), so no feature is out of version. */
function raiseVersion(target: PDFDocument, docs: PDFDocument[]): void {
  const highest = Math.max(...docs.map(versionOf));
  if (highest <= versionOf(target)) return;
  const [major, minor] = [Math.floor(highest / 10), highest % 10];
  target.context.header = PDFHeader.forVersion(major, minor);
  target.catalog.delete(PDFName.of('Version'));
}

/** A version as a number: 1.7 → 17. */
function versionOf(doc: PDFDocument): number {
  const parse = (text: string | undefined) => {
    const m = text ? /^(\d)\.(\d)$/.exec(text) : null;
    return m ? Number(m[1]) * 10 + Number(m[2]) : 0;
  };
  const catalogVersion = doc.catalog.lookup(PDFName.of('Version'));
  return Math.max(parse(doc.context.header.getVersionString()), parse(catalogVersion instanceof PDFName ? catalogVersion.decodeText() : undefined));
}

// ---------------------------------------------------------------------------
// Strings

function textOf(value: PDFObject | undefined): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

/** A literal string of ASCII text, its delimiters escaped. */
function literalString(text: string): PDFString {
  return PDFString.of(text.replace(/[\\()]/g, (c) => `\\${c}`));
}

/** A text string: plain bytes when ASCII, else UTF-16 (hex, so no character needs escaping). */
function textString(text: string): PDFHexString {
  return /^[\x20-\x7e]*$/.test(text) ? byteString(text) : PDFHexString.fromText(text);
}

/** A string of the given bytes (characters below 256), e.g. a destination name taken from a name object. */
function byteString(bytes: string): PDFHexString {
  if (/[^\x00-\xff]/.test(bytes)) return PDFHexString.fromText(bytes);
  return PDFHexString.of(Array.from(bytes, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join(''));
}
