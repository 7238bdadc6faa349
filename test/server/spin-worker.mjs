// A stand-in for the PDF worker (test/server/pool.test.ts): a body containing
// SPIN keeps the thread in synchronous work (as a pdf-lib parse would) for up
// to 30 s; anything else answers at once.
export default function spinTask(task) {
  if (Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength).includes('SPIN')) {
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      // busy: cannot see an abort flag, only termination stops this
    }
  }
  return { ok: true, contentType: 'application/pdf', body: new TextEncoder().encode('%PDF-1.7 stand-in') };
}
