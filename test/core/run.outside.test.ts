/**
 * An action lets go of its input when it is done, even the first time it
 * runs, when it loads its transform (and the text watermark its fonts).
 * A module keeps its loading promise for good: when the run's warning
 * handler travelled in AsyncLocalStorage, every promise made during an action
 * carried it, and a server worker kept the upload of the first request of
 * every action it ran (issue 21's memory budget). The handler now travels in
 * the run's context (core/run.ts), which nothing outlives the run holds.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { addTextWatermark, reversePages } from '../../src/index.js';
import { fixture } from '../helpers/pdf-tools.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Runs the action once on a copy of a fixture with a warning handler that holds the input, and gives a weak reference to the input. */
async function runOnce(run: (file: Uint8Array, onWarning: () => void) => Promise<unknown>): Promise<WeakRef<Uint8Array>> {
  const file = new Uint8Array(fixture('pages-3.pdf'));
  // The handler is the action's store; it refers to the input, as a server's does (its scope holds the request).
  await run(file, () => void file.length);
  return new WeakRef(file);
}

async function collected(weak: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 10 && weak.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return weak.deref() === undefined;
}

describe('an action keeps nothing of its input after it is done', () => {
  it('the first reverse_pages of the process (its transform loaded on first use)', async () => {
    const weak = await runOnce((file, onWarning) => reversePages({ file }, { onWarning }));
    expect(await collected(weak)).toBe(true);
  });

  it('the first add_text_watermark of the process (its transform and fonts loaded on first use)', async () => {
    const weak = await runOnce((file, onWarning) => addTextWatermark({ file, line_1: 'ΑΒΓ' }, { onWarning }));
    expect(await collected(weak)).toBe(true);
  });
});
