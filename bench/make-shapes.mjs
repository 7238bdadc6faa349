// Builds issue 22's benchmark set of document shapes from ../shared/corpus,
// under bench/out/shapes/ (git-ignored; never committed: the corpus stays on
// the machine that runs the bench). Each shape is made once and reused;
// --force remakes them all.
//
//   node bench/make-shapes.mjs            # make the missing ones, print a summary
//   node bench/make-shapes.mjs --force    # remake all
//
// The corpus is small (45 MB, mostly one- and two-page files), so a shape of
// 500 pages repeats files under several names (qpdf shares the objects of a
// file it is given twice under one name; under distinct names each copy is
// a copy) and `qpdf --empty --pages` assembles them.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRealDocument } from './make-real-document.mjs';

export const SHAPES_DIR = fileURLToPath(new URL('./out/shapes/', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const MB = 1e6;

/** Clean corpus rows every tool opens: no encryption, signatures or damage. */
function cleanRows() {
  return readFileSync(join(CORPUS, 'MANIFEST.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter(
      (r) => r.is_pdf && r.qpdf_readable && r.qpdf_check_exit === 0 && r.qpdf_warning_count === 0 && !r.encrypted && !r.signed && !r.damaged && r.pages > 0,
    )
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** Runs qpdf; exit status 3 is "succeeded with warnings". */
function qpdf(args) {
  try {
    return execFileSync('qpdf', args, { encoding: 'utf8', maxBuffer: 256 * MB, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (err.status === 3) return err.stdout;
    throw new Error(`qpdf ${args.slice(0, 3).join(' ')} …: ${String(err.stderr).trim().split('\n')[0]}`);
  }
}

const pageCount = (path) => Number(qpdf(['--show-npages', path]).trim());

/** Concatenates corpus rows (each under its own name, so repeats are copies) into `output`. */
function assemble(rows, output) {
  const links = mkdtempSync(join(tmpdir(), 'pdfsvc-shapes-'));
  try {
    const args = rows.map((row, i) => {
      const link = join(links, `${i + 1}.pdf`);
      symlinkSync(join(CORPUS, row.file), link);
      return link;
    });
    // Written under a temporary name: a run cut short leaves no half shape behind.
    qpdf(['--empty', '--pages', ...args, '--', `${output}.tmp`]);
    renameSync(`${output}.tmp`, output);
  } finally {
    rmSync(links, { recursive: true, force: true });
  }
}

/** Image bytes of a file and its image count, from `pdfimages -list` (width × height × components × bpc is not the stored size; the "size" column is). */
function imageBytes(path) {
  const list = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .slice(2);
  let bytes = 0;
  for (const line of list) {
    const size = /\s(\d+(?:\.\d+)?)([BKM])\s+\S+%?\s*$/.exec(line.trim()) ?? /\s(\d+(?:\.\d+)?)([BKM])\s/.exec(line);
    if (size) bytes += Number(size[1]) * { B: 1, K: 1024, M: 1024 * 1024 }[size[2]];
  }
  return bytes;
}

// ------------------------------------------------------------------ shapes

/**
 * Few large objects: pages that are mostly images (corpus files whose image
 * streams are at least half their bytes, 60 KB a page or more), repeated until
 * about 500 pages and 55 MB. Each step takes the candidate whose bytes per
 * page best fit what is left to reach both, so the mix lands near both.
 */
function makeImages(output) {
  const candidates = cleanRows()
    .filter((r) => r.bytes / r.pages >= 60_000 && !r.has_acroform && !r.has_attachments)
    .filter((r) => imageBytes(join(CORPUS, r.file)) >= 0.5 * r.bytes);
  if (candidates.length === 0) throw new Error('no image-heavy files in the corpus');
  const chosen = [];
  const used = new Map();
  let pages = 0;
  let bytes = 0;
  while (pages < 500) {
    const perPage = Math.max(0, 55 * MB - bytes) / (500 - pages);
    // Best fit first; among equals the least used, so the mix stays varied.
    const pick = [...candidates].sort(
      (a, b) =>
        Math.abs(a.bytes / a.pages - perPage) * (1 + (used.get(a.file) ?? 0) / 20) - Math.abs(b.bytes / b.pages - perPage) * (1 + (used.get(b.file) ?? 0) / 20),
    )[0];
    chosen.push(pick);
    used.set(pick.file, (used.get(pick.file) ?? 0) + 1);
    pages += pick.pages;
    bytes += pick.bytes;
  }
  assemble(chosen, output);
}

/** A long text document: small text-only files (under 5 KB a page, no images) repeated to 2,000+ pages. */
function makeLongText(output) {
  const fill = cleanRows().filter((r) => r.bytes / r.pages < 5_000 && r.pages >= 2 && !r.has_acroform && !r.has_attachments && r.annotation_count === 0);
  const chosen = [];
  let pages = 0;
  for (let i = 0; pages < 2000; i++) {
    const row = fill[i % fill.length];
    chosen.push(row);
    pages += row.pages;
  }
  assemble(chosen, output);
}

/** Fifty distinct real files for merge: the clean ones of two pages or more first, then single pages; each copied under its own name. */
function makeMergeSet(dir) {
  const rows = cleanRows().filter((r) => !r.has_acroform && !r.has_attachments && r.bytes < 3 * MB);
  const chosen = [...rows.filter((r) => r.pages >= 2), ...rows.filter((r) => r.pages === 1)].slice(0, 50);
  rmSync(`${dir}.tmp`, { recursive: true, force: true });
  mkdirSync(`${dir}.tmp`, { recursive: true });
  chosen.forEach((row, i) => copyFileSync(join(CORPUS, row.file), join(`${dir}.tmp`, `${String(i + 1).padStart(2, '0')}.pdf`)));
  rmSync(dir, { recursive: true, force: true });
  renameSync(`${dir}.tmp`, dir);
}

/**
 * An incrementally updated file: `base` (rewritten with a classic
 * cross-reference table) with `updates` updates appended the way an editor
 * saves them: each adds a note annotation and a small drawing to `perUpdate`
 * pages without annotations (new versions of those page objects, a new
 * content stream and annotation object), a new document information
 * dictionary, and a new xref section whose trailer points to the previous one
 * with /Prev.
 */
export function makeIncremental(base, output, { updates = 5, perUpdate = 5 } = {}) {
  const temporary = `${output}.tmp`;
  // Classic xref table first, so each update's table section has the same kind below it.
  qpdf(['--object-streams=disable', base, temporary]);
  const trailer = qpdf(['--show-object=trailer', temporary]).trim();
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)[1];
  const id = /\/ID (\[[^\]]*\])/.exec(trailer)?.[1];
  let size = Number(/\/Size (\d+)/.exec(trailer)[1]);
  const pageRefs = [...qpdf(['--show-pages', temporary]).matchAll(/^page (\d+): (\d+) (\d+) R/gm)].map((m) => ({
    page: Number(m[1]),
    num: Number(m[2]),
    gen: Number(m[3]),
  }));
  let page = 1;
  let tried = 0;
  for (let update = 1; update <= updates; update++) {
    const fileBytes = readFileSync(temporary);
    const tail = fileBytes.subarray(Math.max(0, fileBytes.length - 2048)).toString('latin1');
    const prev = Number([...tail.matchAll(/startxref\s+(\d+)/g)].pop()[1]);
    let offset = fileBytes.length;
    const pieces = [];
    const entries = [];
    const add = (num, gen, body) => {
      const text = `${num} ${gen} obj\n${body}\nendobj\n`;
      entries.push({ num, gen, offset });
      pieces.push(text);
      offset += Buffer.byteLength(text, 'latin1');
    };
    // Pages spread over the document, each without annotations of its own (so /Annots is new).
    let done = 0;
    while (done < perUpdate) {
      if (++tried > 2 * pageRefs.length) throw new Error(`${base}: not enough pages without annotations for ${updates} x ${perUpdate} updated pages`);
      const ref = pageRefs[(page * 37) % pageRefs.length];
      page++;
      const dict = qpdf([`--show-object=${ref.num},${ref.gen}`, temporary]).trim();
      if (!dict.startsWith('<<') || dict.includes('/Annots')) continue;
      const contents = /\/Contents (\d+ \d+ R|\[[^\]]*\])/.exec(dict);
      const drawing = `q 0.8 0.1 0.1 RG 2 w 20 20 120 40 re S Q`;
      const drawingNum = size++;
      add(drawingNum, 0, `<< /Length ${drawing.length} >>\nstream\n${drawing}\nendstream`);
      const noteNum = size++;
      add(
        noteNum,
        0,
        `<< /Type /Annot /Subtype /Text /Rect [20 20 44 44] /Contents (Reviewed in update ${update}) /M (D:2026010${update}120000Z) /T (pdfsvc bench) >>`,
      );
      const oldContents = contents ? (contents[1].startsWith('[') ? contents[1].slice(1, -1).trim() : contents[1]) : '';
      const newDict = dict
        .replace(/\/Contents (\d+ \d+ R|\[[^\]]*\])\s*/, '')
        .replace(/>>$/, ` /Contents [ ${oldContents} ${drawingNum} 0 R ] /Annots [ ${noteNum} 0 R ] >>`);
      add(ref.num, ref.gen, newDict);
      done++;
    }
    const infoNum = size++;
    add(infoNum, 0, `<< /Producer (pdfsvc bench, update ${update}) /ModDate (D:2026010${update}120000Z) >>`);
    // One subsection per object: simple and valid (entries are 20 bytes each).
    const xref = [
      'xref',
      '0 1',
      '0000000000 65535 f ',
      ...entries.sort((a, b) => a.num - b.num).flatMap((e) => [`${e.num} 1`, `${String(e.offset).padStart(10, '0')} ${String(e.gen).padStart(5, '0')} n `]),
    ];
    const trailerText = `trailer\n<< /Size ${size} /Root ${root} /Info ${infoNum} 0 R /Prev ${prev}${id ? ` /ID ${id}` : ''} >>\nstartxref\n${offset}\n%%EOF\n`;
    appendFileSync(temporary, pieces.join('') + xref.join('\n') + '\n' + trailerText, 'latin1');
  }
  renameSync(temporary, output);
}

/** The shapes: name, what it is, and how to make it (`path` is the file, or the folder for merge). */
export const SHAPES = [
  { name: 'small-objects', what: 'many small objects: real-500p.pdf (bench/make-real-document.mjs)', file: 'small-objects.pdf' },
  { name: 'images', what: 'few large objects: pages that are mostly images', file: 'images.pdf' },
  { name: 'object-streams', what: 'small-objects rewritten with qpdf --object-streams=generate (object and xref streams)', file: 'object-streams.pdf' },
  { name: 'long-text', what: 'a long text document: 2,000+ small text pages', file: 'long-text.pdf' },
  { name: 'incremental', what: 'small-objects with 5 appended incremental updates (xref sections chained by /Prev)', file: 'incremental.pdf' },
  { name: 'merge-50', what: '50 real files to merge', dir: 'merge-50' },
  // Start-up is most of the time here: judged on the 10-page rotate against `node -e 0` only.
  { name: 'ten-pages', what: 'a 10-page document: pages 1-10 of long-text (small: start-up dominates)', file: 'ten-pages.pdf', startupOnly: true },
];

function make(shape, path) {
  const base = (name = 'small-objects') => ensureShapes({ names: [name] })[0].path;
  switch (shape.name) {
    case 'small-objects': {
      const real = ensureRealDocument();
      if (!real) throw new Error('no corpus at ../shared/corpus');
      copyFileSync(real, `${path}.tmp`);
      return renameSync(`${path}.tmp`, path);
    }
    case 'images':
      return makeImages(path);
    case 'object-streams':
      qpdf(['--object-streams=generate', base(), `${path}.tmp`]);
      return renameSync(`${path}.tmp`, path);
    case 'long-text':
      return makeLongText(path);
    case 'incremental':
      return makeIncremental(base(), path);
    case 'merge-50':
      return makeMergeSet(path);
    case 'ten-pages':
      qpdf(['--empty', '--pages', base('long-text'), '1-10', '--', `${path}.tmp`]);
      return renameSync(`${path}.tmp`, path);
    default:
      throw new Error(`unknown shape ${shape.name}`);
  }
}

/**
 * Makes the named shapes (all by default) when missing, or all when `force`;
 * returns each with its path, pages and bytes (for merge-50: the folder, its
 * files, their total pages and bytes). Throws without a corpus.
 */
export function ensureShapes({ names, force = false, log = () => {} } = {}) {
  if (!existsSync(join(CORPUS, 'MANIFEST.jsonl'))) throw new Error('the shapes are made from ../shared/corpus, which is not there');
  mkdirSync(SHAPES_DIR, { recursive: true });
  const wanted = SHAPES.filter((s) => !names || names.includes(s.name));
  const made = new Set();
  return wanted.map((shape) => {
    const path = join(SHAPES_DIR, shape.file ?? shape.dir);
    if ((force && !made.has(shape.name)) || !existsSync(path)) {
      if (force && shape.name === 'small-objects') ensureRealDocument({ force: true });
      log(`making ${shape.name} …`);
      make(shape, path);
      made.add(shape.name);
    }
    if (shape.dir) {
      const files = readdirSync(path)
        .filter((f) => f.endsWith('.pdf'))
        .sort()
        .map((f) => join(path, f));
      return { ...shape, path, files, pages: files.reduce((s, f) => s + pageCount(f), 0), bytes: files.reduce((s, f) => s + statSync(f).size, 0) };
    }
    return { ...shape, path, pages: pageCount(path), bytes: statSync(path).size };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const force = process.argv.includes('--force');
  // --force remakes small-objects first; the others derive from it.
  const shapes = ensureShapes({ force, log: (l) => console.error(l) });
  for (const s of shapes)
    console.log(
      `${s.name.padEnd(15)} ${String(s.pages).padStart(5)} pages ${(s.bytes / 2 ** 20).toFixed(1).padStart(6)} MiB${s.files ? ` in ${s.files.length} files` : ''}  ${s.what}`,
    );
}
