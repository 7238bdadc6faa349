// What every bench report says about where it ran: the machine, Node, qpdf,
// the commit and when the dist/ under test was built, and the load at the
// start (the machines are shared: read ratios, not times).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';

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
