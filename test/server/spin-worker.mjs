// A stand-in for the PDF worker (test/server/pool.test.ts): a body containing
// SPIN keeps the thread in synchronous work (as a pdf-lib parse would) for up
// to 30 s, BRIEF for 100 ms; anything else answers at once. The answer names
// the thread, so that a test can tell whether it was replaced.
import { threadId } from 'node:worker_threads';

export default function spinTask(task) {
  const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  const busyMs = body.includes('SPIN') ? 30_000 : body.includes('BRIEF') ? 100 : 0;
  const until = Date.now() + busyMs;
  while (Date.now() < until) {
    // busy: cannot see an abort flag, only termination stops this
  }
  return { ok: true, contentType: 'application/pdf', body: new TextEncoder().encode(`%PDF-1.7 stand-in, thread ${threadId}`) };
}
