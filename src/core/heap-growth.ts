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
import { MERGE_INTERRUPT_BUDGET } from './v8-flags.js';

/** Lets a heap grow at most `percent` past what is live before a major collection. */
export function limitHeapGrowth(percent: number): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * Makes V8 weigh a function for its optimizing compiler, TurboFan, after 16
 * times the bytecode it runs by default (1 MB, not 66 KB). A merge of many
 * small files calls hundreds of functions a few hundred times each and ends:
 * TurboFan's compiles, on threads beside the main one, cost more CPU than
 * the optimized code saved (merge-50: 0.62 -> 0.35 s of CPU, the main
 * thread's own time the same). Not for every action: a rotate's main thread
 * then runs longer in unoptimized code (images 0.25 -> 0.30 s), and on a quiet
 * machine that is its wall time. bench/README.md, "Merge: where a short
 * run's CPU goes".
 */
export function optimizeLater(): void {
  v8.setFlagsFromString(`--interrupt-budget=${MERGE_INTERRUPT_BUDGET}`);
}
