// Issue 10's benchmark: pdfsvc against qpdf on a ~500-page, ~60 MB document
// made of real files (bench/make-real-document.mjs), whole process, each
// pair run in turn, medians; the verdict is the ratio against the target,
// never an absolute time (the machines are shared and noisy).
//
//   npm run bench:real                      # 5 runs of every job
//   npm run bench:real -- --runs 3 --jobs rotate,extract
//
// Peak RSS comes from GNU time (/usr/bin/time -f %M). Every pdfsvc output is
// checked once with qpdf --check, so a fast wrong answer cannot pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readArguments } from './arguments.mjs';
import { ensureRealDocument } from './make-real-document.mjs';
import { watermarkImage } from './watermark-assets.mjs';

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const WORK = `${OUT}real-tmp/`;
const CLI = fileURLToPath(new URL('../bin/pdfsvc.js', import.meta.url));
const SMALL = fileURLToPath(new URL('../fixtures/out/pages-10.pdf', import.meta.url));
const PASSWORD = 'bench-password';
const MiB = 2 ** 20;

const options = { runs: 5, jobs: undefined };
readArguments(
  process.argv.slice(2),
  (name, value) => {
    if (name === '--runs') options.runs = Number(value());
    else if (name === '--jobs') options.jobs = value().split(',');
    else return false;
    return true;
  },
  (message) => {
    console.error(`bench:real: ${message}`);
    process.exit(2);
  },
  'bench/README.md',
);

const doc = ensureRealDocument();
if (!doc) {
  console.error('bench:real needs ../shared/corpus to build its document');
  process.exit(1);
}
mkdirSync(WORK, { recursive: true });
const inputBytes = statSync(doc).size;
const markPng = watermarkImage();

function encrypted(bits) {
  const path = `${WORK}real-aes${bits}.pdf`;
  const r = spawnSync('qpdf', ['--encrypt', PASSWORD, PASSWORD, String(bits), ...(bits === 128 ? ['--use-aes=y'] : []), '--', doc, path]);
  if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf --encrypt: ${r.stderr}`);
  return path;
}
const aes128 = encrypted(128);
const aes256 = encrypted(256);

const out = (name) => `${WORK}${name}.pdf`;
const pdfsvc = (...args) => ['node', CLI, ...args];

/** Each job: pdfsvc's command, the reference command, the target ratio, and which RSS bound applies. */
const JOBS = [
  { name: 'rotate', mine: pdfsvc('rotate', '--angle', '90', doc, '-o', out('rotate')), theirs: ['qpdf', doc, '--rotate=+90', out('q')], target: 1.0, rss: 'page' },
  { name: 'reverse', mine: pdfsvc('reverse', doc, '-o', out('reverse')), theirs: ['qpdf', '--empty', '--pages', doc, 'z-1', '--', out('q')], target: 1.0, rss: 'page' },
  { name: 'reorder', mine: pdfsvc('reorder', '--page-order', '-1..1', doc, '-o', out('reorder')), theirs: ['qpdf', '--empty', '--pages', doc, 'z-1', '--', out('q')], target: 1.0, rss: 'page' },
  { name: 'remove', mine: pdfsvc('remove', '--pages', '1', doc, '-o', out('remove')), theirs: ['qpdf', doc, '--pages', doc, '2-z', '--', out('q')], target: 1.0, rss: 'page' },
  { name: 'extract 5 of 500', mine: pdfsvc('extract', '--pages', '1..5', doc, '-o', out('extract')), theirs: ['qpdf', doc, '--pages', doc, '1-5', '--', out('q')], target: 0.5, rss: 'page' },
  { name: 'text watermark', mine: pdfsvc('add-text-watermark', '--line-1', 'CONFIDENTIAL', doc, '-o', out('textwm')), theirs: ['qpdf', doc, '--overlay', SMALL, '--to=1-z', '--from=1', '--', out('q')], target: 1.0, rss: 'page' },
  { name: 'image watermark', mine: pdfsvc('add-image-watermark', '--image', markPng, doc, '-o', out('imagewm')), theirs: ['qpdf', doc, '--overlay', SMALL, '--to=1-z', '--from=1', '--', out('q')], target: 1.0, rss: 'page' },
  { name: 'split 10 pages', mine: pdfsvc('split-by-page-count', '--page-count', '10', doc, '-o', `${WORK}split`, '--force'), theirs: ['qpdf', '--split-pages=10', doc, `${WORK}qsplit/p.pdf`], target: 1.0, rss: 'page', dir: true },
  { name: 'add_password AES-128', mine: pdfsvc('add-password', '--password', PASSWORD, doc, '-o', out('enc128')), theirs: ['qpdf', '--encrypt', PASSWORD, PASSWORD, '128', '--use-aes=y', '--', doc, out('q')], target: 1.3, rss: 'crypto', password: PASSWORD },
  { name: 'add_password AES-256', mine: pdfsvc('add-password', '--password', PASSWORD, '--encryption-algorithm', 'AES-256', doc, '-o', out('enc256')), theirs: ['qpdf', '--encrypt', PASSWORD, PASSWORD, '256', '--', doc, out('q')], target: 1.3, rss: 'crypto', password: PASSWORD },
  { name: 'remove_password AES-128', mine: pdfsvc('remove-password', '--password', PASSWORD, aes128, '-o', out('dec128')), theirs: ['qpdf', `--password=${PASSWORD}`, '--decrypt', aes128, out('q')], target: 1.3, rss: 'crypto' },
  { name: 'remove_password AES-256', mine: pdfsvc('remove-password', '--password', PASSWORD, aes256, '-o', out('dec256')), theirs: ['qpdf', `--password=${PASSWORD}`, '--decrypt', aes256, out('q')], target: 1.3, rss: 'crypto' },
  { name: '10-page rotate vs node -e 0', mine: pdfsvc('rotate', '--angle', '90', SMALL, '-o', out('small')), theirs: ['node', '-e', '0'], target: 2.0, rss: 'none' },
].filter((job) => !options.jobs || options.jobs.some((j) => job.name.startsWith(j)));

/** One whole-process run: wall seconds and peak RSS in bytes. */
function run(argv, dir) {
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0 && !(argv[0] === 'qpdf' && r.status === 3)) throw new Error(`${argv.join(' ')}: exit ${r.status}: ${r.stderr.slice(-400)}`);
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { seconds, rss: kb * 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rows = [];
for (const job of JOBS) {
  const mine = [];
  const theirs = [];
  for (let i = 0; i < options.runs; i++) {
    mine.push(run(job.mine, job.dir ? `${WORK}split` : undefined));
    theirs.push(run(job.theirs, job.dir ? `${WORK}qsplit` : undefined));
  }
  if (!job.dir && job.rss !== 'none') {
    const check = spawnSync('qpdf', ['--check', ...(job.password ? [`--password=${job.password}`] : []), job.mine[job.mine.indexOf('-o') + 1]], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`${job.name}: pdfsvc's output fails qpdf --check: ${check.stdout}${check.stderr}`);
  }
  const ratio = median(mine.map((r) => r.seconds)) / median(theirs.map((r) => r.seconds));
  const rss = median(mine.map((r) => r.rss));
  const rssLimit = job.rss === 'page' ? inputBytes + 90 * MiB : job.rss === 'crypto' ? 2 * inputBytes + 90 * MiB : undefined;
  rows.push({ job, mine: median(mine.map((r) => r.seconds)), theirs: median(theirs.map((r) => r.seconds)), ratio, rss, rssLimit });
  console.error(`${job.name}: ${ratio.toFixed(2)}x`);
}

const lines = [
  `Real-file document: ${doc.split('/').pop()}, ${(inputBytes / MiB).toFixed(1)} MiB; medians of ${options.runs}; ratio = pdfsvc / reference.`,
  '',
  '| job | pdfsvc s | reference s | ratio | target | peak RSS | RSS bound |',
  '|---|--:|--:|--:|--:|--:|---|',
  ...rows.map(({ job, mine, theirs, ratio, rss, rssLimit }) =>
    `| ${job.name} | ${mine.toFixed(3)} | ${theirs.toFixed(3)} | ${ratio.toFixed(2)}x ${ratio <= job.target ? '✓' : '✗'} | ≤ ${job.target.toFixed(1)}x | ${(rss / MiB).toFixed(0)} MiB | ${rssLimit ? `≤ ${(rssLimit / MiB).toFixed(0)} MiB ${rss <= rssLimit ? '✓' : '✗'}` : ''} |`,
  ),
];
writeFileSync(`${OUT}real-results.md`, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
