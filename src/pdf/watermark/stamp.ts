/**
 * Putting one Form XObject on many pages. The watermark is drawn once, into
 * a form shared by every page; each page gets only a `cm` that places the
 * form (see geometry.ts) and a `Do`. So the output grows by about one
 * watermark, not one per page.
 *
 * The page's own content is wrapped in `q … Q` (two small streams added to
 * /Contents, the page's streams untouched), so that a graphics state it leaves
 * changed (an unbalanced `cm`, a colour, a clip) cannot reach the watermark,
 * and the watermark's state never reaches the page content. Content whose own
 * `q`/`Q` do not balance gets as many as it takes (see balance.ts).
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFRef, PDFStream } from '../model/primitives.js';
import type { PageEntry } from '../structure/page-tree.js';
import { objectTableOf, readOnly } from '../reader/object-table.js';
import { ContentDepths } from './balance.js';
import { formatMatrix, readerView, sameGeometry, type Matrix, type ReaderView } from './geometry.js';

export type Layer = 'over' | 'under';

const RESOURCES = PDFName.of('Resources');
const CONTENTS = PDFName.of('Contents');
const XOBJECT = PDFName.of('XObject');

export interface StampOptions {
  /** The form to draw. */
  form: PDFRef;
  /** The matrix that maps the form's space into the page's default user space (a function of the view alone: asked once per distinct view); null: leave the page alone. */
  matrixFor(view: ReaderView): Matrix | null;
  layer: Layer;
}

/**
 * Draws `form` on each selected page. `all` is every page of the document:
 * a /Resources dictionary shared with pages that are not selected is copied
 * before it is changed (copy on write); one shared by selected pages only is
 * changed once, in place.
 */
export function stampPages(context: PDFContext, all: PageEntry[], selected: Iterable<number>, options: StampOptions): void {
  // Each page's resources, asked once (a short run does this interpreted: every call per page shows on 2,000 pages).
  const keys = all.map(({ dict }) => resourceKey(dict));
  const users = new Map<unknown, number>();
  for (const key of keys) users.set(key, (users.get(key) ?? 0) + 1);
  const chosen = [...selected];
  const chosenUsers = new Map<unknown, number>();
  for (const i of chosen) chosenUsers.set(keys[i], (chosenUsers.get(keys[i]) ?? 0) + 1);
  // One edited (or copied) resource dictionary per original, with the name the form got in it.
  const edited = new Map<unknown, { value: PDFDict | PDFRef; name: string }>();
  const streams = new Map<string, PDFRef>();
  const streamFor = (text: string): PDFRef => {
    let ref = streams.get(text);
    if (!ref) {
      ref = context.register(context.stream(text));
      streams.set(text, ref);
    }
    return ref;
  };

  const depths = new ContentDepths(chosen.length, objectTableOf(context)?.bytes.byteLength);
  // The two streams around the content of a page that is `saves` and `closes` short of balanced and leaves nothing
  // open, per mark drawn: found without making their text again (most pages of a document need the same).
  const plainWraps = new Map<string, Map<number, [PDFRef, PDFRef]>>();
  // `q` … page … `Q`, with one more `q` for each `Q` the page has too many, and a `Q` for each `q` it leaves open;
  // an array, dictionary, string or inline image the page leaves open is closed first.
  const wrapped = (original: PDFRef[]) => (draw: string) => {
    const { min, end, unclosed } = depths.of(context, original);
    const saves = 1 - min;
    const closes = saves + end;
    const plain = unclosed === '' && saves < 1024 && closes < 1024;
    let known = plain ? plainWraps.get(draw) : undefined;
    let pair = known?.get(saves * 1024 + closes);
    if (!pair) {
      pair = [streamFor('q\n'.repeat(saves)), streamFor(`\n${unclosed}${unclosed ? '\n' : ''}${'Q\n'.repeat(closes)}${draw}`)];
      if (plain) {
        if (!known) plainWraps.set(draw, (known = new Map()));
        known.set(saves * 1024 + closes, pair);
      }
    }
    return original.length === 1 ? [pair[0], original[0], pair[1]] : [pair[0], ...original, pair[1]];
  };
  // The placement depends only on the page's visible box, rotation and unit, which most pages share: worked out (and
  // formatted) once per view, and taken again without working out the view when a page has the one before's.
  const placements = new Map<string, string | null>();
  let before: { page: PDFDict; placed: string | null } | undefined;
  // The mark's drawing for the last placement and form name.
  let drawn = { placed: '', name: '', draw: '' };
  for (const i of chosen) {
    const page = all[i].dict;
    let placed: string | null | undefined;
    if (before && sameGeometry(page, before.page)) placed = before.placed;
    else {
      const view = readerView(page);
      const viewKey = `${view.rotation} ${view.unit} ${view.box.join(' ')}`;
      placed = placements.get(viewKey);
      if (placed === undefined) {
        const matrix = options.matrixFor(view);
        placed = matrix && formatMatrix(matrix);
        placements.set(viewKey, placed);
      }
    }
    before = { page, placed };
    if (placed === null) continue;
    const key = keys[i];
    let target = edited.get(key);
    if (!target) {
      target = withForm(context, page, options.form, users.get(key) !== chosenUsers.get(key));
      edited.set(key, target);
    }
    page.set(RESOURCES, target.value);

    if (drawn.placed !== placed || drawn.name !== target.name) drawn = { placed, name: target.name, draw: `q ${placed} cm /${target.name} Do Q\n` };
    const draw = drawn.draw;
    const contents = readOnly(context, () => {
      const original = contentRefs(context, page, depths);
      return options.layer === 'under' ? [streamFor(draw), ...original] : original.length === 0 ? [streamFor(draw)] : wrapped(original)(draw);
    });
    page.set(CONTENTS, context.obj(contents));
  }
}

/** What identifies a page's resource dictionary: its reference, else the dictionary object itself. */
function resourceKey(page: PDFDict): unknown {
  const value = page.get(RESOURCES);
  return value instanceof PDFRef ? value : (value ?? page);
}

/**
 * The page's resources with the form added under a name not used yet.
 * `copy`: the dictionary is shared with pages that keep it as it is.
 */
function withForm(context: PDFContext, page: PDFDict, form: PDFRef, copy: boolean): { value: PDFDict | PDFRef; name: string } {
  const raw = page.get(RESOURCES);
  const found = raw instanceof PDFRef ? context.lookup(raw) : raw;
  const original = found instanceof PDFDict ? found : context.obj({});
  const resources = copy || !(found instanceof PDFDict) ? shallowCopy(context, original) : original;
  // The /XObject subdictionary may be shared with other resource dictionaries (or be
  // an indirect object); a fresh copy is cheap (it holds references).
  const existing = resources.lookup(XOBJECT);
  const xobjects = existing instanceof PDFDict ? shallowCopy(context, existing) : context.obj({});
  let name = 'PdfsvcWatermark';
  for (let i = 1; xobjects.has(PDFName.of(name)); i++) name = `PdfsvcWatermark${i}`;
  xobjects.set(PDFName.of(name), form);
  resources.set(XOBJECT, xobjects);
  if (resources === original) return { value: raw instanceof PDFRef ? raw : resources, name };
  return { value: raw instanceof PDFRef ? context.register(resources) : resources, name };
}

function shallowCopy(context: PDFContext, dict: PDFDict): PDFDict {
  const copy = context.obj({}) as PDFDict;
  for (const [key, value] of dict.entries()) copy.set(key, value);
  return copy;
}

/** The page's content streams, as references, in order. */
function contentRefs(context: PDFContext, page: PDFDict, depths: ContentDepths): PDFRef[] {
  const value = page.get(CONTENTS);
  // Most pages: one stream, told from its input bytes without parsing it.
  if (value instanceof PDFRef && depths.isStream(context, value)) return [value];
  const resolved = value instanceof PDFRef ? context.lookup(value) : value;
  if (resolved instanceof PDFStream && value instanceof PDFRef) return [value];
  if (resolved instanceof PDFStream) return [context.register(resolved)];
  if (resolved instanceof PDFArray) {
    return resolved.asArray().flatMap((item) => {
      if (item instanceof PDFRef) return depths.isStream(context, item) ? [item] : [];
      return item instanceof PDFStream ? [context.register(item)] : [];
    });
  }
  return [];
}
