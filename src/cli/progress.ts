/**
 * The progress line of a single-file run on a terminal. The work stays on
 * the main thread, exactly as without a terminal (same bytes, messages and
 * exit statuses, same reading of standard input and writing of standard
 * output); but the main thread cannot redraw while it works, so a worker
 * thread (progress-worker.ts) draws the line with cli-progress, straight to
 * file descriptor 2. They share a few numbers in shared memory: the bytes
 * written of the output's size, which the worker reads at each redraw, and a
 * lock that keeps the worker from drawing while the main thread writes a
 * message, or ever again once the main thread has cleared the line.
 */
import { fstatSync, statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';

/**
 * Whether standard error is a terminal, where the progress line is drawn. A
 * file, a pipe or /dev/null is none, told by fstat without making
 * process.stderr, whose stream loads Node's streams: 1.7 ms of CPU in a
 * fresh process, in every run whose standard error is no terminal (`node -e
 * process.stderr.isTTY` against `node -e 0`, medians of 15). Any other
 * character device: Node says.
 */
export function stderrIsTerminal(): boolean {
  try {
    const stderr = fstatSync(2);
    if (!stderr.isCharacterDevice() || stderr.rdev === statSync('/dev/null').rdev) return false;
  } catch {
    // Nothing to stat (no /dev/null on Windows): Node says.
  }
  return process.stderr.isTTY === true;
}

/** Slots of the Int32Array: the lock's state, and whether anything was drawn. */
export const STATE = 0;
export const DRAWN = 1;
export const IDLE = 0;
export const DRAWING = 1;
const STOPPED = 2;
/** Slots of the Float64Array after the two Int32 ones: output bytes written, and of how many (0: not writing yet). */
export const WRITTEN = 0;
export const TOTAL = 1;
export const INTS = 2;

export interface ProgressSetup {
  shared: SharedArrayBuffer;
  /** What is worked on: the file name and its size. */
  label: string;
  /** When the work began (Date.now()). */
  startedAt: number;
  /** The line shows only once the work has taken this long. */
  afterMs: number;
  columns: number;
}

/** Quick runs draw nothing; PDFSVC_PROGRESS_AFTER_MS (for tests) moves the threshold. */
const AFTER_MS = 1000;

export class Progress {
  private readonly ints: Int32Array;
  private readonly numbers: Float64Array;
  private readonly worker: Worker;

  /** Starts the clock; the line shows if the work is still going after the threshold. */
  constructor(label: string) {
    const shared = new SharedArrayBuffer(INTS * 4 + 2 * 8);
    this.ints = new Int32Array(shared, 0, INTS);
    this.numbers = new Float64Array(shared, INTS * 4, 2);
    const after = Number(process.env.PDFSVC_PROGRESS_AFTER_MS);
    const setup: ProgressSetup = {
      shared,
      label,
      startedAt: Date.now(),
      afterMs: Number.isFinite(after) && after >= 0 ? after : AFTER_MS,
      columns: process.stderr.columns || 80,
    };
    // Loaded here, not at the top: a run that shows no progress does not pay for worker_threads (a few ms of every start).
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    this.worker = new Worker(new URL('./progress-worker.js', import.meta.url), { workerData: setup });
    // It never keeps the command alive, and a failure to draw never fails the command.
    this.worker.unref();
    this.worker.on('error', (e) => {
      if (process.env.PDFSVC_DEBUG) process.stderr.write(String(e.stack));
    });
  }

  /** The output is being written: `total` bytes in all. Returns what to tell of each write. */
  writing(total: number): (bytes: number) => void {
    this.numbers[TOTAL] = total;
    return (bytes) => {
      this.numbers[WRITTEN] += bytes;
    };
  }

  /** Writes a message (a warning) on standard error on a line of its own; the worker redraws below it. */
  say(text: string): void {
    this.locked(() => process.stderr.write(Atomics.load(this.ints, DRAWN) ? `\r\x1b[2K${text}` : text));
  }

  /** Clears the line if it was drawn and ends the worker: nothing is drawn after this returns. */
  stop(): void {
    if (!this.locked(() => Atomics.load(this.ints, DRAWN) && process.stderr.write('\r\x1b[2K'), STOPPED)) return;
    void this.worker.terminate();
  }

  /** Runs `fn` while the worker cannot draw, then leaves the lock in `after`; false if it was already stopped. */
  private locked(fn: () => unknown, after = IDLE): boolean {
    for (;;) {
      const was = Atomics.compareExchange(this.ints, STATE, IDLE, DRAWING);
      if (was === STOPPED) return false;
      if (was === IDLE) break;
      // The worker is in the middle of one write to the terminal: a moment.
      Atomics.wait(this.ints, STATE, DRAWING, 50);
    }
    try {
      fn();
    } finally {
      Atomics.store(this.ints, STATE, after);
    }
    return true;
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
