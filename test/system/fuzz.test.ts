/**
 * A fixed-seed sample of the fuzz tier (scripts/fuzz.mjs): 150 mutants of the
 * fixtures through every action on capped worker threads. None may throw
 * anything but a 400, hang, pass its heap cap, or write an output qpdf
 * rejects when qpdf reads the input. `.ci/run` runs 8,000 cases; `npm run
 * fuzz` runs for as long as asked. And a smaller sample through a live
 * server (--server), where a 5xx, a reset or a dead server also fails.
 */
import { execa } from 'execa';
import { expect, it } from 'vitest';

it('150 seeded mutants through every action: no crash, hang or unreadable output', async () => {
  const run = await execa('node', ['scripts/fuzz.mjs', '--cases', '150', '--seed', '1'], { reject: false });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const summary = /(\d+) cases, (\d+) outputs, (\d+) refused with a 400, (\d+) failed/.exec(run.stdout);
  expect(summary, run.stdout).not.toBeNull();
  const [, cases, outputs, refused, failed] = summary!.map(Number);
  expect(cases).toBe(150);
  expect(failed).toBe(0);
  // Both kinds of outcome occur: the mutants are neither all harmless nor all refused.
  expect(outputs).toBeGreaterThan(20);
  expect(refused).toBeGreaterThan(20);
}, 120_000);

it('100 seeded mutants through a live server: no 5xx, reset, dead server or RSS past 512 MiB', async () => {
  const run = await execa('node', ['scripts/fuzz.mjs', '--server', '--cases', '100', '--seed', '2', '--jobs', '2'], { reject: false });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const summary = /(\d+) cases, (\d+) outputs, (\d+) refused with a 400, (\d+) failed; through a live server, peak RSS (\d+) MiB/.exec(run.stdout);
  expect(summary, run.stdout).not.toBeNull();
  const [, cases, outputs, refused, failed, peakMib] = summary!.map(Number);
  expect(cases).toBe(100);
  expect(failed).toBe(0);
  expect(outputs).toBeGreaterThan(10);
  expect(refused).toBeGreaterThan(10);
  expect(peakMib).toBeLessThan(512);
}, 120_000);
