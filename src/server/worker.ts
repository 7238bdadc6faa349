/**
 * Worker-thread entry (piscina): runs one request's work off the server's
 * event loop. The request body arrives transferred, the response body goes
 * back transferred (no copy of a 60 MB document on the main thread), and
 * errors cross the thread boundary as plain data.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { Piscina } from 'piscina';
import { PdfsvcError, ValidationError, type ErrorCode } from '../core/errors.js';
import { faultSummary, runWork, type WorkResult, type WorkTask } from './work.js';

lowerThreadPriority(10);

/**
 * Lets the server's event loop win the CPU over PDF work: with every core busy
 * on large documents, a health check or a new upload would otherwise wait for
 * a scheduler slice (measured: /healthz p99 about 200 ms on 2 cores, under
 * 50 ms with the workers reniced). Linux applies setpriority() to one thread
 * when given its thread id; elsewhere this does nothing.
 */
function lowerThreadPriority(by: number): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + by));
  } catch {
    // Not allowed or not available (a restricted container): run at the normal priority.
  }
}

/**
 * A full collection of this thread's heap, for after a task that left a large
 * one. V8 collects when a heap fills, not when a task ends: a worker kept the
 * garbage of its last document (about 70-140 MB after one of the hostile set's
 * 200,000 objects) while idle or until well into its next task, and two such
 * workers, each with the last document's garbage and the next one's objects,
 * took the server's peak to 460-510 MiB in test/system/hostile.test.ts.
 * `gc` is there because the pool sets --expose-gc before it starts the
 * workers (src/server/pool.ts); a worker started otherwise does without.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * Heap in use after a task past which it is collected at once: a document of
 * many objects or a large one. Small tasks (a few MB) leave it to V8, as a
 * full collection costs some milliseconds.
 */
const COLLECT_AFTER_HEAP_BYTES = 32 * 2 ** 20;

/**
 * Collects the heap when the task left a large one, before its answer goes:
 * piscina's workers wait for their next task blocked in Atomics.wait and take
 * it without turning the event loop, so a collection put off to a
 * setImmediate would wait for the next task (measured: no lower peak). It
 * costs the answer 5-60 ms of a request that took seconds.
 */
function collectIfLarge(): void {
  if (collectGarbage && process.memoryUsage().heapUsed > COLLECT_AFTER_HEAP_BYTES) collectGarbage();
}

export type WorkerReply =
  | ({ ok: true } & WorkResult)
  | { ok: false; status: number; message: string; errors?: Record<string, string[]>; code?: ErrorCode; fault?: string };

/** A body this thread owns outright, so its memory can move to the main thread. */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  return new Uint8Array(bytes); // a slice of a shared pool (small Buffers): copy it
}

export default async function runTask(task: WorkTask): Promise<unknown> {
  try {
    return await runWorkTask(task);
  } finally {
    collectIfLarge();
  }
}

async function runWorkTask(task: WorkTask): Promise<unknown> {
  try {
    const result = await runWork(task);
    const body = ownBuffer(result.body);
    const reply: WorkerReply = {
      ok: true,
      contentType: result.contentType,
      body,
      pages: result.pages,
      ...(result.warnings ? { warnings: result.warnings } : {}),
    };
    return movable(reply, body.buffer as ArrayBuffer);
  } catch (err) {
    if (err instanceof ValidationError)
      return { ok: false, status: 400, message: err.message, errors: err.errors, ...(err.code ? { code: err.code } : {}) } satisfies WorkerReply;
    if (err instanceof PdfsvcError) return { ok: false, status: err.status, message: err.message } satisfies WorkerReply;
    // Internal faults stay inside: the server answers 500 without details and
    // logs only the kind of fault and where it happened (never its message,
    // which could quote the document).
    return { ok: false, status: 500, message: 'internal error', fault: faultSummary(err) } satisfies WorkerReply;
  }
}

/** piscina's protocol for "send this object, transferring that buffer". */
function movable(value: WorkerReply, transfer: ArrayBuffer): unknown {
  return Piscina.move({
    get [Piscina.transferableSymbol]() {
      return transfer;
    },
    get [Piscina.valueSymbol]() {
      return value;
    },
  } as never);
}
