// Loaded with `node --import` into a child process a test weighs: at exit the
// child writes its own peak resident set (KB, worker threads included) and
// CPU time (user + system, ms) as JSON to the file named by
// PDFSVC_TEST_USAGE. Node gives a parent no resource usage of its children,
// and GNU time is not on every machine. The peak is /proc's VmHWM, which
// starts afresh with the new program: getrusage's ru_maxrss survives the
// exec and so counts the parent's size at the fork (the test runner's).
import { readFileSync, writeFileSync } from 'node:fs';

function peakRssKb() {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // No /proc (not Linux): ru_maxrss, an upper bound.
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  const file = process.env.PDFSVC_TEST_USAGE;
  if (!file) return;
  const usage = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ maxRssKb: peakRssKb(), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
});
