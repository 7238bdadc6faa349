// What the scripts that stand up real processes or containers share (test-image.mjs, test-compose.mjs,
// multi-region.mjs, postgres-cluster.mjs): a free loopback port, and named checks run in turn, each logged
// with the time since the start, so that a failed run says which check failed and how far it got.
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { dirname } from 'node:path';

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
    /**
     * Runs `main` and ends the run: `cleanUp` however it ends (SIGINT and SIGTERM too), the JSON report for
     * scripts/ci-summary.mjs when `reportFile` is given, and one summary line on standard output.
     */
    async run({ title, main, cleanUp, reportFile }) {
      for (const signal of ['SIGINT', 'SIGTERM']) {
        process.once(signal, async () => {
          list.log(`${signal}: cleaning up`);
          await cleanUp();
          process.exit(130);
        });
      }
      let summary;
      try {
        summary = await main();
      } catch (error) {
        await cleanUp();
        const where = error instanceof CheckFailed ? error.check : list.current;
        writeReport(reportFile, list, false);
        console.log(`${title}: FAILED at "${where}": ${error.message} (${list.passed.length} checks passed before it, ${list.elapsed()})`);
        process.exit(1);
      }
      await cleanUp();
      writeReport(reportFile, list, true);
      console.log(`${title}: passed ${list.passed.length} checks in ${list.elapsed()}; ${summary}`);
    },
  };
  return list;
}

/** The run's checks in the shape of vitest's JSON report, which scripts/ci-summary.mjs counts. */
function writeReport(file, list, ok) {
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      numPassedTests: list.passed.length,
      numFailedTests: ok ? 0 : 1,
      numPendingTests: 0,
      numTodoTests: 0,
      numFailedTestSuites: 0,
      passed: list.passed,
      failed: ok ? undefined : list.current,
    }),
  );
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
