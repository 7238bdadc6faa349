/**
 * The shared tables of the five page actions (reorder_pages, extract_pages,
 * rotate_pages, reverse_pages, remove_pages). Each action's own test file
 * (src/actions/<action>/<action>.test.ts) calls every table below with its
 * own cases, so all five are checked for the same properties on the same
 * fixtures, judged the way a user would check their output: with qpdf and
 * poppler, never with pdf-lib (which wrote it).
 *
 * Every output must pass `qpdf --check`. Beyond that, each table states what
 * the reader sees: which page comes where (the `PDFSVC PAGE n` markers and
 * the page sizes of pages-10.pdf), rotation, boxes, outline, page labels,
 * named destinations, links, form fields, attachments and metadata
 * (docs/contract.md, "Inputs and outputs" and "Fields" for page selection).
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyAction } from '../../src/core/action.js';
import { ValidationError } from '../../src/core/errors.js';
import type { RawValues } from '../../src/core/fields.js';
import { runAction } from '../../src/core/run.js';
import { fixture, pageMarkers, pdfinfo, qpdfCheck, tempFile } from './pdf-tools.js';

// ---------------------------------------------------------------------------
// Running actions
// ---------------------------------------------------------------------------

/** Runs an action on a fixture (or given bytes) and returns the output PDF. */
export async function run(action: AnyAction, file: string | Uint8Array, values: RawValues = {}): Promise<Uint8Array> {
  const bytes = typeof file === 'string' ? fixture(file) : file;
  const result = await runAction(action, { file: bytes, ...values });
  expect(result.output).toBe('document');
  if (result.output !== 'document') throw new Error('expected one document');
  return result.bytes;
}

/** Runs an action that must be refused; returns `errors` of the ValidationError. */
async function refusal(action: AnyAction, file: string | Uint8Array, values: RawValues = {}): Promise<Record<string, string[]>> {
  const bytes = typeof file === 'string' ? fixture(file) : file;
  let caught: unknown;
  try {
    await runAction(action, { file: bytes, ...values });
  } catch (err) {
    caught = err;
  }
  if (caught === undefined) throw new Error(`${action.name} produced an output; expected a ValidationError`);
  if (!(caught instanceof ValidationError)) throw caught; // an internal error: show it as it is
  return caught.errors;
}

/** A readable case label: `remove_pages {"pages":"2,4"}`. */
function label(action: AnyAction, values: RawValues): string {
  return `${action.name} ${JSON.stringify(values)}`;
}

// ---------------------------------------------------------------------------
// Independent readers (qpdf, poppler), beyond test/helpers/pdf-tools.ts
// ---------------------------------------------------------------------------

type JsonValue = unknown;
type Objects = Record<string, { value?: JsonValue; stream?: { dict: Record<string, JsonValue>; data?: string } }>;
interface FullJson {
  pages: Array<{ object: string; contents: string[]; label?: Record<string, unknown> }>;
  outlines: Outline[];
  acroform: {
    hasacroform: boolean;
    fields: Array<{ fullname: string; value: unknown; pageposfrom1: number; fieldtype: string; annotation: { object: string; appearancestate: string } }>;
  };
  attachments: Record<string, unknown>;
  qpdf: [Record<string, unknown>, Objects];
}
interface Outline {
  title: string;
  destpageposfrom1: number | null;
  kids: Outline[];
}

/** `qpdf --json=2` with inline stream data; exit 3 (warnings) is tolerated, the check itself is separate. */
export async function qpdfFullJson(bytes: Uint8Array, streamData = false): Promise<FullJson> {
  const args = ['--json=2', ...(streamData ? ['--json-stream-data=inline'] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false, maxBuffer: 512 * 1024 * 1024 });
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(`qpdf --json failed (${result.exitCode}): ${result.stderr}`);
  return JSON.parse(result.stdout) as FullJson;
}

const isRef = (v: unknown): v is string => typeof v === 'string' && /^\d+ \d+ R$/.test(v);

/** Follows an indirect reference in qpdf JSON (a stream gives its dictionary). */
function deref(objects: Objects, value: unknown): unknown {
  if (!isRef(value)) return value;
  const entry = objects[`obj:${value}`];
  return entry?.value ?? entry?.stream?.dict ?? null;
}

function dictOf(objects: Objects, value: unknown): Record<string, unknown> | undefined {
  const v = deref(objects, value);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function arrayOf(objects: Objects, value: unknown): unknown[] {
  const v = deref(objects, value);
  return Array.isArray(v) ? v : [];
}

/** qpdf JSON text strings are `u:text` (or `b:hex`); names are `/Name`. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('b:')) return Buffer.from(value.slice(2), 'hex').toString('latin1');
  if (value.startsWith('/')) return value.slice(1);
  return undefined;
}

/** Named destinations as poppler resolves them: name → 1-based page. */
async function namedDestinations(bytes: Uint8Array): Promise<Record<string, number>> {
  const { stdout } = await execa('pdfinfo', ['-dests', tempFile(bytes)]);
  const dests: Record<string, number> = {};
  for (const m of stdout.matchAll(/^\s*(\d+)\s+\[.*\]\s+"(.*)"\s*$/gm)) dests[m[2]] = Number(m[1]);
  return dests;
}

type Link = { uri: string } | { page: number | null } | { named: string };

/** The link annotations of each page, as { uri } / { page } (1-based, null: not a page of this document) / { named }. */
function pageLinks(json: FullJson): Link[][] {
  const objects = json.qpdf[1];
  const positions = new Map(json.pages.map((p, i) => [p.object, i + 1]));
  const destination = (dest: unknown): Link => {
    const value = deref(objects, dest);
    if (Array.isArray(value)) return { page: isRef(value[0]) ? (positions.get(value[0]) ?? null) : null };
    const dict = dictOf(objects, value);
    if (dict && '/D' in dict) return destination(dict['/D']);
    return { named: text(value) ?? String(value) };
  };
  return json.pages.map((page) => {
    const dict = dictOf(objects, page.object) ?? {};
    const links: Link[] = [];
    for (const item of arrayOf(objects, dict['/Annots'])) {
      const annot = dictOf(objects, item);
      if (!annot || annot['/Subtype'] !== '/Link') continue;
      const action = dictOf(objects, annot['/A']);
      if (action?.['/S'] === '/URI') links.push({ uri: text(action['/URI']) ?? '' });
      else if (annot['/Dest'] !== undefined) links.push(destination(annot['/Dest']));
      else if (action?.['/S'] === '/GoTo') links.push(destination(action['/D']));
    }
    return links;
  });
}

/** Every node of the AcroForm field tree by full name (non-terminal fields included). */
export function fieldTreeNames(json: FullJson): string[] {
  const objects = json.qpdf[1];
  const trailer = objects.trailer?.value as Record<string, unknown>;
  const root = dictOf(objects, trailer['/Root']) ?? {};
  const acroForm = dictOf(objects, root['/AcroForm']);
  const names: string[] = [];
  const seen = new Set<unknown>();
  const visit = (ref: unknown, prefix: string) => {
    if (seen.has(ref)) return;
    seen.add(ref);
    const node = dictOf(objects, ref);
    if (!node) return;
    const partial = text(node['/T']);
    const full = partial === undefined ? prefix : prefix ? `${prefix}.${partial}` : partial;
    if (partial !== undefined) names.push(full);
    for (const kid of arrayOf(objects, node['/Kids'])) visit(kid, full);
  };
  for (const field of arrayOf(objects, acroForm?.['/Fields'])) visit(field, '');
  return names.sort();
}

/** `pdfinfo -box`: MediaBox and CropBox of each page. */
async function pageBoxes(bytes: Uint8Array): Promise<Array<{ media: number[]; crop: number[] }>> {
  const count = (await pdfinfo(bytes)).pages.length;
  const { stdout } = await execa('pdfinfo', ['-box', '-f', '1', '-l', String(count), tempFile(bytes)]);
  const boxes: Array<{ media: number[]; crop: number[] }> = [];
  for (const m of stdout.matchAll(/^Page\s+(\d+) (MediaBox|CropBox):\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/gm)) {
    const entry = (boxes[Number(m[1]) - 1] ??= { media: [], crop: [] });
    entry[m[2] === 'MediaBox' ? 'media' : 'crop'] = m.slice(3, 7).map(Number);
  }
  return boxes;
}

/** What poppler complains about while extracting text (e.g. `Bad annotation destination` for a dead link). */
async function popplerWarnings(bytes: Uint8Array): Promise<string> {
  const result = await execa('pdftotext', [tempFile(bytes), '-'], { reject: false });
  expect(result.exitCode).toBe(0);
  return result.stderr;
}

/** Decoded content-stream bytes of each page (concatenated when a page has several streams), as base64. */
export function pageContents(json: FullJson): string[] {
  const objects = json.qpdf[1];
  return json.pages.map((page) =>
    Buffer.concat(page.contents.map((ref) => Buffer.from(objects[`obj:${ref}`]?.stream?.data ?? '', 'base64'))).toString('base64'),
  );
}

/**
 * Decoded bytes of every stream reachable from the trailer, sorted (a
 * multiset to compare). Unreachable objects do not count: the product drops
 * them on purpose, and some fixtures have orphans (form.pdf's first
 * appearance streams).
 */
export function allStreams(json: FullJson): string[] {
  const objects = json.qpdf[1];
  const seen = new Set<string>();
  const stack: unknown[] = [objects.trailer?.value];
  while (stack.length > 0) {
    const value = stack.pop();
    if (isRef(value)) {
      if (seen.has(value)) continue;
      seen.add(value);
      const entry = objects[`obj:${value}`];
      stack.push(entry?.value, entry?.stream?.dict);
    } else if (Array.isArray(value)) stack.push(...value);
    else if (value && typeof value === 'object') stack.push(...Object.values(value));
  }
  return [...seen]
    .flatMap((ref) => {
      const stream = objects[`obj:${ref}`]?.stream;
      return stream ? [stream.data ?? ''] : [];
    })
    .sort();
}

/** qpdf --check must find no errors and no warnings. */
export async function expectCleanCheck(bytes: Uint8Array, what: string): Promise<void> {
  const check = await qpdfCheck(bytes);
  expect(check.exitCode, `${what}: qpdf --check\n${check.output}`).toBe(0);
}

/**
 * A fixture with some page dictionary entries changed by qpdf
 * (`--update-from-json`), for inputs the fixture script does not make.
 */
export async function withPageEntries(name: string, changes: Record<number, Record<string, unknown>>): Promise<Uint8Array> {
  const json = await qpdfFullJson(fixture(name));
  const objects = json.qpdf[1];
  const update: Objects = {};
  for (const [page, entries] of Object.entries(changes)) {
    const key = `obj:${json.pages[Number(page) - 1].object}`;
    update[key] = { value: { ...(objects[key].value as Record<string, unknown>), ...entries } };
  }
  const updateFile = tempFile(new TextEncoder().encode(JSON.stringify({ qpdf: [{ jsonversion: 2 }, update] })), '.json');
  const out = tempFile(new Uint8Array());
  await execa('qpdf', [tempFile(fixture(name)), `--update-from-json=${updateFile}`, out]);
  return readFileSync(out);
}

/** A fixture rewritten by qpdf in QDF mode: every stream has an indirect /Length and content ending in a newline. */
export async function qdfVersion(name: string): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(), '.qdf.pdf');
  await execa('qpdf', ['--qdf', '--object-streams=disable', tempFile(fixture(name)), out]);
  return readFileSync(out);
}

/** 1..n */
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// ---------------------------------------------------------------------------
// 1. Which page comes where (pages-10.pdf: page n is (400+10n) x (600+10n) pt)
// ---------------------------------------------------------------------------

export interface OrderCase {
  values: RawValues;
  /** The output's pages, as 1-based pages of the input. */
  order: number[];
}

export function pageOrderTable(action: AnyAction, cases: OrderCase[]): void {
  describe('page order and page sizes (pages-10.pdf)', async () => {
    const input = fixture('pages-10.pdf');
    const inputContents = pageContents(await qpdfFullJson(input, true));

    it.each(cases.map((c) => [label(action, c.values), c] as const))('%s', async (_, c) => {
      const output = await run(action, input, c.values);
      await expectCleanCheck(output, label(action, c.values));
      expect(await pageMarkers(output)).toEqual(c.order);
      const info = await pdfinfo(output);
      expect(info.pages.map((p) => [p.width, p.height])).toEqual(c.order.map((n) => [400 + 10 * n, 600 + 10 * n]));
      // Each output page draws exactly what its input page drew.
      expect(pageContents(await qpdfFullJson(output, true))).toEqual(c.order.map((n) => inputContents[n - 1]));
      expect(await popplerWarnings(output)).toBe('');
    });
  });
}

// ---------------------------------------------------------------------------
// 2. Rotation (rotated.pdf: 0, 90, 180, 270 on the pages, page 5 inherits 90)
// ---------------------------------------------------------------------------

/** rotated.pdf's page rotations as a reader shows them. */
export const ROTATED = [0, 90, 180, 270, 90];

export function rotationTable(action: AnyAction, cases: Array<OrderCase & { rotation: number[] }>): void {
  describe('rotation (rotated.pdf)', () => {
    it('reads the fixture as described (page 5 inherits /Rotate 90)', async () => {
      expect((await pdfinfo(fixture('rotated.pdf'))).pages.map((p) => p.rotation)).toEqual(ROTATED);
    });

    it.each(cases.map((c) => [label(action, c.values), c] as const))('%s', async (_, c) => {
      const output = await run(action, 'rotated.pdf', c.values);
      await expectCleanCheck(output, label(action, c.values));
      expect(await pageMarkers(output)).toEqual(c.order);
      const info = await pdfinfo(output);
      expect(info.pages.map((p) => p.rotation)).toEqual(c.rotation);
      // Rotation is a display attribute: the page's own size does not change.
      expect(info.pages.map((p) => [p.width, p.height])).toEqual(c.order.map(() => [612, 792]));
    });
  });
}

// ---------------------------------------------------------------------------
// 3. Boxes not at the origin survive (boxes.pdf)
// ---------------------------------------------------------------------------

export function boxesTable(action: AnyAction, cases: OrderCase[]): void {
  describe('page boxes not at the origin (boxes.pdf)', async () => {
    const inputBoxes = await pageBoxes(fixture('boxes.pdf'));

    it('reads the fixture as described', () => {
      expect(inputBoxes).toEqual([
        { media: [100, 200, 712, 992], crop: [100, 200, 712, 992] },
        { media: [0, 0, 612, 792], crop: [50, 60, 562, 732] },
        { media: [-300, -400, 312, 392], crop: [-300, -400, 312, 392] },
      ]);
    });

    it.each(cases.map((c) => [label(action, c.values), c] as const))('%s', async (_, c) => {
      const output = await run(action, 'boxes.pdf', c.values);
      await expectCleanCheck(output, label(action, c.values));
      expect(await pageBoxes(output)).toEqual(c.order.map((n) => inputBoxes[n - 1]));
      // The markers lie inside each page's visible area; pdftotext only finds them there.
      expect(await pageMarkers(output)).toEqual(c.order);
    });
  });
}

// ---------------------------------------------------------------------------
// 4. Document structure: outline, labels, named destinations, links,
//    attachments, metadata (outline.pdf)
// ---------------------------------------------------------------------------

/** outline.pdf's outline, written compactly: [title, page, kids]. */
export type O = [string, number, O[]?];
const toOutline = (items: O[]): Outline[] => items.map(([title, page, kids]) => ({ title, destpageposfrom1: page, kids: toOutline(kids ?? []) }));
/** What qpdf reports, without the keys the comparison does not need. */
const simplify = (items: Outline[]): Outline[] => items.map((o) => ({ title: o.title, destpageposfrom1: o.destpageposfrom1, kids: simplify(o.kids) }));

export interface StructureCase extends OrderCase {
  /**
   * Expected outline. Entries whose page survives point at its (first) new
   * position; an entry whose own page is gone but whose children survive is
   * kept and points where its first surviving child points (the product's
   * documented choice, src/pdf/structure/outline.ts); otherwise it goes.
   */
  outline: O[];
}

export const OUTLINE_INPUT: O[] = [
  [
    'Chapter 1',
    1,
    [
      ['Section 1.1', 2],
      ['Section 1.2', 3],
    ],
  ],
  ['Chapter 2', 4, [['Section 2.1', 5]]],
  ['Appendix', 6],
];
/** Named destinations of outline.pdf: name → page. */
const DESTS_INPUT: Record<string, number> = { chap2: 4, appendix: 6, sec11: 2 };

export function structureTable(action: AnyAction, cases: StructureCase[]): void {
  describe('outline, page labels, named destinations, links, attachments, metadata (outline.pdf)', async () => {
    const input = fixture('outline.pdf');
    const inputJson = await qpdfFullJson(input);
    const inputLabels = inputJson.pages.map((p) => p.label);

    it('reads the fixture as described', async () => {
      expect(simplify(inputJson.outlines)).toEqual(toOutline(OUTLINE_INPUT));
      expect(await namedDestinations(input)).toEqual(DESTS_INPUT);
      expect(inputLabels).toEqual([
        { '/S': '/r', '/St': 1 },
        { '/S': '/r', '/St': 2 },
        { '/S': '/D', '/St': 1 },
        { '/S': '/D', '/St': 2 },
        { '/S': '/D', '/St': 3 },
        { '/S': '/D', '/St': 4 },
      ]);
      expect(pageLinks(inputJson)).toEqual([[{ uri: 'https://example.com/pdfsvc' }, { page: 5 }], [], [{ named: 'appendix' }], [], [], []]);
    });

    it.each(cases.map((c) => [label(action, c.values), c] as const))('%s', async (_, c) => {
      const output = await run(action, input, c.values);
      await expectCleanCheck(output, label(action, c.values));
      const json = await qpdfFullJson(output);
      expect(await pageMarkers(output)).toEqual(c.order);

      // Outline entries of removed pages go; the others point at the right output page.
      expect(simplify(json.outlines)).toEqual(toOutline(c.outline));

      // Every page keeps the label the reader saw on it.
      expect(json.pages.map((p) => p.label)).toEqual(c.order.map((n) => inputLabels[n - 1]));

      // Named destinations of removed pages are gone; the others lead to their page's (first) new position.
      const firstPosition = (n: number) => c.order.indexOf(n) + 1;
      const expectedDests = Object.fromEntries(
        Object.entries(DESTS_INPUT)
          .filter(([, page]) => c.order.includes(page))
          .map(([name, page]) => [name, firstPosition(page)]),
      );
      expect(await namedDestinations(output)).toEqual(expectedDests);

      // Links: page 1 has a URI link and a link to page 5; page 3 a link to the named destination `appendix`.
      // A link to a page that is gone goes; every copy of a page has its own links.
      const expectedLinks = c.order.map((n): Link[] => {
        if (n === 1) return [{ uri: 'https://example.com/pdfsvc' }, ...(c.order.includes(5) ? [{ page: firstPosition(5) }] : [])];
        if (n === 3) return c.order.includes(6) ? [{ named: 'appendix' }] : [];
        return [];
      });
      expect(pageLinks(json)).toEqual(expectedLinks);
      expect(await popplerWarnings(output)).not.toMatch(/Bad annotation destination/);
      expect(await popplerWarnings(output)).toBe('');

      // Attachment, Info and XMP metadata survive.
      expect(Object.keys(json.attachments)).toEqual(['notes.txt']);
      const attachment = await execa('qpdf', ['--show-attachment=notes.txt', tempFile(output)]);
      expect(attachment.stdout).toBe('pdfsvc attachment');
      const info = await pdfinfo(output);
      expect(info.fields.Title).toBe('PDFSVC Outline Fixture');
      expect(info.fields.Author).toBe('pdfsvc fixtures');
      expect(info.fields.Keywords).toBe('pdfsvc fixture outline');
      const xmp = await execa('pdfinfo', ['-meta', tempFile(output)]);
      expect(xmp.stdout).toMatch(/<dc:title>.*PDFSVC Outline Fixture.*<\/dc:title>/s);
    });
  });
}

// ---------------------------------------------------------------------------
// 5. Form fields (form.pdf) and duplicated widgets
// ---------------------------------------------------------------------------

/** form.pdf's terminal fields per page, as qpdf reports them. */
const FIELDS_BY_PAGE: Record<number, Array<{ fullname: string; value: unknown }>> = {
  1: [
    { fullname: 'name', value: 'u:Ada Lovelace' },
    { fullname: 'email', value: 'u:ada@example.com' },
  ],
  2: [{ fullname: 'agree', value: '/Yes' }],
  3: [
    { fullname: 'address.street', value: 'u:1 Main St' },
    { fullname: 'address.city', value: 'u:London' },
  ],
};
const TREE_BY_PAGE: Record<number, string[]> = { 1: ['email', 'name'], 2: ['agree'], 3: ['address', 'address.city', 'address.street'] };

export function formFieldsTable(action: AnyAction, cases: OrderCase[]): void {
  describe('form fields (form.pdf)', () => {
    it.each(cases.map((c) => [label(action, c.values), c] as const))('%s', async (_, c) => {
      const output = await run(action, 'form.pdf', c.values);
      await expectCleanCheck(output, label(action, c.values));
      expect(await pageMarkers(output)).toEqual(c.order);
      const json = await qpdfFullJson(output);
      const objects = json.qpdf[1];

      // The fields of every output page, with their values; those of removed pages are gone.
      const expected = c.order.flatMap((n, i) => FIELDS_BY_PAGE[n].map((f) => ({ ...f, pageposfrom1: i + 1 })));
      const actual = json.acroform.fields.map((f) => ({ fullname: f.fullname, value: f.value, pageposfrom1: f.pageposfrom1 }));
      const byPlace = (a: { fullname: string; pageposfrom1: number }, b: { fullname: string; pageposfrom1: number }) =>
        a.pageposfrom1 - b.pageposfrom1 || a.fullname.localeCompare(b.fullname);
      expect(actual.sort(byPlace)).toEqual(expected.sort(byPlace));

      // Non-terminal fields (address) go when all their kids went.
      expect(fieldTreeNames(json)).toEqual([...new Set(c.order.flatMap((n) => TREE_BY_PAGE[n]))].sort());

      // Each widget is its own annotation, sits on one page, and its /P is that page.
      const widgetPages = new Map<string, number>();
      json.pages.forEach((page, i) => {
        for (const item of arrayOf(objects, (dictOf(objects, page.object) ?? {})['/Annots'])) {
          const annot = dictOf(objects, item);
          if (annot?.['/Subtype'] !== '/Widget') continue;
          expect(widgetPages.has(String(item)), `widget ${String(item)} on two pages`).toBe(false);
          widgetPages.set(String(item), i + 1);
          if (annot['/P'] !== undefined) expect(annot['/P'], `/P of widget ${String(item)}`).toBe(page.object);
        }
      });
      expect(widgetPages.size).toBe(expected.length);
      for (const f of json.acroform.fields) expect(widgetPages.get(f.annotation.object), f.fullname).toBe(f.pageposfrom1);
      // A checked checkbox shows checked on every copy.
      for (const f of json.acroform.fields.filter((f) => f.fullname === 'agree')) expect(f.annotation.appearancestate).toBe('/Yes');

      // The AcroForm keeps its default resources and appearance.
      const trailer = objects.trailer?.value as Record<string, unknown>;
      const acroForm = dictOf(objects, (dictOf(objects, trailer['/Root']) ?? {})['/AcroForm']);
      expect(acroForm?.['/DR']).toBeDefined();
      expect(acroForm?.['/DA']).toBeDefined();
    });
  });
}

// ---------------------------------------------------------------------------
// 6. Validation: page selection and each action's own rules
// ---------------------------------------------------------------------------

export interface RefusalCase {
  file: string;
  values: RawValues;
  /** The one field the refusal names. */
  field: string;
  message: RegExp;
}

export function validationTable(action: AnyAction, cases: RefusalCase[]): void {
  describe('validation', () => {
    it.each(cases.map((c) => [`${label(action, c.values)} on ${c.file} → errors.${c.field}`, c] as const))('%s', async (_, c) => {
      const errors = await refusal(action, c.file, c.values);
      expect(Object.keys(errors)).toEqual([c.field]);
      expect(errors[c.field].join('\n')).toMatch(c.message);
    });
  });
}

// ---------------------------------------------------------------------------
// 7. Loading rules (docs/contract.md, "Inputs and outputs"): unreadable, encrypted and signed input
// ---------------------------------------------------------------------------

const LOADING: Array<{ file: string; message: RegExp }> = [
  { file: 'not-a-pdf.pdf', message: /could not be parsed/ },
  { file: 'empty.pdf', message: /could not be parsed/ },
  { file: 'truncated.pdf', message: /could not be parsed/ },
  { file: 'header-only.pdf', message: /could not be parsed/ },
  { file: 'encrypted-user.pdf', message: /remove_password/ },
  { file: 'restricted.pdf', message: /remove_restrictions/ },
  { file: 'signed.pdf', message: /remove_signatures/ },
];

/**
 * @param values values that make the action do something on a 2-page (or larger) document
 * @param unsignedOrder the output's pages when run with them on signature-field-unsigned.pdf (2 pages)
 */
export function loadingRules(action: AnyAction, values: RawValues, unsignedOrder: number[]): void {
  const name = action.name;
  describe('loading rules', () => {
    it.each(LOADING.map((l) => [`${name} ${l.file}`, l] as const))('%s → errors.file', async (_, l) => {
      const errors = await refusal(action, l.file, values);
      expect(Object.keys(errors)).toEqual(['file']);
      expect(errors.file.join('\n')).toMatch(l.message);
      // The message names the action to call after the fix.
      if (/remove_/.test(l.message.source)) expect(errors.file.join('\n')).toContain(name);
    });

    it(`${name} works on signature-field-unsigned.pdf (an empty signature field is no signature)`, async () => {
      const output = await run(action, 'signature-field-unsigned.pdf', values);
      await expectCleanCheck(output, name);
      expect(await pageMarkers(output)).toEqual(unsignedOrder);
      const json = await qpdfFullJson(output);
      // The signature field lives on page 1 and stays with it; the comment field on page 2 likewise.
      const expected = unsignedOrder.flatMap((n, i) => (n === 1 ? [['Signature1', i + 1]] : [['comment', i + 1]]));
      expect(json.acroform.fields.map((f) => [f.fullname, f.pageposfrom1]).sort()).toEqual(expected.sort());
    });
  });
}
