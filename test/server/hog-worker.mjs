// A stand-in for the PDF worker (test/server/pool.test.ts): a body containing
// HOG allocates JavaScript objects until the worker's heap cap kills it, as a
// hostile document could; anything else answers at once.
export default function hogTask(task) {
  if (Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength).includes('HOG')) {
    const kept = [];
    for (;;) kept.push(new Array(100_000).fill({ n: kept.length }));
  }
  return { ok: true, contentType: 'application/pdf', body: new TextEncoder().encode('%PDF-1.7 stand-in') };
}
