#!/usr/bin/env node
// Byte identity over the shared corpus: runs every page action (and the
// splits) of a built pdfsvc over every file of ../shared/corpus and records a
// SHA-256 per output, or the error code/message of a refusal. A refactor must
// not change any of them: make the hashes with the old build, then compare
// the new build against them.
//
//   node scripts/corpus-hashes.mjs --out before.json              # with ./dist
//   node scripts/corpus-hashes.mjs --dist ../other/dist --compare before.json
//
// The corpus tier compares the build against test/corpus/output-hashes.json
// (byte-identity.corpus.test.ts). A change that alters outputs on purpose
// makes that file anew with --out and explains every difference in its commit.
//
// Options: --corpus DIR (default ../shared/corpus), --files N (the first N
// files only), --jobs N (worker threads, default 2), --timeout S (per file, 300).
// Exit status: 0 when --compare finds no difference, 1 when it does.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The jobs, as the corpus tier runs them; each deterministic (no fresh /ID, no random IV). */
const JOBS = [
  ['rotate', 'rotatePages', () => ({ angle: 90 })],
  ['extract', 'extractPages', () => ({ pages: '1' })],
  ['reverse', 'reversePages', () => ({})],
  ['reorder', 'reorderPages', () => ({ page_order: '-1..1' })],
  ['remove', 'removePages', () => ({ pages: '1' })],
  ['merge', 'mergeDocuments', (file) => ({ file: [file, file] })],
  ['split-count', 'splitByPageCount', () => ({ page_count: 2 })],
  ['split-at', 'splitAtPage', () => ({ page: -1 })],
  ['split-groups', 'splitByGroups', () => ({ groups: '1;2..' })],
  ['split-size', 'splitBySize', () => ({ maximum_bytes: 200_000 })],
  ['text-wm', 'addTextWatermark', () => ({ line_1: 'pdfsvc corpus', line_2: 'Ελληνικά' })],
  ['remove-signatures', 'removeSignatures', () => ({})],
];

if (!isMainThread) {
  const lib = await import(pathToFileURL(join(workerData.dist, 'index.js')).href);
  parentPort.on('message', async ({ path, password }) => {
    const bytes = new Uint8Array(readFileSync(path));
    const results = {};
    for (const [name, fn, fields] of JOBS) {
      const input = { file: bytes, ...fields(bytes) };
      if (name === 'merge') input.file = [bytes, bytes];
      if (password) input.password = password;
      try {
        const out = await lib[fn](input);
        const parts = out instanceof Uint8Array ? [out] : out.map((d) => d.bytes);
        const hash = createHash('sha256');
        for (const part of parts) hash.update(part);
        results[name] = `${parts.length}:${hash.digest('hex').slice(0, 32)}`;
      } catch (err) {
        const detail = err?.errors ? JSON.stringify(err.errors) : String(err?.message ?? err);
        results[name] = `error:${createHash('sha256').update(detail).digest('hex').slice(0, 12)}`;
      }
    }
    parentPort.postMessage(results);
  });
} else {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const dist = resolve(opt('--dist', join(ROOT, 'dist')));
  const corpus = resolve(opt('--corpus', join(ROOT, '..', 'shared', 'corpus')));
  const jobs = Number(opt('--jobs', '2'));
  const timeoutMs = Number(opt('--timeout', '300')) * 1000;
  const manifest = readFileSync(join(corpus, 'MANIFEST.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const entries = manifest.filter((e) => e.is_pdf !== false).slice(0, Number(opt('--files', String(manifest.length))));
  if (!existsSync(join(dist, 'index.js'))) throw new Error(`no build in ${dist}: run npm run build there`);

  const hashes = {};
  let next = 0;
  const started = Date.now();
  const runOne = () =>
    new Promise((done) => {
      const spawn = () => new Worker(fileURLToPath(import.meta.url), { workerData: { dist }, resourceLimits: { maxOldGenerationSizeMb: 4096 } });
      let worker = spawn();
      const step = () => {
        if (next >= entries.length) return worker.terminate().then(done);
        const entry = entries[next++];
        const timer = setTimeout(() => {
          hashes[entry.file] = 'timeout';
          worker.removeAllListeners();
          worker.terminate();
          worker = spawn();
          step();
        }, timeoutMs);
        worker.removeAllListeners();
        worker.once('message', (result) => {
          clearTimeout(timer);
          hashes[entry.file] = result;
          step();
        });
        worker.once('error', (err) => {
          clearTimeout(timer);
          hashes[entry.file] = `crash:${err.message}`;
          worker = spawn();
          step();
        });
        worker.postMessage({ path: join(corpus, entry.file), password: entry.needs_password ? (entry.user_password ?? entry.password) : undefined });
      };
      step();
    });
  await Promise.all(Array.from({ length: jobs }, runOne));
  const sorted = Object.fromEntries(
    Object.keys(hashes)
      .sort()
      .map((k) => [k, hashes[k]]),
  );
  console.error(`corpus-hashes: ${entries.length} files, ${JOBS.length} jobs each, ${((Date.now() - started) / 1000).toFixed(0)} s, build ${dist}`);
  // Outputs with object streams are zlib's bytes: the baseline says which zlib made them.
  const madeWith = { node: process.version, zlib: process.versions.zlib };
  if (opt('--out')) writeFileSync(opt('--out'), `${JSON.stringify({ _made_with: madeWith, ...sorted }, null, 1)}\n`);
  const against = opt('--compare');
  if (against) {
    const before = JSON.parse(readFileSync(against, 'utf8'));
    const differences = [];
    for (const [file, results] of Object.entries(sorted)) {
      const old = before[file];
      // A file that ran out of time on a busy machine is no verdict either way.
      if (old === undefined || old === 'timeout' || results === 'timeout') {
        if (old === 'timeout' || results === 'timeout')
          console.error(`corpus-hashes: ${file}: past the time limit, not compared (rerun with a larger --timeout)`);
        continue;
      }
      if (typeof old !== 'object' || typeof results !== 'object') {
        if (JSON.stringify(old) !== JSON.stringify(results)) differences.push(`${file}: ${JSON.stringify(old)} -> ${JSON.stringify(results)}`);
        continue;
      }
      for (const name of Object.keys(results)) if (old[name] !== results[name]) differences.push(`${file} [${name}]: ${old[name]} -> ${results[name]}`);
    }
    console.log(differences.length ? differences.join('\n') : 'no difference');
    console.error(`corpus-hashes: ${differences.length} differences against ${against}`);
    process.exitCode = differences.length ? 1 : 0;
  }
}
