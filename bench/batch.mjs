// The batch row of `npm run bench` (issue 12): many small files in one call.
// 200 copies of the 10-page document, rotated three ways in the same run:
//   - pdfsvc rotate --out-dir, one process for every file (batch mode);
//   - a shell loop of qpdf --rotate, one process per file (the baseline);
//   - a shell loop of pdfsvc rotate, one process per file (what batch mode replaces).
// Targets: batch ≤ 1.0x the qpdf loop, and at least 5x faster than the pdfsvc loop.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';

export const BATCH_FILES = 200;

/** The shell loop both baselines run: one process per file, like a user's `for f in *.pdf`. */
function loop(command) {
  return ['-c', `for f in "$1"/*.pdf; do ${command} || exit 1; done`, 'loop'];
}

/**
 * Times the three ways on `doc` (the 10-page document) and returns a row of
 * the bench table. `tools` lends bench.mjs's runner and output checker, so a
 * wrong output is caught here as in every other job.
 */
export function benchBatch(doc, options, { cli, node, work, run, verifyOutput }) {
  const inputs = `${work}batch-in/`;
  const outs = { batch: `${work}batch-out/`, qpdf: `${work}batch-qpdf/`, loop: `${work}batch-loop/` };
  rmSync(inputs, { recursive: true, force: true });
  mkdirSync(inputs, { recursive: true });
  const names = Array.from({ length: BATCH_FILES }, (_, i) => `copy-${String(i + 1).padStart(3, '0')}.pdf`);
  for (const name of names) copyFileSync(doc.path, `${inputs}${name}`);

  const commands = {
    batch: [node, [cli, 'rotate', '--angle', '90', ...names.map((n) => `${inputs}${n}`), '--out-dir', outs.batch, '--quiet']],
    qpdf: ['sh', [...loop(`qpdf --rotate=+90 "$f" "${outs.qpdf}$(basename "$f")"`), inputs.slice(0, -1)]],
    loop: ['sh', [...loop(`"${node}" "${cli}" rotate --angle 90 "$f" -o "${outs.loop}$(basename "$f")"`), inputs.slice(0, -1)]],
  };
  const row = {
    job: `batch rotate ${BATCH_FILES} files`,
    document: doc.name,
    pages: doc.pages,
    megabytes: doc.bytes / 2 ** 20,
    inputBytes: null,
    baseline: 'qpdf loop',
    status: 'ok',
    reason: null,
    pdfsvc: { runs: [], median: null, rss: null },
    other: { runs: [], median: null, rss: null },
    loop: { runs: [], median: null },
    ratio: null,
    rssPerInput: null,
    batch: true,
  };
  const expected = { pages: doc.pages, first: 1, last: doc.pages, rotation: 90 };
  const once = (which) => {
    rmSync(outs[which], { recursive: true, force: true });
    mkdirSync(outs[which], { recursive: true });
    const [command, args] = commands[which];
    const result = run(command, args);
    if (result.status !== 0) return { failed: `${which} exited ${result.status}: ${result.stderr.trim().split('\n').pop() ?? ''}` };
    const written = readdirSync(outs[which]).filter((n) => n.endsWith('.pdf'));
    if (written.length !== BATCH_FILES) return { failed: `${which} wrote ${written.length} of ${BATCH_FILES} files` };
    for (const name of [names[0], names.at(-1)]) {
      const wrong = verifyOutput(`${outs[which]}${name}`, expected, { full: true });
      if (wrong) return { failed: `${which} output ${name}: ${wrong}` };
    }
    return { seconds: result.seconds };
  };
  const cleanUp = () => {
    for (const dir of [inputs, ...Object.values(outs)]) rmSync(dir, { recursive: true, force: true });
  };
  const key = { batch: 'pdfsvc', qpdf: 'other', loop: 'loop' };
  // A warm-up of batch and the qpdf loop, then ABBA runs of both; the pdfsvc
  // loop (200 Node start-ups, minutes) runs once, in the first round: its
  // gap to batch mode is far wider than the noise.
  const order = ['batch', 'qpdf', 'loop'];
  const wrong = (reason) => {
    row.status = 'wrong';
    row.reason = reason;
    cleanUp();
    return row;
  };
  for (const which of ['batch', 'qpdf']) {
    const warm = once(which);
    if (warm.failed) return wrong(warm.failed);
  }
  for (let i = 0; i < options.runs; i++) {
    for (const which of i % 2 === 0 ? order : ['qpdf', 'batch', 'loop']) {
      if (which === 'loop' && i > 0) continue;
      const timed = once(which);
      if (timed.failed) return wrong(timed.failed);
      row[key[which]].runs.push(timed.seconds);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const k of Object.values(key)) row[k].median = median(row[k].runs);
  row.ratio = row.pdfsvc.median / row.other.median;
  row.speedup = row.loop.median / row.pdfsvc.median;
  cleanUp();
  return row;
}

/** The batch row's verdicts: ≤ 1.0x the qpdf loop, ≥ 5x faster than a pdfsvc loop. */
export function judgeBatch(row) {
  return [
    { what: `time ≤1.0x qpdf loop`, ok: row.ratio <= 1.0 },
    { what: `${row.speedup.toFixed(1)}x faster than a pdfsvc loop (${row.loop.median.toFixed(2)} s), ≥5x`, ok: row.speedup >= 5 },
  ];
}
