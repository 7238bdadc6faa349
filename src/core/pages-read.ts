/**
 * Pages of the input documents an action read, for the server's
 * `pdfsvc_pages_processed_total`. Counted where a document is opened
 * (pdf/document.ts walks its page tree there anyway), so nothing is parsed
 * again to count. The tally travels with the running action in
 * AsyncLocalStorage, as the warning handler does: concurrent actions count
 * apart, and nothing is counted when nobody asks.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const tallies = new AsyncLocalStorage<{ pages: number }>();

/** Runs an action and returns its result with the pages of every input document it opened. */
export async function countingPagesRead<T>(run: () => Promise<T>): Promise<{ result: T; pages: number }> {
  const tally = { pages: 0 };
  const result = await tallies.run(tally, run);
  return { result, pages: tally.pages };
}

/** Adds an opened document's pages to the running action's tally, if it keeps one. */
export function notePagesRead(pages: number): void {
  const tally = tallies.getStore();
  if (tally) tally.pages += pages;
}
