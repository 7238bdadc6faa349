/**
 * What the command line sets for an action once its input's size is known
 * (src/core/heap-growth.ts): V8's flags are the whole process's, so the calls
 * to setV8Flags are what is checked.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const setV8Flags = vi.hoisted(() => vi.fn());
vi.mock('../../src/core/v8-flags.js', async (original) => ({ ...(await original<object>()), setV8Flags }));

const { optimizeLaterWhenTiny } = await import('../../src/core/heap-growth.js');
const { LATE_INTERRUPT_BUDGET } = await import('../../src/core/v8-flags.js');

describe('optimizeLaterWhenTiny', () => {
  beforeEach(() => setV8Flags.mockClear());

  it("sets sixteen times V8's interrupt budget for an input of at most 256 KB", () => {
    for (const size of [0, 39_816, 256 * 1024]) optimizeLaterWhenTiny(size);
    expect(setV8Flags.mock.calls).toEqual(Array(3).fill([`--interrupt-budget=${LATE_INTERRUPT_BUDGET}`]));
  });

  it("leaves a larger input with the bin's budget", () => {
    for (const size of [256 * 1024 + 1, 1_209_584, 56_032_946]) optimizeLaterWhenTiny(size);
    expect(setV8Flags).not.toHaveBeenCalled();
  });
});

describe('optimizesLate', () => {
  it('answers yes once a tiny input has put TurboFan off, and not before', async () => {
    vi.resetModules();
    const fresh = await import('../../src/core/heap-growth.js');
    expect(fresh.optimizesLate()).toBe(false);
    fresh.optimizeLaterWhenTiny(256 * 1024 + 1);
    expect(fresh.optimizesLate()).toBe(false);
    fresh.optimizeLaterWhenTiny(39_816);
    expect(fresh.optimizesLate()).toBe(true);
  });
});
