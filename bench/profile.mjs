// Where pdfsvc spends its time on one job of the benchmark: runs it under
// `node --cpu-prof` and summarises the profile (top self time, time inside
// the main phases: reading, loading, the change, saving, writing).
//
//   node bench/profile.mjs                      # rotate on the 500-page document
//   node bench/profile.mjs reverse doc-100p
//   node bench/profile.mjs rotate doc-500p --top 30 --interval 200 --keep
//
// --interval is the sampling interval in microseconds (default 100); --keep
// leaves the .cpuprofile in bench/out/profiles/ (load it in Chrome DevTools).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { JOBS } from './bench.mjs';
import { OUT_DIR, ensureDocuments } from './make-documents.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../bin/pdfsvc.js', import.meta.url));

const positional = [];
const options = { top: 20, interval: 100, keep: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--top') options.top = Number(argv[++i]);
  else if (argv[i] === '--interval') options.interval = Number(argv[++i]);
  else if (argv[i] === '--keep') options.keep = true;
  else positional.push(argv[i]);
}
const [jobName = 'rotate', docName = 'doc-500p'] = positional;
const job = JOBS.find((j) => j.name === jobName);
if (!job) {
  process.stderr.write(`profile: unknown job ${jobName}; jobs: ${JOBS.map((j) => j.name).join(', ')}\n`);
  process.exit(2);
}

const [doc] = job.startup ? [null] : await ensureDocuments({ names: [docName] });
if (!job.startup && !doc) {
  process.stderr.write(`profile: unknown document ${docName}\n`);
  process.exit(2);
}
const dir = `${OUT_DIR}profiles/`;
rmSync(dir, { recursive: true, force: true }, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const out = `${dir}output.pdf`;

const args = ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', String(options.interval), CLI, ...job.pdfsvc(doc, out)];
const started = process.hrtime.bigint();
const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
const wall = Number(process.hrtime.bigint() - started) / 1e6;
if (result.status !== 0) {
  process.stderr.write(`profile: pdfsvc exited with ${result.status}\n`);
  process.exit(1);
}
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(dir + file, 'utf8'));

// ---- self and inclusive time per function, from the samples
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url ? `${url.replace(/^file:\/\//, '').replace(ROOT, '')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
};
// Phase of a sample: the first frame from the leaf up that one of these names.
const PHASES = [
  ['garbage collection', /^\(garbage collector\)/],
  ['idle: waiting for the file system (reading the input, writing the output)', /^\(idle\)/],
  ['native, not JavaScript', /^\(program\)/],
  [
    'load: parsing the PDF',
    /^(openDocument|loadPdf|parseDocument|parseIndirectObjects?|parseIntoContext|parseDictOrStream|restoreIndirectLengths|pageEntries|countSignatures|PDFParser|PDFDocument\.load|load) /,
  ],
  ['save: serialising the output', /^(saveDocument|writeDocument|dropUnreachable|reachableRefs|flush|serialize|crossReferenceTable) /],
  ['file I/O in JavaScript', /^(readInput|writeFileAtomically|readFile|writeFile|readFileHandle) /],
  ['start-up: loading and compiling modules', /node:internal\/(modules|bootstrap)|^(compileSourceTextModule|compileForInternalLoader) /],
];
const phases = new Map();
const self = new Map();
const inclusive = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  // timeDeltas[i + 1] is the time the sample i stood for.
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  total += ms;
  const leaf = nodes.get(profile.samples[i]);
  self.set(keyOf(leaf), (self.get(keyOf(leaf)) ?? 0) + ms);
  let phase = null;
  for (let id = leaf.id; id !== undefined && !phase; id = parent.get(id)) {
    const key = keyOf(nodes.get(id));
    phase = PHASES.find(([, pattern]) => pattern.test(key))?.[0] ?? null;
  }
  phase ??= 'other JavaScript (the change itself, CLI, validation, module bodies)';
  phases.set(phase, (phases.get(phase) ?? 0) + ms);
  const seen = new Set();
  for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
    const key = keyOf(nodes.get(id));
    if (seen.has(key)) continue; // recursion counts once
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
  }
}

const pct = (ms) => `${((100 * ms) / total).toFixed(1)} %`;
const row = (ms, key) => `| ${ms.toFixed(0)} | ${pct(ms)} | \`${key}\` |`;

console.log(`# Profile: pdfsvc ${job.name}${doc ? ` on ${doc.name} (${doc.pages} pages, ${(doc.bytes / 1024 / 1024).toFixed(1)} MB)` : ''}`);
console.log('');
console.log(
  `Wall time ${(wall / 1000).toFixed(2)} s under the profiler (which slows it a little); profile covers ${(total / 1000).toFixed(2)} s, sampled every ${options.interval} µs.`,
);
console.log('');
console.log('## Phases');
console.log('');
console.log('Each sample goes to the phase of the nearest frame, from the leaf up, that names one;');
console.log("pdf-lib's async parsing resumes from the event loop, so its frames are matched by name.");
console.log('');
console.log('| ms | share | phase |');
console.log('|--:|--:|---|');
for (const [phase, ms] of [...phases].sort((a, b) => b[1] - a[1])) console.log(`| ${ms.toFixed(0)} | ${pct(ms)} | ${phase} |`);
console.log('');
console.log(`## Top ${options.top} by self time`);
console.log('');
console.log('| ms | share | function |');
console.log('|--:|--:|---|');
for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, options.top)) console.log(row(ms, key));
console.log('');
console.log(`## Top ${options.top} by inclusive time`);
console.log('');
console.log('| ms | share | function |');
console.log('|--:|--:|---|');
for (const [key, ms] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, options.top)) console.log(row(ms, key));

rmSync(out, { recursive: true, force: true });
if (options.keep) console.log(`\nprofile kept: ${dir}${file}`);
else rmSync(dir, { recursive: true, force: true });
