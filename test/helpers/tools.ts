/**
 * Programs a few server tests need besides qpdf and poppler (nginx, Chromium,
 * Prometheus). A run by hand without one skips those tests with a warning;
 * in CI (CI set, as .ci/run exports it) a missing program is a failure, since
 * .ci/run installs them all and a skip there would hide a broken install.
 */
import { existsSync } from 'node:fs';

/** True when `path` exists; else warns and returns false, or throws in CI. `install` says how to get it. */
export function haveTool(path: string, purpose: string, install: string): boolean {
  if (existsSync(path)) return true;
  const message = `${path} not found: ${purpose} need it (${install})`;
  if (process.env.CI) throw new Error(`${message}; in CI this is a failure, not a skip`);
  console.warn(`${message}; skipping them (in CI, with CI set, this fails)`);
  return false;
}
