/**
 * The worker pool (piscina): PDF work runs on worker threads so the event
 * loop stays free for /healthz and other requests. A full queue answers 503.
 */
import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import type { ActionRunner } from './app.js';
import type { WorkerReply, WorkerTask } from './worker.js';

export class Busy extends PdfsvcError {
  constructor() {
    super(503, 'all workers are busy and the queue is full; retry shortly');
  }
}

export interface Pool {
  run: ActionRunner;
  close(): Promise<void>;
}

export function createPool(options: { workers?: number; maxQueue?: number }): Pool {
  const threads = options.workers ?? availableParallelism();
  const piscina = new Piscina({
    filename: new URL('./worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    maxQueue: options.maxQueue ?? threads * 16,
    idleTimeout: 60_000,
  });
  return {
    async run(action: AnyAction, values: Record<string, unknown>) {
      let reply: WorkerReply;
      try {
        reply = await piscina.run({ action: action.name, values } satisfies WorkerTask);
      } catch (err) {
        if (err instanceof Error && /queue is at limit/i.test(err.message)) throw new Busy();
        throw err;
      }
      if (reply.ok) return reply.result;
      if (reply.errors) throw new ValidationError(reply.errors);
      if (reply.status < 500) throw new PdfsvcError(reply.status, reply.message);
      throw new Error(reply.message);
    },
    close: () => piscina.destroy(),
  };
}
