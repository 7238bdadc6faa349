/**
 * The worker thread that draws a single-file run's progress line
 * (progress.ts): after the threshold, the file and its size and the time
 * taken; once the output is being written, a bar of the bytes written, with
 * an ETA. It writes to file descriptor 2 itself, each write under the lock
 * the main thread takes to write a message or clear the line.
 */
import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { DRAWING, DRAWN, IDLE, INTS, STATE, TOTAL, WRITTEN, type ProgressSetup } from './progress.js';

const { shared, label, startedAt, afterMs, columns } = workerData as ProgressSetup;
const ints = new Int32Array(shared, 0, INTS);
const numbers = new Float64Array(shared, INTS * 4, 2);

/** The terminal as cli-progress sees it: a write is dropped once the main thread has stopped the line. */
const terminal = {
  isTTY: true,
  columns,
  write(text: string): boolean {
    if (Atomics.compareExchange(ints, STATE, IDLE, DRAWING) !== IDLE) return true;
    try {
      writeSync(2, text);
      Atomics.store(ints, DRAWN, 1);
    } finally {
      Atomics.store(ints, STATE, IDLE);
      Atomics.notify(ints, STATE);
    }
    return true;
  },
};

const WORKING = 'pdfsvc: {label} | {elapsed}';
const WRITING = '{bar} {percentage}% written | {label} | {elapsed} | ETA {eta_formatted}';

setTimeout(
  async () => {
    // Format is on the CommonJS module's exports object only, which Node gives as the default export.
    const { SingleBar, Format } = (await import('cli-progress')).default;
    let writing = false;
    const bar = new SingleBar({
      stream: terminal as unknown as NodeJS.WritableStream,
      format: (options, params, payload) => Format.Formatter({ ...options, format: writing ? WRITING : WORKING }, params, payload),
      barsize: 24,
      fps: 5,
      etaBuffer: 20,
      gracefulExit: false,
      // Lines longer than the terminal are cut, not wrapped (the default turns wrapping off, and only stop() would turn it on again).
      linewrap: true,
    });
    // Elapsed since the work began, not since the line appeared.
    const elapsed = () => {
      const seconds = Math.floor((Date.now() - startedAt) / 1000);
      return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
    };
    bar.start(1, 0, { label, elapsed: elapsed() });
    setInterval(() => {
      const total = numbers[TOTAL];
      if (total > 0 && !writing) {
        writing = true;
        bar.setTotal(total);
      }
      bar.update(writing ? Math.min(numbers[WRITTEN], total) : 0, { elapsed: elapsed() });
    }, 200);
  },
  Math.max(0, afterMs - (Date.now() - startedAt)),
);
