// Runs a Node script in this process and, at exit, writes the process's peak
// resident set size in bytes to a file. bench.mjs uses it to measure the
// pdfsvc process when /usr/bin/time is not installed.
//
//   node bench/rss-wrapper.mjs <report-file> <script> [args…]
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [report, script, ...args] = process.argv.slice(2);
if (!report || !script) {
  process.stderr.write('usage: node bench/rss-wrapper.mjs <report-file> <script> [args…]\n');
  process.exit(64);
}
// The script sees the command line it would have seen when run directly.
process.argv = [process.argv[0], resolve(script), ...args];
process.on('exit', () => {
  // resourceUsage().maxRSS is in kilobytes.
  writeFileSync(report, String(process.resourceUsage().maxRSS * 1024));
});
await import(pathToFileURL(resolve(script)).href);
