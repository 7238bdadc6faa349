/**
 * merge_documents through the real action, judged by independent readers
 * (qpdf, poppler) on the output bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { beforeAll, describe, it, expect } from 'vitest';
import { PDFDict, PDFDocument, PDFHexString, PDFName, type PDFRef, PDFString } from '@cantoo/pdf-lib';
import { runAction } from '../../core/run.js';
import { ValidationError } from '../../core/errors.js';
import mergeDocuments from './action.js';
import { fixture, pageTexts, pdfinfo, qpdfCheck, qpdfJson, tempFile, type QpdfJson, type QpdfOutline } from '../../../test/helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../../../test/helpers/raw-pdf.js';
import { pageLabelsOf } from '../../../test/helpers/split-tools.js';
import { renderPage } from '../../../test/helpers/render.js';

async function merge(...files: Uint8Array[]): Promise<Uint8Array> {
  const result = await runAction(mergeDocuments, { file: files });
  if (result.output !== 'document') throw new Error('merge_documents must return one document');
  return result.bytes;
}

async function expectClean(bytes: Uint8Array): Promise<void> {
  const { exitCode, output } = await qpdfCheck(bytes);
  expect(exitCode, output).toBe(0);
}

/** The page markers the fixtures draw (`MERGE A PAGE 1`, `PDFSVC PAGE 3`), in output order. */
async function markers(bytes: Uint8Array): Promise<string[]> {
  const text = (await execa('pdftotext', [tempFile(bytes), '-'])).stdout;
  return [...text.matchAll(/^\f?((?:MERGE [AB]|PDFSVC) PAGE \d+)\b/gm)].map((m) => m[1]);
}

/** Titles and 1-based target pages of an outline, as a nested plain structure. */
function outlineTree(items: QpdfOutline[]): Array<{ title: string; page: number | null; kids: unknown[] }> {
  return items.map((item) => ({ title: item.title, page: item.destpageposfrom1, kids: outlineTree(item.kids) }));
}

type QpdfDict = Record<string, unknown>;

/** A dictionary of the qpdf --json=2 dump, following a reference (`"12 0 R"`). */
function resolve(json: QpdfJson, value: unknown): QpdfDict {
  if (typeof value === 'string' && / R$/.test(value)) {
    const entry = json.qpdf[1][`obj:${value}`];
    return (entry?.value ?? entry?.stream?.dict ?? {}) as QpdfDict;
  }
  return value as QpdfDict;
}

function catalog(json: QpdfJson): QpdfDict {
  return resolve(json, (json.qpdf[1].trailer!.value as QpdfDict)['/Root']);
}

/** Every link annotation with a destination inside the document: [from page, to page], 1-based. */
function internalLinks(json: QpdfJson): Array<[number, number]> {
  const pageObjects = json.pages.map((page) => page.object);
  const links: Array<[number, number]> = [];
  json.pages.forEach((page, i) => {
    const annots = (resolve(json, page.object)['/Annots'] ?? []) as unknown[];
    for (const annot of annots) {
      const dict = resolve(json, annot);
      if (dict['/Subtype'] !== '/Link') continue;
      const action = dict['/A'] ? resolve(json, dict['/A']) : undefined;
      const dest = dict['/Dest'] ?? action?.['/D'];
      if (Array.isArray(dest)) links.push([i + 1, pageObjects.indexOf(dest[0] as string) + 1]);
    }
  });
  return links;
}

/** `pdfinfo -dests`: name → 1-based page. */
async function namedDestinations(bytes: Uint8Array): Promise<Record<string, number>> {
  const { stdout } = await execa('pdfinfo', ['-dests', tempFile(bytes)]);
  const dests: Record<string, number> = {};
  for (const m of stdout.matchAll(/^\s*(\d+)\s+\[.*\]\s+"(.*)"$/gm)) dests[m[2]] = Number(m[1]);
  return dests;
}

async function attachment(bytes: Uint8Array, name: string): Promise<string> {
  return (await execa('qpdf', [`--show-attachment=${name}`, tempFile(bytes)])).stdout;
}

describe('merge_documents', () => {
  it('puts every page of every input in request order, each keeping its size', async () => {
    const bytes = await merge(fixture('merge-a.pdf'), fixture('merge-b.pdf'));
    await expectClean(bytes);
    expect(await markers(bytes)).toEqual(['MERGE A PAGE 1', 'MERGE A PAGE 2', 'MERGE B PAGE 1', 'MERGE B PAGE 2', 'MERGE B PAGE 3']);
    const info = await pdfinfo(bytes);
    expect(Number(info.fields.Pages)).toBe(5);
    expect(info.pages.map((p) => `${p.width}x${p.height}`)).toEqual(['612x792', '612x792', '595.28x841.89', '595.28x841.89', '595.28x841.89']);
    // Info is the first document's.
    expect(info.fields.Title).toBe('PDFSVC Merge A');
  });

  it('follows the request order, not the order of the fixtures', async () => {
    const bytes = await merge(fixture('merge-b.pdf'), fixture('merge-a.pdf'));
    await expectClean(bytes);
    expect(await markers(bytes)).toEqual(['MERGE B PAGE 1', 'MERGE B PAGE 2', 'MERGE B PAGE 3', 'MERGE A PAGE 1', 'MERGE A PAGE 2']);
  });

  it("gives the outline one top-level entry per input, holding that input's own entries", async () => {
    const json = await qpdfJson(await merge(fixture('merge-a.pdf'), fixture('merge-b.pdf')));
    expect(outlineTree(json.outlines)).toEqual([
      { title: 'PDFSVC Merge A', page: 1, kids: [{ title: 'A start', page: 1, kids: [] }] },
      { title: 'PDFSVC Merge B', page: 3, kids: [{ title: 'B start', page: 3, kids: [] }] },
    ]);
  });

  it('names an input without a title "Document N" and gives an input without an outline its entry too', async () => {
    const untitled = await PDFDocument.load(fixture('pages-3.pdf'), { updateMetadata: false });
    const info = untitled.context.lookup(untitled.context.trailerInfo.Info);
    if (info instanceof PDFDict) info.delete(PDFName.of('Title'));
    const bytes = await merge(fixture('merge-a.pdf'), await untitled.save({ useObjectStreams: false }));
    await expectClean(bytes);
    const json = await qpdfJson(bytes);
    expect(outlineTree(json.outlines)).toEqual([
      { title: 'PDFSVC Merge A', page: 1, kids: [{ title: 'A start', page: 1, kids: [] }] },
      { title: 'Document 2', page: 3, kids: [] },
    ]);
  });

  it('renames a colliding top-level field so both values survive', async () => {
    const bytes = await merge(fixture('merge-a.pdf'), fixture('merge-b.pdf'));
    const { acroform } = await qpdfJson(bytes);
    const fields = acroform.fields.map((f) => ({ name: f.fullname, value: f.value, page: f.pageposfrom1 }));
    expect(fields).toEqual([
      { name: 'shared', value: 'u:from A', page: 1 },
      { name: 'shared_2', value: 'u:from B', page: 3 },
    ]);
  });

  it('keeps every field of several forms, with the form of a first input that has none', async () => {
    const bytes = await merge(fixture('pages-3.pdf'), fixture('form.pdf'), fixture('merge-a.pdf'), fixture('merge-b.pdf'), fixture('merge-a.pdf'));
    await expectClean(bytes);
    const { acroform } = await qpdfJson(bytes);
    expect(acroform.hasacroform).toBe(true);
    expect(acroform.fields.map((f) => [f.fullname, f.value, f.pageposfrom1])).toEqual([
      ['name', 'u:Ada Lovelace', 4],
      ['email', 'u:ada@example.com', 4],
      ['agree', '/Yes', 5],
      ['address.street', 'u:1 Main St', 6],
      ['address.city', 'u:London', 6],
      ['shared', 'u:from A', 7],
      ['shared_2', 'u:from B', 9],
      ['shared_3', 'u:from A', 12],
    ]);
  });

  describe('the same document merged with itself (outline.pdf twice)', () => {
    let bytes: Uint8Array;
    let json: QpdfJson;
    beforeAll(async () => {
      bytes = await merge(fixture('outline.pdf'), fixture('outline.pdf'));
      json = await qpdfJson(bytes);
    });

    it('passes qpdf --check and has both copies in order', async () => {
      await expectClean(bytes);
      expect(await markers(bytes)).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6].map((n) => `PDFSVC PAGE ${n}`));
    });

    it('gives each copy its own outline pointing into that copy', () => {
      const chapters = (offset: number) => [
        {
          title: 'Chapter 1',
          page: 1 + offset,
          kids: [
            { title: 'Section 1.1', page: 2 + offset, kids: [] },
            { title: 'Section 1.2', page: 3 + offset, kids: [] },
          ],
        },
        { title: 'Chapter 2', page: 4 + offset, kids: [{ title: 'Section 2.1', page: 5 + offset, kids: [] }] },
        { title: 'Appendix', page: 6 + offset, kids: [] },
      ];
      expect(outlineTree(json.outlines)).toEqual([
        { title: 'PDFSVC Outline Fixture', page: 1, kids: chapters(0) },
        { title: 'PDFSVC Outline Fixture', page: 7, kids: chapters(6) },
      ]);
    });

    it("keeps each copy's page labels", () => {
      expect(pageLabelsOf(json)).toEqual(['i', 'ii', '1', '2', '3', '4', 'i', 'ii', '1', '2', '3', '4']);
    });

    it('keeps links, including a named one, pointing into their own copy', () => {
      // Page 1 links to page 5; page 3 links to the named destination `appendix` (page 6).
      expect(internalLinks(json)).toEqual([
        [1, 5],
        [3, 6],
        [7, 11],
        [9, 12],
      ]);
    });

    it("keeps the named destinations once, the first copy's winning", async () => {
      expect(await namedDestinations(bytes)).toEqual({ sec11: 2, chap2: 4, appendix: 6 });
    });

    it('keeps both attachments, renaming the second', async () => {
      expect(Object.keys(json.attachments).sort()).toEqual(['notes (2).txt', 'notes.txt']);
      expect(await attachment(bytes, 'notes.txt')).toContain('pdfsvc attachment');
      expect(await attachment(bytes, 'notes (2).txt')).toContain('pdfsvc attachment');
    });

    it("keeps the first document's Info and XMP metadata", async () => {
      const info = await pdfinfo(bytes);
      expect(info.fields.Title).toBe('PDFSVC Outline Fixture');
      expect(info.fields.Author).toBe('pdfsvc fixtures');
      const { stdout } = await execa('pdfinfo', ['-meta', tempFile(bytes)]);
      expect(stdout).toContain('<rdf:li xml:lang="x-default">PDFSVC Outline Fixture</rdf:li>');
    });
  });

  it('numbers the pages of inputs without labels from 1 when another input has labels', async () => {
    const bytes = await merge(fixture('pages-3.pdf'), fixture('outline.pdf'), fixture('merge-a.pdf'));
    await expectClean(bytes);
    expect(pageLabelsOf(await qpdfJson(bytes))).toEqual(['1', '2', '3', 'i', 'ii', '1', '2', '3', '4', '1', '2']);
  });

  it('keeps page attributes inherited from the page tree', async () => {
    const bytes = await merge(fixture('pages-3.pdf'), fixture('rotated.pdf'));
    await expectClean(bytes);
    expect((await pdfinfo(bytes)).pages.map((p) => p.rotation)).toEqual([0, 0, 0, 0, 90, 180, 270, 90]);
  });

  it('returns a valid document for a single input', async () => {
    const bytes = await merge(fixture('outline.pdf'));
    await expectClean(bytes);
    expect(await markers(bytes)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `PDFSVC PAGE ${n}`));
    const json = await qpdfJson(bytes);
    expect(json.outlines.map((o) => o.title)).toEqual(['Chapter 1', 'Chapter 2', 'Appendix']);
  });

  it('refuses an unreadable part, saying which document it is', async () => {
    const error = await merge(fixture('merge-a.pdf'), fixture('not-a-pdf.pdf')).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ValidationError);
    const messages = (error as ValidationError).errors.file;
    expect(messages).toHaveLength(1);
    expect(messages![0]).toMatch(/^document 2 could not be parsed/);
  });

  it("copies a later input's untouched objects as their input bytes, each reference renumbered to the object it named", async () => {
    const first = simpleDoc(['first input']);
    const later = simpleDoc(['later input'], { page: () => '/PdfsvcPrivate 20 0 R' });
    later.objects.push({ num: 20, body: '<< /Note  (kept  as  written) /Next 21 0 R /Gone 99 0 R >>' }, { num: 21, body: '<< /Note (the next one) >>' });
    const bytes = await merge(buildPdf([{ objects: first.objects }]).bytes, buildPdf([{ objects: later.objects }]).bytes);
    await expectClean(bytes);
    expect(await pageTexts(bytes)).toEqual([expect.stringContaining('first input'), expect.stringContaining('later input')]);
    // pdf-lib's serializer would have written `<<\n/Note (kept  as  written)` …: these are the input's bytes, renumbered.
    const copied = /<< \/Note {2}\(kept {2}as {2}written\) \/Next (\d+ 0 R) \/Gone null >>/.exec(Buffer.from(bytes).toString('latin1'));
    expect(copied).not.toBeNull();
    const json = await qpdfJson(bytes);
    const note = resolve(json, resolve(json, json.pages[1].object)['/PdfsvcPrivate']);
    expect(note['/Note']).toBe('u:kept  as  written');
    expect(resolve(json, note['/Next'])).toEqual({ '/Note': 'u:the next one' });
    expect(note['/Next']).toBe(copied![1]);
  });

  it('keeps a later input whose page tree holds its pages as direct dictionaries', async () => {
    const later = simpleDoc(['direct page']);
    const page = later.objects.find((object) => object.num === later.pages[0])!.body as string;
    const direct = later.objects
      .filter((object) => object.num !== later.pages[0])
      .map((object) => (object.num === 2 ? { num: 2, body: `<< /Type /Pages /Kids [${page}] /Count 1 >>` } : object));
    const bytes = await merge(buildPdf([{ objects: simpleDoc(['first input']).objects }]).bytes, buildPdf([{ objects: direct }]).bytes);
    await expectClean(bytes);
    expect(await pageTexts(bytes)).toEqual([expect.stringContaining('first input'), expect.stringContaining('direct page')]);
  });

  it('combines optional content and keeps only the first structure tree', async () => {
    const bytes = await merge(await layeredTagged('one', 'listed-off'), await layeredTagged('two', 'base-off'), await layeredTagged('three', 'on'));
    await expectClean(bytes);
    const json = await qpdfJson(bytes);
    const root = catalog(json);
    const properties = resolve(json, root['/OCProperties']);
    const names = (properties['/OCGs'] as string[]).map((ref) => resolve(json, ref)['/Name']);
    expect(names).toEqual(['u:one', 'u:two', 'u:three']);
    const config = resolve(json, properties['/D']);
    const off = (config['/OFF'] as string[]).map((ref) => resolve(json, ref)['/Name']);
    expect(off.sort()).toEqual(['u:one', 'u:two']);
    expect((config['/Order'] as string[]).map((ref) => resolve(json, ref)['/Name'])).toEqual(['u:one', 'u:two', 'u:three']);
    // The first input's structure tree stays; the moved pages no longer claim entries in it.
    const tree = resolve(json, root['/StructTreeRoot']);
    expect(resolve(json, tree['/K'] as string)['/Pg']).toBe(json.pages[0].object);
    expect(json.pages.map((page) => resolve(json, page.object)['/StructParents'])).toEqual([0, undefined, undefined]);
    // So do the later inputs' annotations and form XObjects, which the merge otherwise copies as their input bytes.
    const claims = Object.values(json.qpdf[1])
      .map((entry) => (entry?.value ?? entry?.stream?.dict) as QpdfDict | undefined)
      .filter((dict) => dict && typeof dict === 'object' && ('/StructParent' in dict || '/StructParents' in dict));
    expect(claims.map((dict) => dict!['/Subtype'] ?? dict!['/Type']).sort()).toEqual(['/Form', '/Link', '/Page']);
  });

  it("keeps each input's layers that show on screen but not in print: their groups join the /AS entry for printing", async () => {
    const bytes = await merge(await layeredByUsage('one', ['Print']), await layeredByUsage('two', ['Print', 'View']), await layeredTagged('three', 'on'));
    await expectClean(bytes);
    const json = await qpdfJson(bytes);
    const config = resolve(json, resolve(json, catalog(json)['/OCProperties'])['/D']);
    const entries = (config['/AS'] as unknown[]).map((entry) => resolve(json, entry as string) as QpdfDict);
    const groupsFor = (event: string) =>
      entries.filter((entry) => entry['/Event'] === event).flatMap((entry) => (entry['/OCGs'] as string[]).map((ref) => resolve(json, ref)['/Name']));
    expect(groupsFor('/Print')).toEqual(['u:one', 'u:two']);
    expect(groupsFor('/View')).toEqual(['u:two']);
  });

  it("keeps every input's document JavaScript, renaming a name already taken and a repeated script once, and every input's associated files", async () => {
    const first = await formDocument({ font: 'Helvetica', script: 'first input script' });
    const bytes = await merge(first, await formDocument({ font: 'Courier', script: 'later input script' }), first);
    await expectClean(bytes);
    const { stdout } = await execa('pdfinfo', ['-js', tempFile(bytes)]);
    expect(stdout.match(/first input script/g)).toHaveLength(1);
    expect(stdout.match(/later input script/g)).toHaveLength(1);
    const json = await qpdfJson(bytes);
    const scripts = resolve(json, resolve(json, catalog(json)['/Names'])['/JavaScript'])['/Names'] as string[];
    expect(scripts.filter((_, i) => i % 2 === 0)).toEqual(['u:init', 'u:init (2)']);
    const files = (catalog(json)['/AF'] as string[]).map((ref) => resolve(json, ref)['/F']);
    expect(files).toEqual(['u:Helvetica.txt', 'u:Courier.txt', 'u:Helvetica.txt']);
  });

  it("gives a later input's /DR font a free name when the first input's /DR uses its name, and its fields' /DA follow", async () => {
    const bytes = await merge(await formDocument({ font: 'Helvetica' }), await formDocument({ font: 'Courier' }));
    await expectClean(bytes);
    const json = await qpdfJson(bytes);
    const fonts = resolve(json, resolve(json, resolve(json, catalog(json)['/AcroForm'])['/DR'])['/Font']);
    const fontOf = (field: string) => {
      const entry = json.acroform.fields.find((f) => f.fullname === field)!;
      const name = /^u:\/(\S+) 12 Tf/.exec(resolve(json, entry.object)['/DA'] as string)![1];
      return resolve(json, fonts[`/${name}`])['/BaseFont'];
    };
    expect(fontOf('text')).toBe('/Helvetica');
    expect(fontOf('text_2')).toBe('/Courier');
  });

  it("takes the language every later input states when the first input states none; the first input's /Lang otherwise", async () => {
    const languageOf = async (...languages: Array<string | undefined>) => {
      const merged = await merge(...(await Promise.all(languages.map(languageDocument))));
      return catalog(await qpdfJson(merged))['/Lang'];
    };
    expect(await languageOf(undefined, 'de-DE', 'de-de')).toBe('u:de-DE');
    // Later inputs that disagree, or one that states none: no language is stated for all.
    expect(await languageOf(undefined, 'de-DE', 'fr-FR')).toBeUndefined();
    expect(await languageOf(undefined, 'de-DE', undefined)).toBeUndefined();
    expect(await languageOf(undefined, undefined)).toBeUndefined();
    // The first input's /Lang stays, whatever the others say (qpdf --pages keeps its primary file's).
    expect(await languageOf('en-GB', 'de-DE')).toBe('u:en-GB');
    expect(await languageOf('en-GB', undefined)).toBe('u:en-GB');
  });

  describe("a later input's field with a /DR of its own, its /DA font's name taken by the first input's /DR", () => {
    // poppler (and pdf.js) look for a field's /DA font in the field's /DR first; qpdf --generate-appearances, as the
    // standard says, in the form's /DR only. Each must draw the later input's field as it drew it before the merge.
    const fieldDrawn = async (bytes: Uint8Array, page: number, reader: 'poppler' | 'qpdf') => {
      const drawn = reader === 'poppler' ? bytes : await qpdfGeneratedAppearances(bytes);
      // The page's pixels, by their digest.
      return createHash('sha1')
        .update((await renderPage(drawn, page, 40)).pixels)
        .digest('hex');
    };
    const first = () => fieldDocument({ formFont: 'Helvetica' });

    it('its /DR and the form /DR give the name different fonts: each reader draws the font it drew before', async () => {
      const later = await fieldDocument({ formFont: 'Times-Roman', fieldFont: 'Courier' });
      const merged = await merge(await first(), later);
      await expectClean(merged);
      for (const reader of ['poppler', 'qpdf'] as const) expect(await fieldDrawn(merged, 2, reader), reader).toBe(await fieldDrawn(later, 1, reader));
      // And they differ: Courier in poppler, Times in qpdf's appearance.
      expect(await fieldDrawn(later, 1, 'poppler')).not.toBe(await fieldDrawn(later, 1, 'qpdf'));
    });

    it("only its /DR holds the font: poppler draws it as before, and qpdf now draws it too (not the first input's font)", async () => {
      const later = await fieldDocument({ fieldFont: 'Courier' });
      const merged = await merge(await first(), later);
      await expectClean(merged);
      expect(await fieldDrawn(merged, 2, 'poppler')).toBe(await fieldDrawn(later, 1, 'poppler'));
      // As qpdf draws a field whose form's /DR gives /F0 as Courier.
      expect(await fieldDrawn(merged, 2, 'qpdf')).toBe(await fieldDrawn(await fieldDocument({ formFont: 'Courier' }), 1, 'qpdf'));
    });

    it('the first input is left as it was', async () => {
      const merged = await merge(await fieldDocument({ formFont: 'Times-Roman', fieldFont: 'Courier' }), await first());
      const json = await qpdfJson(merged);
      const field = resolve(json, json.acroform.fields.find((f) => f.fullname === 'text')!.object);
      expect(field['/DA']).toBe('u:/F0 24 Tf 0 g');
      expect(Object.keys(resolve(json, resolve(json, field['/DR'])['/Font']))).toEqual(['/F0']);
    });
  });

  it('gives the check boxes of an input that drew its own appearances a ZapfDingbats /DA when another input makes readers redraw them', async () => {
    const bytes = await merge(await formDocument({ font: 'Helvetica', needAppearances: true }), await formDocument({ font: 'Courier' }));
    await expectClean(bytes);
    const json = await qpdfJson(bytes);
    const form = resolve(json, catalog(json)['/AcroForm']);
    expect(form['/NeedAppearances']).toBe(true);
    const fonts = resolve(json, resolve(json, form['/DR'])['/Font']);
    const box = resolve(json, json.acroform.fields.find((f) => f.fullname === 'box_2')!.object);
    const name = /^u:\/(\S+) 0 Tf/.exec(box['/DA'] as string)?.[1];
    expect(resolve(json, fonts[`/${name}`])['/BaseFont']).toBe('/ZapfDingbats');
    // poppler redraws the fields and finds a font for the later input's check box.
    const { stderr } = await execa('pdftoppm', ['-r', '10', '-png', tempFile(bytes), tempFile(new Uint8Array(), '')]);
    expect(stderr).not.toContain("Missing 'Tf' operator");
  });
});

/**
 * A one-page document with one layer that prints hidden (/Usage /Print
 * /PrintState OFF) and an /AS entry per event in `events` naming it.
 */
async function layeredByUsage(layer: string, events: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([300, 300]);
  const { context } = doc;
  const usage = { Print: { PrintState: 'OFF' }, View: { ViewState: 'ON' } };
  const group: PDFRef = context.register(context.obj({ Type: 'OCG', Name: PDFHexString.fromText(layer), Usage: usage }));
  const auto = events.map((event) => ({ Event: event, Category: [event], OCGs: [group] }));
  doc.catalog.set(PDFName.of('OCProperties'), context.obj({ OCGs: [group], D: { Order: [group], AS: auto } }));
  return doc.save({ useObjectStreams: false });
}

/**
 * A one-page tagged document with one layer. `listed-off`: hidden through
 * the /OFF list; `base-off`: hidden through /BaseState OFF; `on`: visible.
 */
async function layeredTagged(layer: string, state: 'listed-off' | 'base-off' | 'on'): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([300, 300]);
  const { context } = doc;
  const group: PDFRef = context.register(context.obj({ Type: 'OCG', Name: PDFHexString.fromText(layer) }));
  const config = state === 'listed-off' ? { OFF: [group], Order: [group] } : state === 'base-off' ? { BaseState: 'OFF', Order: [group] } : { Order: [group] };
  doc.catalog.set(PDFName.of('OCProperties'), context.obj({ OCGs: [group], D: config }));
  const treeRef = context.nextRef();
  const element = context.register(context.obj({ Type: 'StructElem', S: 'P', P: treeRef, Pg: page.ref, K: 0 }));
  context.assign(treeRef, context.obj({ Type: 'StructTreeRoot', K: element, ParentTree: { Nums: [0, [element]] } }));
  doc.catalog.set(PDFName.of('StructTreeRoot'), treeRef);
  doc.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
  page.node.set(PDFName.of('StructParents'), context.obj(0));
  // An annotation and a form XObject that claim parent-tree entries too (indirect objects the merge does not otherwise parse).
  const link = context.register(context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 10, 10], StructParent: 1 }));
  page.node.set(PDFName.of('Annots'), context.obj([link]));
  const form = context.register(context.stream('0 0 m 1 1 l S', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1], StructParents: 2 }));
  page.node.setXObject(PDFName.of('F1'), form);
  return doc.save({ useObjectStreams: false });
}

/**
 * A one-page form: a text field `text` whose /DA names /F0, the /DR font
 * `font`; a checked check box `box` without a /DA, drawn by its own
 * appearances (with a /DA when `needAppearances`); a document-level script `init`; and one associated file
 * named after the font.
 */
async function formDocument(options: { font: string; needAppearances?: boolean; script?: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([300, 300]);
  const { context } = doc;
  const font = context.register(context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: options.font, Encoding: 'WinAnsiEncoding' }));
  const text = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Tx',
      T: PDFHexString.fromText('text'),
      V: PDFHexString.fromText(options.font),
      DA: PDFString.of('/F0 12 Tf 0 g'),
      Rect: [20, 200, 200, 220],
      P: page.ref,
    }),
  );
  const on = context.register(context.stream('q 0 g BT /ZaDb 10 Tf 2 2 Td (4) Tj ET Q', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 14, 14] }));
  const off = context.register(context.stream('', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 14, 14] }));
  const box = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Btn',
      T: PDFHexString.fromText('box'),
      V: 'Yes',
      AS: 'Yes',
      MK: { CA: PDFString.of('4') },
      AP: { N: { Yes: on, Off: off } },
      Rect: [20, 150, 34, 164],
      P: page.ref,
    }),
  );
  page.node.set(PDFName.of('Annots'), context.obj([text, box]));
  // A form that asks readers to draw its fields gives them all a /DA, as it must.
  if (options.needAppearances) (context.lookup(box) as PDFDict).set(PDFName.of('DA'), PDFString.of('/F0 0 Tf 0 g'));
  const form = context.obj({ Fields: [text, box], DR: { Font: { F0: font } } }) as PDFDict;
  if (options.needAppearances) form.set(PDFName.of('NeedAppearances'), context.obj(true));
  doc.catalog.set(PDFName.of('AcroForm'), context.register(form));
  if (options.script !== undefined) {
    const action = context.register(context.obj({ S: 'JavaScript', JS: PDFString.of(`console.println("${options.script}");`) }));
    doc.catalog.set(PDFName.of('Names'), context.obj({ JavaScript: { Names: [PDFHexString.fromText('init'), action] } }));
  }
  const file = context.register(context.obj({ Type: 'Filespec', F: PDFString.of(`${options.font}.txt`), AFRelationship: 'Data' }));
  doc.catalog.set(PDFName.of('AF'), context.obj([file]));
  return doc.save({ useObjectStreams: false });
}

/** The document with every field's appearance made by qpdf from the field's /DA and the form's /DR (qpdf --generate-appearances). */
async function qpdfGeneratedAppearances(bytes: Uint8Array): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(), '.pdf');
  await execa('qpdf', ['--generate-appearances', tempFile(bytes), out], { reject: false });
  return readFileSync(out);
}

/**
 * A one-page form whose text field `text` (value `iiiiiiii MMMM`, drawn by readers: /NeedAppearances) has the /DA
 * `/F0 24 Tf 0 g`; the form's /DR gives /F0 as `formFont`, the field's own /DR as `fieldFont` (each when given).
 */
async function fieldDocument(options: { formFont?: string; fieldFont?: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([300, 100]);
  const { context } = doc;
  const fonts = (base: string) =>
    context.obj({ Font: { F0: context.register(context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: base, Encoding: 'WinAnsiEncoding' })) } });
  const field = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Tx',
    T: PDFHexString.fromText('text'),
    V: PDFHexString.fromText('iiiiiiii MMMM'),
    DA: PDFString.of('/F0 24 Tf 0 g'),
    Rect: [10, 30, 290, 70],
    P: page.ref,
  }) as PDFDict;
  if (options.fieldFont) field.set(PDFName.of('DR'), fonts(options.fieldFont));
  const ref = context.register(field);
  page.node.set(PDFName.of('Annots'), context.obj([ref]));
  const form = context.obj({ Fields: [ref], NeedAppearances: true }) as PDFDict;
  if (options.formFont) form.set(PDFName.of('DR'), fonts(options.formFont));
  doc.catalog.set(PDFName.of('AcroForm'), context.register(form));
  return doc.save({ useObjectStreams: false });
}

/** A one-page document whose catalog states `language` as its /Lang (none when undefined). */
async function languageDocument(language: string | undefined): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([300, 100]);
  if (language !== undefined) doc.catalog.set(PDFName.of('Lang'), PDFString.of(language));
  return doc.save({ useObjectStreams: false });
}
