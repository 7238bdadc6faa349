/**
 * Standard output when its reader may go away early (`pdfsvc … | head`):
 * every command's output, documents as well as lists, help and scripts.
 */

let guarded = false;

/** Ends the process as SIGPIPE would once the reader of standard output is gone; set up on the first write. */
export function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') endAsKilledBySigpipe();
    throw err;
  });
}

/** Text for standard output (lists, JSON lines, keys, scripts, help, banners). */
export function printOut(text: string): void {
  guardStdout();
  process.stdout.write(text);
}

/**
 * The reader of standard output went away (`| head -c 100`): end at once and write nothing more, as
 * cat or head do, which the default action of SIGPIPE kills. Node ignores SIGPIPE, so it is raised
 * again at its default action (libuv restores that when a signal's last listener goes): a shell
 * then sees status 141, and a caller that looks (xargs, Python's subprocess, execa) sees death by
 * SIGPIPE, which they treat as a reader's choice rather than a failure of the writer. Where the
 * signal cannot kill (no SIGPIPE on Windows), exit 141, what a shell would show.
 */
export function endAsKilledBySigpipe(): never {
  try {
    const none = () => {};
    process.on('SIGPIPE', none).off('SIGPIPE', none);
    process.kill(process.pid, 'SIGPIPE');
  } catch {
    // No such signal here: the exit status below says the same.
  }
  process.exit(128 + 13);
}
