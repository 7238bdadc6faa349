/**
 * The hostile set (fixtures/out/hostile/, scripts/hostile-fixtures.mjs)
 * through every action of a live `pdfsvc serve --workers 2`, a few requests
 * at a time: each hostile document as the file of every action, in the
 * action's example request (test/helpers/examples.ts: one of two inputs of
 * merge_documents, the example image of add_image_watermark), and each
 * hostile image as the image of every action that takes one, on a normal page.
 *
 * Every answer is a 200 or a 400 that costs the server at most 10 s of CPU
 * time, never a 5xx; a 400 is problem+json that says which field is wrong
 * (`file` or `image`; a page field when the document is read as having one
 * page); a 200's output is read by qpdf whenever qpdf reads the input. The
 * server's peak RSS (its worker threads included) stays under 512 MiB for
 * the whole run, and it is healthy at the end (issue 11's targets).
 *
 * The 10 s is a bound on what a hostile file costs, so it is CPU time (the
 * server process's, all its threads, over the request), not time on the
 * clock: on a machine running a second `npm test` beside this one, or
 * anything else, an answer waits for the CPU as long as the other work keeps
 * it, and that says nothing about pdfsvc. With two requests in work at once
 * the server's CPU over one request's span includes the other's work too: an
 * upper bound of that request's cost, which is what is checked.
 *
 * The judge (qpdf) runs after every request is answered, so that it does not
 * take the CPU from the answers being timed, and under its own bound
 * (JUDGE_TIMEOUT_MS), never the 10 s one: its time-out is no verdict on
 * pdfsvc, and is reported as the judge's. It reads the
 * structure without decoding streams (qpdfReads says why not `qpdf --check`).
 *
 * Then the command line on the three heaviest files (a page of Flate inside
 * Flate, 200,000 objects with no cross-reference table, a chain of 200,000
 * objects): each action costs at most 10 s of CPU time and 300 MB of peak
 * RSS, and rebuilding the table takes at most twice qpdf's CPU time.
 */
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_IMAGES, HOSTILE_PDFS } from '../../scripts/hostile-fixtures.mjs';
import { actions, findAction } from '../../src/actions/index.js';
import type { AnyAction } from '../../src/core/action.js';
import type { Field } from '../../src/core/fields.js';
import { exampleArguments, examplePassword, exampleRequest } from '../helpers/examples.js';
import { JUDGE_TIMEOUT_MS, qpdfReads, tempFile, type Verdict } from '../helpers/pdf-tools.js';
import { unpack } from '../helpers/split-tools.js';
import { CLI, postAction, send, serve, tempDir, type FormPart, type Served } from '../server/spawn.js';

const HOSTILE = new URL('../../fixtures/out/hostile/', import.meta.url);
const hostile = (name: string) => new Uint8Array(readFileSync(new URL(name, HOSTILE)));
/** What one hostile file may cost pdfsvc: CPU time (ms), on the server and on the command line. */
const CPU_LIMIT_MS = 10_000;
const RSS_LIMIT_KB = 512 * 1024;
const CONCURRENCY = 2;

/** The field of an action that takes an image, if any. */
const imageFieldOf = (action: AnyAction) =>
  Object.entries(action.fields as Record<string, Field>).find(([, field]) => field.kind === 'file' && field.accepts === 'image')?.[0];
const IMAGE_ACTIONS = actions.filter((action) => imageFieldOf(action) !== undefined);

/** Files past a reading limit: every action refuses them with a 400 that says which limit, and why. */
const PAST_LIMIT: Record<string, RegExp> = {
  'nested-arrays-100000.pdf': /passes a limit .* looks malicious \(objects nested more than \d+ deep/,
  'nested-dicts-100000.pdf': /passes a limit .* looks malicious \(objects nested more than \d+ deep/,
  'png-20000x20000-zeros.png': /declares 20000 x 20000 pixels .* at most 16\.8 megapixels .* looks malicious/,
  'png-100000x100000.png': /declares 100000 x 100000 pixels .* looks malicious/,
  'png-2-31-wide.png': /declares 2147483648 x 1 pixels .* looks malicious/,
};

interface Case {
  label: string;
  /** The hostile file, to group results by. */
  input: string;
  action: string;
  fields: Record<string, FormPart>;
  /** Whether qpdf reads the document input (then it must read the output too). */
  qpdfReadsInput: () => Promise<Verdict>;
}

interface Outcome {
  status: number;
  /** Time on the clock, for the log only. */
  ms: number;
  /** The server's CPU time over the request (both workers and the main thread). */
  cpuMs: number;
  problem?: string;
  /** pdfsvc's failure. */
  failure?: string;
  /** The outputs of a 200 (temporary files), judged after every request is answered. */
  outputs?: string[];
  /** A judge that gave no verdict within its own bound: not pdfsvc's failure, but the case is not decided. */
  undecided?: string;
}

const once = <T>(make: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
};

const CASES: Case[] = [
  ...HOSTILE_PDFS.flatMap(([name]) => {
    const file = hostile(name);
    const reads = once(async () => (await qpdfReads(file)).verdict);
    return actions.map((action) => ({
      label: `${action.name} on ${name}`,
      input: name,
      action: action.name,
      fields: exampleRequest(action, file),
      qpdfReadsInput: reads,
    }));
  }),
  ...HOSTILE_IMAGES.flatMap(([name]) =>
    IMAGE_ACTIONS.map((action) => ({
      label: `${action.name} with ${name}`,
      input: name,
      action: action.name,
      fields: { ...exampleRequest(action), [imageFieldOf(action)!]: hostile(name) },
      qpdfReadsInput: async (): Promise<Verdict> => 'reads',
    })),
  ),
];

let served: Served;
const outcomes = new Map<Case, Outcome>();
let peakRssKb = 0;

/** Peak resident set of the server process so far (its worker threads share it). */
function vmHwmKb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

const CLOCK_TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU time (user + system, ms) of a process so far, all its threads: /proc/<pid>/stat's utime and stime. */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (in parentheses, which may hold spaces) come state (field 3) … utime (14), stime (15).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

async function runCase(test: Case): Promise<Outcome> {
  const started = performance.now();
  const cpuBefore = processCpuMs(served.pid);
  // The harness's wait for a hung server, not a bound of pdfsvc's.
  const reply = await postAction(served, test.action, test.fields, { headers: { accept: 'application/json' }, timeoutMs: 900_000 });
  const cpuMs = Math.round(processCpuMs(served.pid) - cpuBefore);
  const ms = Math.round(performance.now() - started);
  const outcome: Outcome = { status: reply.status, ms, cpuMs };
  if (cpuMs > CPU_LIMIT_MS) outcome.failure = `cost the server ${cpuMs} ms of CPU time (answered after ${ms} ms)`;
  if (reply.status === 400) {
    const type = String(reply.headers['content-type']);
    const problem = type === 'application/problem+json' ? (JSON.parse(reply.body.toString('utf8')) as { errors?: Record<string, string[]> }) : undefined;
    // What is wrong with the document or image; or, for a document read as one page, with a page field (no page 2 to split at).
    const said = Object.values(problem?.errors ?? {}).flat();
    outcome.problem = said.join(' ');
    if (said.length === 0) outcome.failure = `a 400 that names no field (${type}): ${reply.body.toString('utf8').slice(0, 300)}`;
  } else if (reply.status === 200) {
    const type = String(reply.headers['content-type']);
    const outputs = type.startsWith('application/pdf') ? [new Uint8Array(reply.body)] : unpack(reply.body, type).documents.map((d) => d.bytes);
    // On disk until judged: the outputs of the whole run are hundreds of MB.
    outcome.outputs = outputs.map((output) => tempFile(output));
  } else {
    outcome.failure = `status ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`;
  }
  return outcome;
}

/** qpdf's verdict on a case's outputs, when it reads the input (then it must read each output). */
async function judge(test: Case, outcome: Outcome): Promise<void> {
  const outputs = outcome.outputs ?? [];
  outcome.outputs = undefined;
  if (outputs.length === 0) return;
  const input = await test.qpdfReadsInput();
  if (input === 'no verdict') outcome.undecided = `qpdf gave no verdict on the input within ${JUDGE_TIMEOUT_MS / 1000} s`;
  if (input !== 'reads') return;
  for (const output of outputs) {
    const { verdict, output: said } = await qpdfReads(output, examplePassword(test.fields));
    if (verdict === 'does not read') outcome.failure = `qpdf reads the input but not the output: ${said.trim().split('\n').slice(0, 3).join(' | ')}`;
    if (verdict === 'no verdict') outcome.undecided = `qpdf gave no verdict on the output within ${JUDGE_TIMEOUT_MS / 1000} s`;
  }
}

/** Runs `each` over `items`, `concurrency` at a time. */
async function inTurn<T>(items: T[], concurrency: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await each(items[next++]);
    }),
  );
}

describe('every action over every hostile file, through a live server', () => {
  beforeAll(async () => {
    // As deployed (deploy/Dockerfile): two malloc arenas keep the workers' freed memory reusable,
    // and large buffers are given back when freed.
    // The request deadline (a time on the clock) far off: what is bounded here is each request's cost in CPU
    // time. Beside a second npm test and more, a request's work at the workers' lower priority waited 120 s,
    // the default deadline, for the CPU.
    served = await serve({
      args: ['--workers', '2', '--request-timeout-ms', '900000'],
      env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as Record<string, string>,
    });
    const sampler = setInterval(() => (peakRssKb = Math.max(peakRssKb, vmHwmKb(served.pid))), 200);
    try {
      await inTurn(CASES, CONCURRENCY, async (test) => {
        outcomes.set(test, await runCase(test).catch((err: Error) => ({ status: 0, ms: 0, cpuMs: 0, failure: `no answer: ${err.message}` })));
      });
    } finally {
      clearInterval(sampler);
      peakRssKb = Math.max(peakRssKb, vmHwmKb(served.pid));
    }
    // Every answer is in: now the judge, with the CPU to itself.
    await inTurn(CASES, CONCURRENCY, (test) => judge(test, outcomes.get(test)!));
    // A harness wait, not a bound of pdfsvc's: about 500 requests and their judging, on a machine that may be busy
    // (over 15 minutes with a second npm test and more beside it).
  }, 2_700_000);
  afterAll(async () => {
    await served?.stop();
  });

  it.each([...HOSTILE_PDFS, ...HOSTILE_IMAGES].map(([name, about]) => [name, about]))(
    `%s (%s): a 200 or a 400 naming a field, at most ${CPU_LIMIT_MS / 1000} s of CPU each`,
    (name) => {
      const failures = CASES.filter((c) => c.input === name).flatMap((c) => {
        const outcome = outcomes.get(c);
        if (outcome?.failure) return [`${c.label}: ${outcome.failure}`];
        if (PAST_LIMIT[name] && !(outcome?.status === 400 && PAST_LIMIT[name].test(outcome.problem ?? '')))
          return [`${c.label}: not refused naming the limit: ${outcome?.status} ${outcome?.problem}`];
        return [];
      });
      expect(failures).toEqual([]);
    },
  );

  it('qpdf, the judge, gave a verdict on every output within its own bound', () => {
    const undecided = CASES.flatMap((c) => (outcomes.get(c)?.undecided ? [`${c.label}: ${outcomes.get(c)!.undecided}`] : []));
    expect(undecided).toEqual([]);
  });

  it(`the server stays under ${RSS_LIMIT_KB / 1024} MiB of RSS over the whole run, and healthy at the end`, async () => {
    expect(outcomes.size).toBe(CASES.length);
    console.log(
      `hostile set: ${CASES.length} requests, ${[...outcomes.values()].filter((o) => o.status === 200).length} answered 200, ${[...outcomes.values()].filter((o) => o.status === 400).length} 400; ` +
        `slowest ${Math.max(...[...outcomes.values()].map((o) => o.ms))} ms on the clock, costliest ${Math.max(...[...outcomes.values()].map((o) => o.cpuMs))} ms of server CPU; server peak RSS ${Math.round(peakRssKb / 1024)} MiB`,
    );
    expect(peakRssKb).toBeGreaterThan(0);
    expect(peakRssKb).toBeLessThan(RSS_LIMIT_KB);
    const health = await send(`${served.base}/healthz`);
    expect(health.status).toBe(200);
    expect(served.child.exitCode).toBeNull();
  });
});

// ---------------------------------------------------------------------------
// The command line on the three heaviest files

const ISSUE_21 = ['flate-in-flate-content.pdf', 'no-xref-200000-objects.pdf', 'chain-200000-objects.pdf'];
const CLI_RSS_LIMIT_KB = 300 * 1024;
const USAGE_AT_EXIT = new URL('../helpers/usage-at-exit.mjs', import.meta.url).pathname;

interface CliRun {
  exitCode: number | undefined;
  stderr: string;
  maxRssKb: number;
  cpuMs: number;
}

let scratch: string;
let runs = 0;

/** Runs the CLI and weighs it: peak RSS and CPU time as the child itself reports them at exit (helpers/usage-at-exit.mjs). */
async function weighCli(args: string[]): Promise<CliRun> {
  const usageFile = join(scratch, `usage-${++runs}.json`);
  // The time-out is the harness's (a hung child); the bounds under test are on what the child reports.
  const run = await execa(process.execPath, ['--import', USAGE_AT_EXIT, CLI, ...args], {
    reject: false,
    timeout: 300_000,
    env: { PDFSVC_TEST_USAGE: usageFile },
  });
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKb: number; cpuMs: number };
  return { exitCode: run.exitCode, stderr: run.stderr, ...usage };
}

/** CPU time (user + system, ms) of a command, by bash's `time` (qpdf is no Node process to load usage-at-exit.mjs into). */
async function cpuMsOf(command: string[]): Promise<number> {
  const script = `TIMEFORMAT='%3U %3S'; time "$@" > /dev/null 2>&1`;
  const run = await execa('bash', ['-c', script, 'bash', ...command], { reject: false, timeout: 300_000 });
  const [user, system] = run.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return (user + system) * 1000;
}

describe('the command line on the three heaviest files', () => {
  beforeAll(() => {
    scratch = tempDir('pdfsvc-hostile-cli-');
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(ISSUE_21)(
    `%s: every action answers (exit 0 or 2) within ${CPU_LIMIT_MS / 1000} s of CPU and under ${CLI_RSS_LIMIT_KB / 1024} MB of peak RSS`,
    async (name) => {
      const weighed: string[] = [];
      const failures: string[] = [];
      // Two at a time, as the machine has two cores; each child reports its own peak and CPU time, so they do not add up.
      await inTurn([...actions], 2, async ({ name: action }) => {
        const run = await weighCli(exampleArguments(findAction(action)!, join(HOSTILE.pathname, name), join(scratch, `${action}-${++runs}`)));
        weighed.push(`${action} ${Math.round(run.maxRssKb / 1024)} MB ${Math.round(run.cpuMs)} ms`);
        if (run.exitCode !== 0 && run.exitCode !== 2) failures.push(`${action}: exit ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
        if (run.maxRssKb >= CLI_RSS_LIMIT_KB) failures.push(`${action}: peak RSS ${Math.round(run.maxRssKb / 1024)} MB`);
        if (run.cpuMs > CPU_LIMIT_MS) failures.push(`${action}: ${Math.round(run.cpuMs)} ms of CPU`);
      });
      console.log(`${name} on the command line: ${weighed.join(', ')}`);
      expect(failures).toEqual([]);
    },
    600_000,
  );

  it('rebuilding the table of 200,000 objects takes at most twice the CPU time qpdf takes to rebuild it and write the file', async () => {
    const input = join(HOSTILE.pathname, 'no-xref-200000-objects.pdf');
    const run = await weighCli(['rotate_pages', '--angle', '90', input, '-o', join(scratch, 'rebuilt.pdf')]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/rebuilt by scanning the file/);
    // qpdf reconstructs the table too (exit 3: warnings) and writes the file.
    const qpdfMs = await cpuMsOf(['qpdf', input, join(scratch, 'qpdf.pdf')]);
    console.log(`no-xref-200000-objects.pdf: pdfsvc ${Math.round(run.cpuMs)} ms of CPU, qpdf ${Math.round(qpdfMs)} ms`);
    expect(qpdfMs).toBeGreaterThan(0);
    expect(run.cpuMs).toBeLessThan(2 * qpdfMs);
  }, 600_000);
});
