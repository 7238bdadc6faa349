/**
 * Batch mode: one single-input action over many files in one call
 * (`pdfsvc rotate --angle 90 a.pdf b.pdf --out-dir rotated/`). Every check
 * that can be made without running (names, collisions, existing outputs) is
 * made before the first file is touched; after that, one file's failure never
 * stops the others.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { basename, extname, join, resolve } from 'node:path';
import type { AnyAction } from '../core/action.js';
import { ValidationError } from '../core/errors.js';
import type { RawValues } from '../core/fields.js';
import type { Problem } from '../core/problem.js';
import { exitStatusOf, problemOf } from './failure.js';
import type { Remote } from './remote.js';
import { run } from '../core/run.js';
import { readInput } from './io.js';
import { writeOutput } from './output.js';
import { formatBytes } from './progress.js';
import { printOut } from './stdout.js';
import { CLI_WORDS } from './words.js';

export interface BatchOptions {
  /** Files worked on at once, each on a worker thread (default: one per core). */
  jobs?: number;
  outDir?: string;
  name?: string;
  inPlace?: boolean;
  force?: boolean;
  json?: boolean;
  /** No progress bar (it shows only when standard error is a terminal anyway). */
  quiet?: boolean;
}

export interface Job {
  input: string;
  /** A file, or for split actions the folder that takes the input's parts. */
  output: string;
}

/** `{stem}` the input's name without `.pdf`, `{name}` with it, `{ext}` its extension. */
function outputName(template: string, input: string): string {
  const name = basename(input);
  const ext = extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  const unknown = template.match(/\{(?!stem\}|name\}|ext\})[^}]*\}/);
  if (unknown) throw ValidationError.field('name', `unknown placeholder ${unknown[0]}: use {stem}, {name} or {ext}`);
  const result = template.replaceAll('{stem}', stem).replaceAll('{name}', name).replaceAll('{ext}', ext);
  if (result === '' || result === '.' || result === '..' || /[/\\]/.test(result))
    throw ValidationError.field('name', `the template gives ${JSON.stringify(result)} for ${input}, which is not a file name`);
  return result;
}

/** Works out every output and refuses the whole call before any work if one is unsafe. */
function planJobs(action: AnyAction, inputs: string[], options: BatchOptions): Job[] {
  if (inputs.includes('-')) throw ValidationError.field('file', 'standard input (-) cannot be used with several inputs, --out-dir or --in-place');
  if (options.inPlace && options.outDir !== undefined) throw ValidationError.field('in_place', '--in-place and --out-dir cannot be used together');
  if (options.inPlace && action.output === 'documents') throw ValidationError.field('in_place', 'a split action cannot replace its input; use --out-dir');
  if (options.inPlace && options.name !== undefined) throw ValidationError.field('name', '--name needs --out-dir');
  if (!options.inPlace && options.outDir === undefined) throw ValidationError.field('out_dir', 'several inputs need --out-dir DIR (or --in-place)');
  const template = options.name ?? (action.output === 'documents' ? '{stem}' : '{name}');
  const jobs = inputs.map((input) => ({ input, output: options.inPlace ? input : join(options.outDir!, outputName(template, input)) }));
  const inputsByPath = new Map(inputs.map((input) => [resolve(input), input]));
  const seen = new Map<string, string>();
  const existing: string[] = [];
  for (const job of jobs) {
    const target = resolve(job.output);
    if (!options.inPlace && inputsByPath.has(target))
      throw ValidationError.field(
        'out_dir',
        `${job.output} would overwrite the input ${inputsByPath.get(target)}; choose another --out-dir or --name, or use --in-place`,
      );
    if (seen.has(target))
      throw ValidationError.field(
        'name',
        `${seen.get(target)} and ${job.input} would both be written to ${job.output}; use a --name template that keeps them apart`,
      );
    seen.set(target, job.input);
    // Split actions write into the folder; the parts' own names are checked when written.
    if (!options.inPlace && !options.force && action.output === 'document' && existsSync(job.output)) existing.push(job.output);
  }
  if (existing.length > 0) throw ValidationError.field('out_dir', existingOutputs(existing));
  return jobs;
}

/** Outputs named in a refusal; the rest are counted. */
const NAMED_EXISTING = 5;

/** Every output that is already there, so that one refusal says what --force would overwrite (not one per try). */
function existingOutputs(paths: string[]): string {
  if (paths.length === 1) return `${paths[0]} already exists; use --force to overwrite it, or another --out-dir or --name`;
  const named = paths.slice(0, NAMED_EXISTING).join(', ');
  const more = paths.length > NAMED_EXISTING ? ` and ${paths.length - NAMED_EXISTING} more` : '';
  return `${paths.length} outputs already exist: ${named}${more}; use --force to overwrite them, or another --out-dir or --name`;
}

/** What one file came to: sent back from a worker thread as plain data. */
export type JobOutcome =
  | { ok: true; bytesIn: number; bytesOut: number; warnings: string[] }
  | { ok: false; invalid: boolean; bytesIn: number; problem: Problem; message: string; warnings: string[] };

export interface JobTask {
  action: string;
  inputName: string;
  shared: RawValues;
  job: Job;
  force: boolean;
}

/** Requests batch mode keeps in flight by default in remote mode: the server's cores, not ours, set the pace. */
const REMOTE_DEFAULT_JOBS = 4;

/**
 * Runs the action on one file and writes its output (atomically); never
 * throws. With `remote`, the server does the work (remote mode).
 */
export async function runJob(action: AnyAction, task: JobTask, remote?: Remote): Promise<JobOutcome> {
  const warnings: string[] = [];
  let bytesIn = 0;
  try {
    const bytes = await readInput(task.job.input, task.inputName, !remote);
    bytesIn = bytes.byteLength;
    const raw = { ...task.shared, [task.inputName]: bytes };
    // Damage read through: the output is made, and the user told which file.
    const result = remote
      ? await remote.run(action, raw)
      : await run(action, raw, { onWarning: ({ field, message }) => warnings.push(`${field}: ${message}`) });
    const bytesOut = await writeOutput(result, task.job.output, { force: task.force });
    return { ok: true, bytesIn, bytesOut, warnings };
  } catch (err) {
    return { ok: false, invalid: exitStatusOf(err) === 2, bytesIn, problem: problemOf(err), message: describe(err), warnings };
  }
}

/**
 * Runs the jobs, `options.jobs` at a time on worker threads (one per core by
 * default; a single job, or --jobs 1, runs here without a thread). In remote
 * mode the server does the work: the requests are kept in flight from this
 * thread (REMOTE_DEFAULT_JOBS by default). Returns the exit status: 0 all
 * done, 2 any input invalid, 1 otherwise.
 */
export async function runBatch(
  action: AnyAction,
  inputName: string,
  inputs: string[],
  shared: RawValues,
  options: BatchOptions,
  remote?: Remote,
): Promise<number> {
  const jobs = planJobs(action, inputs, options);
  const threads = Math.min(jobs.length, options.jobs ?? (remote ? REMOTE_DEFAULT_JOBS : availableParallelism()));
  if (options.outDir !== undefined) {
    try {
      mkdirSync(options.outDir, { recursive: true });
    } catch (err) {
      throw ValidationError.field('out_dir', `cannot create ${JSON.stringify(options.outDir)}: ${(err as Error).message}`);
    }
  }
  const started = process.hrtime.bigint();
  const tally = { done: 0, failed: 0, invalid: false, bytesIn: 0, bytesOut: 0 };
  const bar = options.quiet || !process.stderr.isTTY ? undefined : await progressBar(jobs.length);
  const say = (line: string) => process.stderr.write(bar ? `\r\x1b[K${line}` : line);
  const report = (job: Job, outcome: JobOutcome) => {
    bar?.increment(1, { file: basename(job.input), bytes: formatBytes(tally.bytesIn + outcome.bytesIn) });
    for (const warning of outcome.warnings) say(`pdfsvc: warning: ${job.input}: ${warning}\n`);
    tally.bytesIn += outcome.bytesIn;
    if (outcome.ok) {
      tally.done++;
      tally.bytesOut += outcome.bytesOut;
      if (options.json) printOut(`${JSON.stringify({ input: job.input, output: job.output, status: 'ok' })}\n`);
    } else {
      tally.failed++;
      tally.invalid ||= outcome.invalid;
      if (options.json) printOut(`${JSON.stringify({ input: job.input, output: job.output, status: 'failed', problem: outcome.problem })}\n`);
      else say(`pdfsvc: ${job.input}: ${outcome.message}\n`);
    }
  };
  const tasks = jobs.map((job): JobTask => ({ action: action.name, inputName, shared, job, force: Boolean(options.force) }));
  if (threads <= 1) {
    for (const task of tasks) report(task.job, await runJob(action, task, remote));
  } else {
    // Reported in input order, as each next one is done: the JSON lines and messages read the same at any --jobs.
    const outcomes: Array<JobOutcome | undefined> = [];
    let reported = 0;
    const done = (index: number, outcome: JobOutcome) => {
      outcomes[index] = outcome;
      for (; reported < tasks.length && outcomes[reported]; reported++) report(tasks[reported].job, outcomes[reported]!);
    };
    await runInLanes(tasks, threads, remote ? () => ({ run: (task) => runJob(action, task, remote) }) : threadLane, done);
  }
  bar?.stop();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stderr.write(
    `pdfsvc: ${tally.done} done, ${tally.failed} failed, ${formatBytes(tally.bytesIn)} in, ${formatBytes(tally.bytesOut)} out, ${seconds.toFixed(1)} s\n`,
  );
  return tally.failed === 0 ? 0 : tally.invalid ? 2 : 1;
}

/**
 * The progress bar on a terminal (cli-progress: it redraws in place, knows the
 * terminal's width and works out the ETA): files done of all, bytes read, the
 * file just finished.
 */
async function progressBar(total: number) {
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{bar} {value}/{total} files | {bytes} read | ETA {eta_formatted} | {file}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 20,
  });
  bar.start(total, 0, { file: '', bytes: '0 B' });
  return bar;
}

/** Works on one task at a time: a worker thread, or (remote mode) a request in flight. */
interface Lane {
  run(task: JobTask): Promise<JobOutcome>;
  close?(): Promise<unknown>;
}

/** `lanes` lanes take the tasks in order, one at a time each, and report each as it is done. */
async function runInLanes(tasks: JobTask[], lanes: number, openLane: () => Lane, report: (index: number, outcome: JobOutcome) => void): Promise<void> {
  let next = 0;
  const drive = async () => {
    const lane = openLane();
    try {
      while (next < tasks.length) {
        const index = next++;
        report(index, await lane.run(tasks[index]));
      }
    } finally {
      await lane.close?.();
    }
  };
  await Promise.all(Array.from({ length: lanes }, drive));
}

/**
 * A lane on a worker thread. A thread that dies (out of memory) fails only
 * its own file; a new one takes its place for the rest.
 */
function threadLane(): Lane {
  let worker: Worker | undefined;
  return {
    run(task) {
      worker ??= new Worker(new URL('./batch-worker.js', import.meta.url));
      const running = worker;
      return new Promise<JobOutcome>((resolve) => {
        const done = (value: JobOutcome) => {
          running.off('message', onMessage).off('error', onError);
          resolve(value);
        };
        const onMessage = (value: JobOutcome) => done(value);
        const onError = (err: Error) => {
          worker = undefined;
          done({ ok: false, invalid: false, bytesIn: 0, problem: problemOf(err), message: `the work stopped: ${err.message}`, warnings: [] });
        };
        running.on('message', onMessage).on('error', onError);
        running.postMessage(task);
      });
    },
    close: async () => worker?.terminate(),
  };
}

function describe(err: unknown): string {
  if (err instanceof ValidationError)
    return Object.entries(err.errorsIn(CLI_WORDS))
      .flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`))
      .join('; ');
  return (err as Error)?.message ?? String(err);
}
