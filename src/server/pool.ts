/**
 * The worker pool (piscina): request work runs on worker threads so the event
 * loop stays free for /healthz and for streaming bodies in and out.
 *
 * - The queue is bounded: when every worker is busy and `maxQueue` tasks wait,
 *   a new task is refused at once with `Busy` (503, Retry-After).
 * - A task can be cancelled with an AbortSignal (request timeout, client gone).
 *   A queued task is just dropped. A running one is stopped by terminating its
 *   thread: the transforms are synchronous CPU work (this project's reader
 *   and writer, pdf-lib's drawing) that cannot check a flag, so termination is the only way to get
 *   the CPU back; piscina then starts a fresh thread in its place (about
 *   0.1 s), which also throws away whatever the half-done task had allocated.
 *   A task whose client went away first gets a moment to finish
 *   (GRACE_AFTER_CLIENT_GONE_MS): a fresh thread costs more than a short task.
 */
import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import v8 from 'node:v8';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { limitHeapGrowth } from '../core/heap-growth.js';
import type { WorkResult, WorkTask } from './work.js';
import type { WorkerReply } from './worker.js';

export class Busy extends PdfsvcError {
  override name = 'Busy';
  /** Seconds a client should wait before retrying (the Retry-After header). */
  readonly retryAfter: number;
  constructor(retryAfter = 1) {
    super(503, 'all workers are busy and the queue is full; retry shortly');
    this.retryAfter = retryAfter;
  }
}

/** A worker died under its task (its heap cap, a crash): only that request fails; piscina starts a new thread. */
export class WorkerDied extends PdfsvcError {
  override name = 'WorkerDied';
  readonly retryAfter = 1;
  constructor(outOfMemory: boolean) {
    super(
      503,
      outOfMemory
        ? 'the document needed more memory than this server gives one request, and its work was stopped; a document this large or this complex cannot be processed here (a hostile one looks like this too)'
        : 'the worker handling this request stopped unexpectedly; retry shortly',
    );
  }
}

/** An internal fault reported by a worker; its message is for the log only. */
export class WorkerFault extends Error {
  constructor(readonly fault: string) {
    super('internal error');
  }
}

export interface PoolStatus {
  threads: number;
  /** Threads working on a task. */
  busy: number;
  /** Tasks waiting for a thread. */
  queued: number;
  max_queue: number;
}

/** Every worker busy and `max_queue` tasks waiting: a new task is refused. */
export function queueIsFull(status: PoolStatus): boolean {
  return status.busy >= status.threads && status.queued >= status.max_queue;
}

export interface Pool {
  /** `signal` stops the task at once (the deadline), `clientGone` GRACE_AFTER_CLIENT_GONE_MS after it aborts. */
  run(task: WorkTask, signal?: AbortSignal, clientGone?: AbortSignal): Promise<WorkResult>;
  /** Waits for running tasks, then stops the threads. */
  close(): Promise<void>;
  readonly threads: number;
  readonly maxQueue: number;
  status(): PoolStatus;
}

export interface PoolOptions {
  /** Worker threads; default: the number of cores. */
  workers?: number;
  /** Tasks that may wait for a worker before new ones are refused; default 16 per worker, at least 64. */
  maxQueue?: number;
  /** The worker module; default ./worker.js beside this one (tests give their own). */
  filename?: string;
  /**
   * The most V8 heap (old generation) one worker may use, in MB; past it the
   * worker dies, its request gets 503 and a new thread takes its place.
   * Default 1024.
   */
  workerHeapMb?: number;
}

export const DEFAULT_WORKER_HEAP_MB = 1024;

/**
 * Each worker's young generation, in MB (V8's default grows it to 48: two
 * semi-spaces of 16 MB and as much for new large objects). What a document's
 * objects live through goes to the old generation anyway; a large young one
 * only holds more garbage per worker, and stays resident after the task. Over
 * the hostile set's two files of 200,000 objects, two at a time (three runs
 * each, with the collection after a large task, src/server/worker.ts): peak
 * 378-392 MiB against 421-440 MiB by default, at 3-10 % more server CPU there
 * (more scavenges); 16 MB: 374-423 MiB.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * How long a task whose client went away may go on before it is stopped (its
 * thread terminated when it runs). Termination costs the replacement thread's
 * start and its cold code: `autocannon` cutting its 8 connections at the end
 * of each 2 s run left the next run with two fresh workers, and the 10-page
 * rotate at 7.4-8.4 ms of server CPU a request against 4.6-5.1 with warm ones.
 * A task that ends within this costs less than that; a longer one (a large
 * document) is still stopped. Queued tasks get the same time: piscina may
 * have handed one to a thread that has not started it yet, and stopping
 * that one terminates the thread too.
 */
const GRACE_AFTER_CLIENT_GONE_MS = 250;

/** The signal that stops one task: at once when `stop` aborts, GRACE_AFTER_CLIENT_GONE_MS after `clientGone` does. */
function taskSignal(stop: AbortSignal | undefined, clientGone: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onStop = () => controller.abort(stop!.reason);
  const onGone = () => {
    grace ??= setTimeout(() => controller.abort(clientGone.reason), GRACE_AFTER_CLIENT_GONE_MS);
  };
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  if (clientGone.aborted) onGone();
  else clientGone.addEventListener('abort', onGone, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      stop?.removeEventListener('abort', onStop);
      clientGone.removeEventListener('abort', onGone);
      clearTimeout(grace);
    },
  };
}

export function createPool(options: PoolOptions = {}): Pool {
  // Several worker heaps share this process: each may grow a quarter past what is live (core/heap-growth.ts).
  limitHeapGrowth(25);
  // The workers' contexts, made after this, get `gc` (src/server/worker.ts collects after a large task). Set once
  // here, on the main thread before any worker starts: V8's flags are the process's, and each worker setting and
  // clearing it while the others ran could race on them.
  v8.setFlagsFromString('--expose-gc');
  const threads = options.workers ?? availableParallelism();
  const maxQueue = options.maxQueue ?? Math.max(64, threads * 16);
  const piscina = new Piscina({
    filename: options.filename ?? new URL('./worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    // The bound is enforced below: piscina counts a thread that is still
    // starting as spare capacity, and would queue one task too many.
    maxQueue: Infinity,
    // Threads stay up: starting one costs module loading and a cold JIT.
    idleTimeout: Number.MAX_SAFE_INTEGER,
    // A hostile document must not take the process down with it: past its cap a worker dies alone.
    resourceLimits: { maxOldGenerationSizeMb: options.workerHeapMb ?? DEFAULT_WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  let admitted = 0;
  const status = (): PoolStatus => ({ threads, busy: Math.min(admitted, threads), queued: Math.max(0, admitted - threads), max_queue: maxQueue });
  return {
    threads,
    maxQueue,
    status,
    async run(task, stop, clientGone) {
      if (queueIsFull(status())) throw new Busy();
      admitted++;
      const stopping = clientGone ? taskSignal(stop, clientGone) : undefined;
      const signal = stopping?.signal ?? stop;
      let reply: WorkerReply;
      try {
        reply = (await piscina.run(task, { transferList: [task.body.buffer as ArrayBuffer], signal })) as WorkerReply;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ERR_WORKER_OUT_OF_MEMORY') throw new WorkerDied(true);
        // An abort (deadline, client gone) is the caller's to answer; any other death is this request's alone.
        if (signal?.aborted || (err as Error).name === 'AbortError') throw err;
        throw new WorkerDied(false);
      } finally {
        admitted--;
        stopping?.dispose();
      }
      if (reply.ok) return { contentType: reply.contentType, body: reply.body, pages: reply.pages, ...(reply.warnings ? { warnings: reply.warnings } : {}) };
      if (reply.errors) throw new ValidationError(reply.errors, reply.code);
      // A PdfsvcError keeps its message (an output that failed its own check says why); only an internal fault hides it.
      if (reply.status < 500 || reply.fault === undefined) throw new PdfsvcError(reply.status, reply.message);
      throw new WorkerFault(reply.fault ?? 'unknown');
    },
    close: () => piscina.close(),
  };
}
