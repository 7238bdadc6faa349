/**
 * Worker-thread entry: runs one validated action off the server's event loop.
 * Results and errors cross the thread boundary as plain data.
 */
import { findAction } from '../actions/index.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import { runValidated, type ActionResult } from '../core/run.js';

export interface WorkerTask {
  action: string;
  values: Record<string, unknown>;
}

export type WorkerReply =
  | { ok: true; result: ActionResult }
  | { ok: false; status: number; message: string; errors?: Record<string, string[]> };

export default async function runTask(task: WorkerTask): Promise<WorkerReply> {
  const action = findAction(task.action);
  if (!action) return { ok: false, status: 500, message: `unknown action ${task.action}` };
  try {
    return { ok: true, result: await runValidated(action, task.values) };
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, status: 400, message: err.message, errors: err.errors };
    if (err instanceof PdfsvcError) return { ok: false, status: err.status, message: err.message };
    // Internal faults stay inside: the server answers 500 without details.
    return { ok: false, status: 500, message: 'internal error' };
  }
}
