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
import v8 from 'node:v8';

/** Lets a heap grow at most `percent` past what is live before a major collection. */
export function limitHeapGrowth(percent: number): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** A merge's inputs up to this size in all get the larger budget: optimizeLater says why. */
const SMALL_MERGE_BYTES = 8 * 2 ** 20;

/**
 * Makes V8 weigh a function for its optimizing compiler, TurboFan, after 16
 * times the bytecode it runs by default (1 MB, not 66 KB), when a merge's
 * inputs total at most 8 MB. A merge of many small files calls hundreds of
 * functions a few hundred times each and ends: TurboFan's compiles, on
 * threads beside the main one, cost more CPU than the optimized code saved
 * (merge-50: 0.39 -> 0.30 s of CPU, the main thread 228 -> 242 ms). Larger
 * inputs keep the bin's 4 times: there the main thread runs long enough in
 * unoptimized code to lose more than the compiles cost (two copies of a
 * 56 MB shape: main thread 391 -> 440 ms, CPU 0.61 -> 0.57 s; of a 60 MB
 * one of small objects, 761 -> 893 ms), and on a quiet machine the main
 * thread is the wall time. bench/README.md, "Merge: where a short run's CPU
 * goes" and "merge2".
 */
export function optimizeLater(inputBytes: number): void {
  if (inputBytes <= SMALL_MERGE_BYTES) v8.setFlagsFromString('--interrupt-budget=1081344');
}
