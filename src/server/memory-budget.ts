/**
 * The server's memory budget: every upload in flight and every document in
 * work holds a reservation of its estimated working set, and a request that
 * would pass the budget is refused with 503 and Retry-After, before its body
 * is read when Content-Length tells its size, else as soon as its bytes pass
 * it. Without this, 48 concurrent 59 MB uploads took a server to 3.2 GB and a
 * container with a 2 GB limit would have been killed with every request in it.
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

/**
 * Working set of a request per byte uploaded: the body, the document's
 * objects as the worker reads them, and the output (measured on the bench
 * document: a 59 MB upload peaks at about 3 times its size in the server).
 */
export const WORKING_SET_FACTOR = 3;

export interface BudgetStatus {
  max_bytes: number;
  in_use_bytes: number;
  /** Requests refused because they would have passed the budget, since start. */
  refused: number;
}

export class MemoryBudget {
  private inUse = 0;
  private refusals = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * Reserves `bytes` more, or returns false when that would pass the budget.
   * With nothing reserved anything is admitted: a request that fits on an
   * idle server is never refused, and none waits for ever.
   */
  reserve(bytes: number): boolean {
    if (this.inUse > 0 && this.inUse + bytes > this.maxBytes) {
      this.refusals++;
      return false;
    }
    this.inUse += bytes;
    return true;
  }

  release(bytes: number): void {
    this.inUse = Math.max(0, this.inUse - bytes);
  }

  status(): BudgetStatus {
    return { max_bytes: this.maxBytes, in_use_bytes: this.inUse, refused: this.refusals };
  }
}

/**
 * The default budget: 80% of the container's memory limit (cgroup v2, then
 * v1) when there is one, else half of the machine's memory.
 */
export function defaultMemoryBudget(): number {
  const limit = cgroupMemoryLimit();
  return limit !== undefined ? Math.floor(limit * 0.8) : Math.floor(totalmem() * 0.5);
}

function cgroupMemoryLimit(): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const text = readFileSync(path, 'utf8').trim();
      const value = Number(text);
      // "max" (v2) or a huge number (v1: no limit) means none.
      if (Number.isFinite(value) && value > 0 && value < totalmem()) return value;
    } catch {
      // Not in a cgroup with a memory controller.
    }
  }
  return undefined;
}

/** "2GiB", "512MiB", "1.5G", "300000000": a size in bytes, or undefined when it is not one. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? 'b').toLowerCase();
  const scale = unit === 'b' ? 1 : unit.startsWith('k') ? 2 ** 10 : unit.startsWith('m') ? 2 ** 20 : 2 ** 30;
  const bytes = Math.floor(Number(match[1]) * scale);
  return bytes > 0 ? bytes : undefined;
}
