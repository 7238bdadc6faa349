// What the benches share about the pdfsvc they run and the machine they run
// on: the copy of bin/ and dist/ under test, and what every report says about
// where it ran (the machine, Node, qpdf, the commit and when the dist/ under
// test was built, the load at the start; the machines are shared: read
// ratios, not times).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const BIN_DIR = fileURLToPath(new URL('../bin/', import.meta.url));
const DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * Copies bin/ and dist/ into `snapshot`, so that someone rebuilding dist/
 * during a run cannot break it (worker threads and actions load modules
 * lazily). Packages kept external by the build still resolve from the
 * node_modules folders above. Retries while a rebuild is under way; throws
 * when no working copy could be made.
 */
export function snapshotCli(snapshot) {
  for (let attempt = 1; ; attempt++) {
    rmSync(snapshot, { recursive: true, force: true });
    try {
      cpSync(BIN_DIR, `${snapshot}bin/`, { recursive: true, preserveTimestamps: true });
      cpSync(DIST_DIR, `${snapshot}dist/`, { recursive: true, preserveTimestamps: true });
      if (existsSync(`${snapshot}dist/cli.js`) && spawnSync(process.execPath, [`${snapshot}bin/pdfsvc.js`, '--help']).status === 0) return;
    } catch {
      /* dist/ changed while copying */
    }
    if (attempt === 5) throw new Error('could not copy a working dist/ (is someone rebuilding it? try again, or --build)');
    spawnSync('sleep', ['1']);
  }
}

const output = (command, args) => {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : undefined;
};

/** `snapshot`: the folder holding the bin/ and dist/ copy the bench runs. */
export function machineInfo(snapshot) {
  const cpus = os.cpus();
  const commit = output('git', ['rev-parse', '--short', 'HEAD'])?.trim();
  const dirty = (output('git', ['status', '--porcelain', '--', 'src']) ?? '').trim() !== '';
  const cli = `${snapshot}dist/cli.js`;
  return {
    date: new Date().toISOString(),
    host: os.hostname(),
    cores: cpus.length,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGB: +(os.totalmem() / 1024 ** 3).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    qpdf: (output('qpdf', ['--version']) ?? 'qpdf: not found').split('\n')[0].trim(),
    commit: commit ? `${commit}${dirty ? ' (src/ has uncommitted changes)' : ''}` : 'unknown',
    distBuilt: existsSync(cli) ? statSync(cli).mtime.toISOString() : null,
    loadAverageAtStart: os.loadavg().map((l) => +l.toFixed(2)),
  };
}
