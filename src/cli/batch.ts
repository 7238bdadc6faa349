/**
 * Batch mode: one single-input action over many files in one call
 * (`pdfsvc rotate --angle 90 a.pdf b.pdf --out-dir rotated/`). Every check
 * that can be made without running (names, collisions, existing outputs) is
 * made before the first file is touched; after that, one file's failure never
 * stops the others.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { AnyAction } from '../core/action.js';
import { PdfsvcError, ValidationError } from '../core/errors.js';
import type { RawValues } from '../core/fields.js';
import { PdfPieces } from '../core/pdf-data.js';
import { problemFor } from '../core/problem.js';
import { runValidatedPieces, validateInput } from '../core/run.js';
import { runWithWarnings } from '../core/warnings.js';
import { readInput, writeDocumentsToDirectory, writeFileAtomically } from './io.js';

export interface BatchOptions {
  outDir?: string;
  name?: string;
  inPlace?: boolean;
  force?: boolean;
  json?: boolean;
}

interface Job {
  input: string;
  /** A file, or for split actions the folder that takes the input's parts. */
  output: string;
}

/** `{stem}` the input's name without `.pdf`, `{name}` with it, `{ext}` its extension. */
export function outputName(template: string, input: string): string {
  const name = basename(input);
  const ext = extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  const unknown = template.match(/\{(?!stem\}|name\}|ext\})[^}]*\}/);
  if (unknown) throw ValidationError.field('name', `unknown placeholder ${unknown[0]}: use {stem}, {name} or {ext}`);
  const result = template.replaceAll('{stem}', stem).replaceAll('{name}', name).replaceAll('{ext}', ext);
  if (result === '' || result === '.' || result === '..' || /[/\\]/.test(result)) throw ValidationError.field('name', `the template gives ${JSON.stringify(result)} for ${input}, which is not a file name`);
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
  for (const job of jobs) {
    const target = resolve(job.output);
    if (!options.inPlace && inputsByPath.has(target)) throw ValidationError.field('out_dir', `${job.output} would overwrite the input ${inputsByPath.get(target)}; choose another --out-dir or --name, or use --in-place`);
    if (seen.has(target)) throw ValidationError.field('name', `${seen.get(target)} and ${job.input} would both be written to ${job.output}; use a --name template that keeps them apart`);
    seen.set(target, job.input);
    // Split actions write into the folder; the parts' own names are checked when written.
    if (!options.inPlace && !options.force && action.output === 'document' && existsSync(job.output)) {
      throw ValidationError.field('out_dir', `${job.output} already exists; use --force to overwrite it, or choose another directory`);
    }
  }
  return jobs;
}

/** Runs the jobs; returns the exit status (0 all done, 2 any input invalid, 1 otherwise). */
export async function runBatch(action: AnyAction, inputName: string, inputs: string[], shared: RawValues, options: BatchOptions): Promise<number> {
  const jobs = planJobs(action, inputs, options);
  if (options.outDir !== undefined) {
    try {
      mkdirSync(options.outDir, { recursive: true });
    } catch (err) {
      throw ValidationError.field('out_dir', `cannot create ${JSON.stringify(options.outDir)}: ${(err as Error).message}`);
    }
  }
  const started = process.hrtime.bigint();
  let done = 0;
  let failed = 0;
  let invalid = false;
  let bytesIn = 0;
  let bytesOut = 0;
  for (const job of jobs) {
    try {
      const bytes = await readInput(job.input, inputName, true);
      bytesIn += bytes.byteLength;
      const values = validateInput(action, { ...shared, [inputName]: bytes });
      // Damage read through: the output is made, and the user told which file.
      const result = await runWithWarnings(
        ({ field, message }) => process.stderr.write(`pdfsvc: warning: ${job.input}: ${field}: ${message}\n`),
        () => runValidatedPieces(action, values),
      );
      if (result.output === 'document') {
        const pieces = result.data instanceof PdfPieces ? result.data.pieces : [result.data];
        await writeFileAtomically(job.output, pieces);
      } else {
        const targets = await writeDocumentsToDirectory(job.output, result.documents, Boolean(options.force));
        bytesOut += targets.reduce((sum, target) => sum + statSync(target).size, 0);
      }
      if (result.output === 'document') bytesOut += statSync(job.output).size;
      done++;
      if (options.json) process.stdout.write(`${JSON.stringify({ input: job.input, output: job.output, status: 'ok' })}\n`);
    } catch (err) {
      failed++;
      const isInvalid = err instanceof PdfsvcError && err.status < 500;
      invalid ||= isInvalid;
      const problem = problemFor(err, 'about:blank');
      if (options.json) process.stdout.write(`${JSON.stringify({ input: job.input, output: job.output, status: 'failed', problem })}\n`);
      else process.stderr.write(`pdfsvc: ${job.input}: ${describe(err)}\n`);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stderr.write(`pdfsvc: ${done} done, ${failed} failed, ${formatBytes(bytesIn)} in, ${formatBytes(bytesOut)} out, ${seconds.toFixed(1)} s\n`);
  return failed === 0 ? 0 : invalid ? 2 : 1;
}

function describe(err: unknown): string {
  if (err instanceof ValidationError) return Object.entries(err.errors).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`)).join('; ');
  return (err as Error)?.message ?? String(err);
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
