/**
 * A worker gives back the heap of a large document when its task ends
 * (src/server/worker.ts, collectIfLarge): V8 collects when a heap fills, not
 * when a task ends, and a worker that kept the garbage of its last document
 * of 200,000 objects (70-140 MB) while the other worker worked on the next
 * one took the server's peak past 500 MiB in test/system/hostile.test.ts.
 *
 * Measured on the process as a user would: its resident memory at rest,
 * before and after such documents, with one worker (nothing else in work).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/pdf-tools.js';
import { postAction, serve } from './spawn.js';

const CHAIN = new URL('../../fixtures/out/hostile/chain-200000-objects.pdf', import.meta.url);
/** What the documents may leave resident (code compiled for them, malloc arenas): without the collection, 100 MiB and more. */
const LEFT_LIMIT_KB = 64 * 1024;

const vmRssKb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('a worker after a document of 200,000 objects', () => {
  it(`gives its heap back: the server at rest holds less than ${LEFT_LIMIT_KB / 1024} MiB more than before`, async () => {
    // As deployed (deploy/Dockerfile), as the hostile test runs it.
    const served = await serve({
      args: ['--workers', '1'],
      env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as Record<string, string>,
    });
    try {
      // A small document first: the worker's code for the action is loaded and compiled, which is not garbage.
      const small = await postAction(served, 'rotate_pages', { file: fixture('pages-3.pdf'), angle: '90' });
      expect(small.status).toBe(200);
      const before = vmRssKb(served.pid);
      const chain = new Uint8Array(readFileSync(CHAIN));
      for (const action of ['rotate_pages', 'reverse_pages']) {
        const reply = await postAction(served, action, { file: chain, ...(action === 'rotate_pages' ? { angle: '90' } : {}) }, { timeoutMs: 300_000 });
        expect(reply.status, reply.body.toString('utf8').slice(0, 300)).toBe(200);
      }
      const after = vmRssKb(served.pid);
      console.log(`server at rest: ${Math.round(before / 1024)} MiB before, ${Math.round(after / 1024)} MiB after two documents of 200,000 objects`);
      expect(after - before).toBeLessThan(LEFT_LIMIT_KB);
    } finally {
      await served.stop();
    }
  }, 600_000);
});
