/**
 * Worker-thread entry (piscina): runs one request's work off the server's
 * event loop. The request body arrives transferred, the response body goes
 * back transferred (no copy of a 60 MB document on the main thread), and
 * errors cross the thread boundary as plain data.
 */
import { Piscina } from 'piscina';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { faultSummary, runWork, type WorkResult, type WorkTask } from './work.js';

export type WorkerReply =
  | ({ ok: true } & WorkResult)
  | { ok: false; status: number; message: string; errors?: Record<string, string[]>; fault?: string };

/** A body this thread owns outright, so its memory can move to the main thread. */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  return new Uint8Array(bytes); // a slice of a shared pool (small Buffers): copy it
}

export default async function runTask(task: WorkTask): Promise<unknown> {
  try {
    const result = await runWork(task);
    const body = ownBuffer(result.body);
    const reply: WorkerReply = { ok: true, contentType: result.contentType, body };
    return movable(reply, body.buffer as ArrayBuffer);
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, status: 400, message: err.message, errors: err.errors } satisfies WorkerReply;
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
