/**
 * How far V8 lets a heap grow past what is live before it collects again.
 * Its default, up to four times what is live on a machine with memory to
 * spare, suits one program that keeps what it allocates; an action keeps
 * little of what it allocates, and a document of many small objects
 * allocates a lot. Measured over a chain of 200,000 objects (a hostile fixture): the
 * command line's merge peaked at 297 MB by default and at 234 MB when the
 * heap may grow to twice what is live, at the same CPU time; a server of two
 * workers over that file and 200,000 objects without a table, at 562-585 MiB
 * by default and 528-543 MiB at a quarter more than what is live (several
 * heaps share one process there).
 *
 * V8's flags belong to the whole process: the command line and the server
 * set this, the library never touches its host's settings.
 */
import { LATE_INTERRUPT_BUDGET, setV8Flags } from './v8-flags.js';

/** Lets a heap grow at most `percent` past what is live before a major collection. */
export function limitHeapGrowth(percent: number): void {
  setV8Flags(`--heap-growing-percent=${percent}`);
}

/** Many small inputs: at most this size on average, and at most MANY_SMALL_TOTAL in all. optimizeLater says why. */
const MANY_SMALL_AVERAGE = 2 ** 20;
const MANY_SMALL_TOTAL = 8 * 2 ** 20;

/**
 * Makes V8 weigh a function for its optimizing compiler, TurboFan, after 16
 * times the bytecode it runs by default (1 MB, not 66 KB), when a merge's
 * inputs (their sizes in bytes) are many small files: at most 1 MB each on
 * average and 8 MB in all. Such a merge runs its per-input code (opening,
 * page tree, catalog) a few hundred times and ends: TurboFan's compiles, on
 * threads beside the main one, cost more CPU than the optimized code saved
 * (merge-50, 114 KB on average: CPU 0.39 -> 0.30 s, main thread 228 -> 242
 * ms). Other merges keep the bin's 4 times: their per-object code runs long
 * enough in unoptimized code to lose more than the compiles cost, and on a
 * quiet machine the main thread is the wall time (main thread under 16x:
 * two 56 MB inputs 391 -> 440 ms; two 60 MB ones of small objects 761 ->
 * 893; a 6.9 MB chain of 200,000 objects and a small file 891 -> 986, with
 * more CPU too). bench/README.md, "Merge: where a short run's CPU goes" and
 * "merge2".
 */
export function optimizeLater(inputSizes: number[]): void {
  const total = inputSizes.reduce((sum, size) => sum + size, 0);
  if (total <= MANY_SMALL_TOTAL && total <= MANY_SMALL_AVERAGE * inputSizes.length) setV8Flags(`--interrupt-budget=${LATE_INTERRUPT_BUDGET}`);
}

/** An action's input up to this size (a merge's in all) is tiny: optimizeLaterWhenTiny. */
const TINY_INPUT = 256 * 2 ** 10;

/**
 * Makes V8 weigh a function for TurboFan after 16 times the bytecode it runs
 * by default, as optimizeLater does, for any action on a tiny input (at most
 * 256 KB): such a run ends a few milliseconds into its per-object code,
 * before what TurboFan compiles (on a thread beside the main one) pays back
 * its CPU and memory. Medians in turn, all threads' CPU / main thread /
 * peak RSS: 10-page rotate (40 KB) 37.8 -> 36.3 / 36.3 -> 35.7 ms, 46.0 ->
 * 42.2 MiB; 700 pages of long-text in object streams (191 KB) 109 -> 90 /
 * 82 -> 84 ms. bench/README.md, "startup: the 10-page rotate without
 * NODE_EXTRA_CA_CERTS".
 */
export function optimizeLaterWhenTiny(inputSize: number): void {
  if (inputSize > TINY_INPUT) return;
  setV8Flags(`--interrupt-budget=${LATE_INTERRUPT_BUDGET}`);
  optimizingLate = true;
}

let optimizingLate = false;

/** Whether optimizeLaterWhenTiny put TurboFan off in this process (reader/skim.ts waits with its warm-up then). */
export function optimizesLate(): boolean {
  return optimizingLate;
}

/** A split's or merge's input up to this size (a merge's in all) has TurboFan inline less (inlineLess). */
const SMALL_INPUT_IN_PARTS = 8 * 2 ** 20;
/** Any other action's input up to this size has TurboFan inline less (inlineLess). */
const SMALL_INPUT = 4 * 2 ** 20;

/**
 * Makes V8's optimizing compiler, TurboFan, stop inlining the functions a
 * function calls into it, for an action on a small input (at most 4 MB; a
 * split's at most 8, a merge's 8 in all). Such a run does its per-page or per-object code a
 * few thousand times at most and ends: the large graphs that inlining builds
 * cost compile time on the threads beside the main one, and their memory is
 * at the peak. Measured on long-text (1.2 MB; medians in turn, main thread /
 * all threads CPU, peak RSS): split into 10 pages 0.266 -> 0.273 s / 0.402
 * -> 0.350 s, 62.4 -> 61.0 MiB; split by size 0.504 -> 0.521 / 0.692 ->
 * 0.641, 64.6 -> 62.5 MiB (bench/README.md, "splitlt"); rotate, reverse,
 * reorder, remove, both watermarks, add and remove password: main thread the
 * same or a few ms less, all threads 10-15 % less, peak RSS 0.4-2.4 MiB
 * less; merge-50 (5.9 MB in all) 0.7-1.2 MiB less ("ltrss"). On larger
 * inputs it costs the main thread: the 60 MB small-objects split 4 % (0.80
 * -> 0.83 s); a rotate of long-text six times over (7.3 MB) 2.4 % (438 ->
 * 449 ms), when three times over (3.6 MB) gained (286 -> 271 ms), hence the
 * bounds. `inParts`: a split or a merge.
 */
export function inlineLess(inputSize: number, inParts: boolean): void {
  if (inputSize <= (inParts ? SMALL_INPUT_IN_PARTS : SMALL_INPUT)) setV8Flags('--no-turbo-inlining');
}
