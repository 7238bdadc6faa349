// What the scripts that stand up real processes or containers share (test-image.mjs, test-compose.mjs,
// multi-region.mjs, postgres-cluster.mjs): a free loopback port, and named checks run in turn, each logged
// with the time since the start, so that a failed run says which check failed and how far it got.
import net from 'node:net';

/** A check that did not hold: its name and what was seen. */
export class CheckFailed extends Error {
  constructor(check, detail) {
    super(detail);
    this.check = check;
  }
}

/** Checks logged as `[label 1m 5s] ok: name`; `current` names the one running (or a set-up step). */
export function checkList(label) {
  const started = Date.now();
  const list = {
    passed: [],
    current: 'set-up',
    elapsed() {
      const s = Math.round((Date.now() - started) / 1000);
      return s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
    },
    log(line) {
      console.error(`[${label} ${list.elapsed()}] ${line}`);
    },
    /** Runs one named check; any error in it fails that check (and the run). */
    async check(name, body) {
      list.current = name;
      const result = await body();
      list.passed.push(name);
      list.log(`ok: ${name}${typeof result === 'string' ? ` (${result})` : ''}`);
      return result;
    },
    fail(detail) {
      throw new CheckFailed(list.current, detail);
    },
  };
  return list;
}

/** A TCP port free on 127.0.0.1 now (the kernel's choice). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
