/** Peak memory of a command line run, as the process itself reports it at exit (no /usr/bin/time needed). */
import { execa, type Result } from 'execa';

const PROBE = `process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'));`;

/** Runs `node bin/pdfsvc.js …args` (from the repository's root), never rejecting; its result and peak RSS in KiB. */
export async function runCliMeasured(args: string[]): Promise<{ run: Result<{ reject: false }>; maxRssKb: number }> {
  const run = await execa('node', ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, 'bin/pdfsvc.js', ...args], { reject: false });
  return { run, maxRssKb: Number(/maxrss (\d+)/.exec(String(run.stderr))?.[1]) };
}
