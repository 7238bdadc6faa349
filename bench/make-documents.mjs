// Builds the benchmark documents into bench/out/ with @cantoo/pdf-lib, or
// reuses them when a previous run left them there (same generator version).
//
//   node bench/make-documents.mjs            # build what is missing
//   node bench/make-documents.mjs --force    # rebuild all three
//
// The documents are meant to look like real ones to a page-level tool: every
// page has its own text content stream (a few KB of BT/Tf/Td/Tj operators), one
// shared font and one shared logo image, its own FlateDecode RGB image of noise
// (sized so the file reaches its target; noise so it does not compress away),
// link annotations (URI and GoTo another page), a sticky note every tenth
// page, a two-level outline, named destinations, page labels, document
// information and a small AcroForm (text field, check box).
import { deflateSync } from 'node:zlib';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PDFDocument, PDFHexString, PDFName, PDFNumber, PDFOperator, PDFString, StandardFonts, rgb } from '@cantoo/pdf-lib';

/** Bump when the documents change shape, so stale copies are rebuilt. */
export const GENERATOR_VERSION = 1;

export const OUT_DIR = fileURLToPath(new URL('./out/', import.meta.url));

/** The three documents. `megabytes` is the target file size (±20 % is fine); null: no target. */
export const DOCUMENTS = [
  { name: 'doc-10p', pages: 10, megabytes: null, imageBytesPerPage: 60_000 },
  { name: 'doc-100p', pages: 100, megabytes: 15 },
  { name: 'doc-500p', pages: 500, megabytes: 60 },
];

const MB = 1024 * 1024;

// ---------------------------------------------------------------- randomness

/** xorshift32: deterministic, so every machine builds the same documents. */
function rng(seed) {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua invoice contract agreement party clause schedule payment delivery warranty ' +
  'liability notice term period shall may must herein thereof pursuant section annex amount total ' +
  'customer supplier service report quarter revenue margin forecast budget review approval signature'
).split(' ');

function sentence(next, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[next() % WORDS.length]);
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return out.join(' ') + '.';
}

/**
 * Raw RGB pixels: a smooth gradient with random low bits, like a noisy photo.
 * Deflate takes off a little, not most of it.
 */
function noiseImage(next, width, height) {
  const pixels = new Uint8Array(width * height * 3);
  const r0 = next() & 0xff,
    g0 = next() & 0xff,
    b0 = next() & 0xff;
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const n = next();
      pixels[i++] = ((r0 + x) & 0xc0) | (n & 0x3f);
      pixels[i++] = ((g0 + y) & 0xc0) | ((n >>> 8) & 0x3f);
      pixels[i++] = ((b0 + x + y) & 0xc0) | ((n >>> 16) & 0x3f);
    }
  }
  return pixels;
}

/** An image XObject stream whose data is already FlateDecode-compressed. */
function imageXObject(doc, width, height, pixels) {
  const data = deflateSync(pixels, { level: 1 });
  const stream = doc.context.stream(data, {
    Type: 'XObject',
    Subtype: 'Image',
    Width: width,
    Height: height,
    ColorSpace: 'DeviceRGB',
    BitsPerComponent: 8,
    Filter: 'FlateDecode',
  });
  return { ref: doc.context.register(stream), bytes: data.length };
}

// ------------------------------------------------------------------ building

/**
 * Builds one document.
 * @param {{name: string, pages: number, megabytes: number|null, imageBytesPerPage?: number}} spec
 * @returns {Promise<Uint8Array>}
 */
export async function buildDocument(spec) {
  const next = rng(spec.pages * 7919 + 17);
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(`pdfsvc benchmark document, ${spec.pages} pages`);
  doc.setAuthor('pdfsvc bench/make-documents.mjs');
  doc.setSubject('Synthetic document for timing page actions');
  doc.setKeywords(['benchmark', 'pdfsvc', `${spec.pages} pages`]);
  doc.setProducer('@cantoo/pdf-lib');
  doc.setCreator('pdfsvc bench');
  doc.setCreationDate(new Date('2024-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2024-01-01T00:00:00Z'));

  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);

  // One logo shared by every page (a single XObject referenced everywhere).
  const logo = imageXObject(doc, 64, 64, noiseImage(next, 64, 64));

  // Image budget per page: whatever the target leaves after text and structure.
  // Text, fonts and annotations take roughly 4 KB a page once compressed.
  const target = spec.megabytes ? spec.megabytes * MB : null;
  let imageBudgetLeft = target ? target - spec.pages * 4_000 - 20_000 : spec.imageBytesPerPage * spec.pages;

  const pages = [];
  for (let p = 0; p < spec.pages; p++) pages.push(doc.addPage([612, 792]));
  const pageRefs = pages.map((page) => page.ref);

  for (let p = 0; p < spec.pages; p++) {
    const page = pages[p];
    const number = p + 1;

    // Per-page image, varied in size around the average that meets the target
    // (deflate at level 1 adds a little to noise: measured, then corrected).
    const average = imageBudgetLeft / (spec.pages - p);
    const wanted = Math.max(3_000, average * (0.6 + (next() % 800) / 1000));
    const width = 200 + (next() % 200);
    const height = Math.max(8, Math.round(wanted / 3 / 0.94 / width));
    const photo = imageXObject(doc, width, height, noiseImage(next, width, height));
    imageBudgetLeft -= photo.bytes;

    // Text: a heading, a unique marker the benchmark checks with pdftotext,
    // and some fifty lines of body text in the shared font.
    // (setFont once per font: drawText with a font option adds a resource name per call.)
    page.setFont(bold);
    page.drawText(`Chapter ${Math.floor(p / 10) + 1}, section ${(p % 10) + 1}`, { x: 56, y: 740, size: 16 });
    page.setFont(font);
    page.drawText(`pdfsvc-bench page ${number} of ${spec.pages}`, { x: 56, y: 722, size: 9, color: rgb(0.4, 0.4, 0.4) });
    let y = 700;
    for (let line = 0; line < 52; line++) {
      page.drawText(sentence(next, 10 + (next() % 5)), { x: 56, y, size: 8.5 });
      y -= 11;
    }
    // The images: the photo in a box at the bottom right, the logo in the corner.
    const photoName = page.node.newXObject('Im', photo.ref);
    const logoName = page.node.newXObject('Logo', logo.ref);
    page.pushOperators(...drawXObject(photoName, 360, 60, 200, Math.min(120, (200 * height) / width)), ...drawXObject(logoName, 540, 740, 24, 24));
    page.drawText(`${number}`, { x: 300, y: 30, size: 9 });

    // Annotations: a web link, a link to another page, sometimes a note.
    const annots = [
      doc.context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [56, 718, 200, 732],
        Border: [0, 0, 0],
        A: { Type: 'Action', S: 'URI', URI: PDFString.of(`https://example.com/doc/page/${number}`) },
      }),
      doc.context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [290, 25, 320, 40],
        Border: [0, 0, 0],
        Dest: [pageRefs[(p + 1) % spec.pages], 'XYZ', 0, 792, 0],
      }),
    ];
    if (number % 10 === 3) {
      annots.push(
        doc.context.obj({
          Type: 'Annot',
          Subtype: 'Text',
          Rect: [20, 700, 40, 720],
          Open: false,
          Name: 'Comment',
          Contents: PDFHexString.fromText(`Reviewer note on page ${number}`),
          T: PDFHexString.fromText('Reviewer'),
        }),
      );
    }
    for (const annot of annots) page.node.addAnnot(doc.context.register(annot));
  }

  addOutlineAndDestinations(doc, pageRefs);
  addPageLabels(doc, spec.pages);

  // A small form on the first page: a text field and a check box.
  const form = doc.getForm();
  const name = form.createTextField('customer.name');
  name.setText('Ada Lovelace');
  name.addToPage(pages[0], { x: 56, y: 100, width: 200, height: 20, font });
  const agree = form.createCheckBox('customer.agrees');
  agree.check();
  agree.addToPage(pages[0], { x: 270, y: 100, width: 14, height: 14 });
  const total = form.createTextField('invoice.total');
  total.setText('1234.56');
  total.addToPage(pages[pages.length - 1], { x: 56, y: 100, width: 120, height: 20, font });

  return doc.save({ useObjectStreams: true });
}

/** `q w 0 0 h x y cm /Name Do Q`: an XObject placed in a box. */
function drawXObject(name, x, y, width, height) {
  return [op('q'), op('cm', width, 0, 0, height, x, y), op('Do', name), op('Q')];
}

function op(name, ...args) {
  return PDFOperator.of(
    name,
    args.map((a) => (typeof a === 'number' ? PDFNumber.of(a) : a)),
  );
}

/** Outline: one entry per ten pages (chapter), each with two sections; Dests name tree for chapters. */
function addOutlineAndDestinations(doc, pageRefs) {
  const { context } = doc;
  const outlineRef = context.nextRef();
  const chapters = [];
  for (let start = 0; start < pageRefs.length; start += 10) chapters.push(start);
  const chapterRefs = chapters.map(() => context.nextRef());
  const names = [];
  chapters.forEach((start, c) => {
    const sections = [start, Math.min(start + 5, pageRefs.length - 1)];
    const sectionRefs = sections.map(() => context.nextRef());
    sections.forEach((pageIndex, s) => {
      context.assign(
        sectionRefs[s],
        context.obj({
          Title: PDFHexString.fromText(`Section ${c + 1}.${s + 1}`),
          Parent: chapterRefs[c],
          ...(s > 0 ? { Prev: sectionRefs[s - 1] } : {}),
          ...(s < sections.length - 1 ? { Next: sectionRefs[s + 1] } : {}),
          Dest: [pageRefs[pageIndex], 'Fit'],
        }),
      );
    });
    const destName = `chapter-${c + 1}`;
    names.push(destName);
    context.assign(
      chapterRefs[c],
      context.obj({
        Title: PDFHexString.fromText(`Chapter ${c + 1}`),
        Parent: outlineRef,
        ...(c > 0 ? { Prev: chapterRefs[c - 1] } : {}),
        ...(c < chapters.length - 1 ? { Next: chapterRefs[c + 1] } : {}),
        First: sectionRefs[0],
        Last: sectionRefs[sectionRefs.length - 1],
        Count: -sectionRefs.length,
        Dest: PDFString.of(destName),
      }),
    );
  });
  context.assign(
    outlineRef,
    context.obj({
      Type: 'Outlines',
      First: chapterRefs[0],
      Last: chapterRefs[chapterRefs.length - 1],
      Count: chapterRefs.length,
    }),
  );
  doc.catalog.set(PDFName.of('Outlines'), outlineRef);
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));

  // Names are sorted in a name tree; chapter-10 sorts before chapter-2.
  const sorted = names.map((n, i) => [n, i]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const pairs = [];
  for (const [n, i] of sorted) pairs.push(PDFString.of(n), context.obj([pageRefs[chapters[i]], 'XYZ', 0, 792, 0]));
  const dests = context.register(context.obj({ Names: pairs }));
  doc.catalog.set(PDFName.of('Names'), context.obj({ Dests: dests }));
}

/** Page labels: i, ii for the first two pages, then 1, 2, … */
function addPageLabels(doc, pageCount) {
  const nums = [0, { S: 'r' }];
  if (pageCount > 2) nums.push(2, { S: 'D' });
  doc.catalog.set(PDFName.of('PageLabels'), doc.context.obj({ Nums: nums }));
}

// ------------------------------------------------------------------- reuse

const MANIFEST = 'documents.json';

/**
 * Returns the documents, building those that are missing or stale.
 * @param {{ names?: string[], force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<Array<{name: string, path: string, pages: number, bytes: number, targetMegabytes: number|null}>>}
 */
export async function ensureDocuments(options = {}) {
  const log = options.log ?? (() => {});
  mkdirSync(OUT_DIR, { recursive: true });
  const manifestPath = OUT_DIR + MANIFEST;
  let manifest = {};
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    manifest = {};
  }

  const result = [];
  for (const spec of DOCUMENTS) {
    if (options.names && !options.names.includes(spec.name)) continue;
    const path = `${OUT_DIR}${spec.name}.pdf`;
    const known = manifest[spec.name];
    const fresh = !options.force && known && known.version === GENERATOR_VERSION && existsSync(path) && statSync(path).size === known.bytes;
    if (!fresh) {
      const started = performance.now();
      const bytes = await buildDocument(spec);
      writeFileSync(path + '.tmp', bytes);
      renameSync(path + '.tmp', path);
      manifest[spec.name] = { version: GENERATOR_VERSION, pages: spec.pages, bytes: bytes.length };
      writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
      log(`built ${spec.name}.pdf: ${spec.pages} pages, ${(bytes.length / MB).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } else {
      log(`reusing ${spec.name}.pdf (${(known.bytes / MB).toFixed(1)} MB)`);
    }
    const bytes = statSync(path).size;
    if (spec.megabytes && Math.abs(bytes / MB - spec.megabytes) > spec.megabytes * 0.2) {
      log(`warning: ${spec.name}.pdf is ${(bytes / MB).toFixed(1)} MB, more than 20 % from its ${spec.megabytes} MB target`);
    }
    result.push({ name: spec.name, path, pages: spec.pages, bytes, targetMegabytes: spec.megabytes });
  }
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const docs = await ensureDocuments({ force: process.argv.includes('--force'), log: (l) => console.log(l) });
  console.log(`${docs.length} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
