/**
 * A worker thread of batch mode (batch.ts): takes one file at a time, runs
 * the action on it and writes its output, and answers with what it came to.
 */
import { parentPort } from 'node:worker_threads';
import { findAction } from '../actions/index.js';
import type { AnyAction } from '../core/action.js';
import { runJob, type JobTask } from './batch.js';

parentPort!.on('message', async (task: JobTask) => {
  parentPort!.postMessage(await runJob(findAction(task.action) as AnyAction, task));
});
