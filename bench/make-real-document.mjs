// Builds bench/out/real-500p.pdf: about 500 pages and 60 MB made of real
// files from ../shared/corpus (issue 10's benchmark document), by
// concatenating them with `qpdf --empty --pages`. Never committed: it is
// made from the corpus on the machine that runs the bench.
//
//   node bench/make-real-document.mjs          # build it if missing
//   node bench/make-real-document.mjs --force  # rebuild
//
// The corpus has few large files, so the image-heavy ones (60 KB a page and
// more) are used three times each, under three names (qpdf shares the
// objects of a file it is given twice under one name), and text-heavy
// multi-page files fill the page count.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REAL_DOCUMENT = fileURLToPath(new URL('./out/real-500p.pdf', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));

const TARGET_PAGES = 500;
const HEAVY_COPIES = 3;

/** Builds the document when the corpus is there; returns its path, or undefined without a corpus. */
export function ensureRealDocument({ force = false } = {}) {
  if (!force && existsSync(REAL_DOCUMENT)) return REAL_DOCUMENT;
  if (!existsSync(join(CORPUS, 'MANIFEST.jsonl'))) return undefined;
  const rows = readFileSync(join(CORPUS, 'MANIFEST.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    // Clean, readable, openable by every tool: no encryption, signatures or damage.
    .filter((r) => r.is_pdf && r.qpdf_readable && r.qpdf_check_exit === 0 && !r.encrypted && !r.signed && !r.damaged && r.pages > 0)
    .sort((a, b) => b.bytes - a.bytes || a.file.localeCompare(b.file));
  const heavy = rows.filter((r) => r.bytes / r.pages >= 60_000);
  const fill = rows.filter((r) => r.bytes / r.pages < 60_000);
  const links = mkdtempSync(join(tmpdir(), 'pdfsvc-real-doc-'));
  try {
    const args = [];
    let pages = 0;
    let n = 0;
    const add = (row) => {
      const link = join(links, `${++n}.pdf`);
      symlinkSync(join(CORPUS, row.file), link);
      args.push(link);
      pages += row.pages;
    };
    for (let copy = 0; copy < HEAVY_COPIES; copy++) for (const row of heavy) add(row);
    for (const row of fill) {
      if (pages >= TARGET_PAGES) break;
      if (pages + row.pages <= TARGET_PAGES + 10) add(row);
    }
    mkdirSync(fileURLToPath(new URL('./out/', import.meta.url)), { recursive: true });
    // Exit 3 is "succeeded with warnings" (a few real files have harmless ones).
    try {
      execFileSync('qpdf', ['--empty', '--pages', ...args, '--', REAL_DOCUMENT], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      if (err.status !== 3) throw err;
    }
  } finally {
    rmSync(links, { recursive: true, force: true });
  }
  return REAL_DOCUMENT;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = ensureRealDocument({ force: process.argv.includes('--force') });
  if (!path) {
    console.error('no corpus at ../shared/corpus: the real-file document cannot be built');
    process.exitCode = 1;
  } else {
    const pages = execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim();
    console.log(`${path}: ${pages} pages, ${(statSync(path).size / 2 ** 20).toFixed(1)} MiB`);
  }
}
