/**
 * Judging encrypted outputs with qpdf and poppler: what `qpdf
 * --show-encryption` reports, whether a password opens a file, and what
 * `pdfsig` finds. pdf-lib (which wrote the files) is never the judge.
 */
import { execa } from 'execa';
import { expect } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { tempFile } from './pdf-tools.js';

export interface Encryption {
  encrypted: boolean;
  R?: number;
  P?: number;
  userPassword?: string;
  ownerMatched: boolean;
  userMatched: boolean;
  /** qpdf's capability lines: `print low resolution` → true when allowed. */
  capabilities: Record<string, boolean>;
  streamMethod?: string;
  stringMethod?: string;
  fileMethod?: string;
}

/** `qpdf --show-encryption [--password=…]`; throws when the password opens nothing. */
export async function showEncryption(bytes: Uint8Array, password?: string): Promise<Encryption> {
  const args = ['--show-encryption', ...(password !== undefined ? [`--password=${password}`] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false });
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(`qpdf --show-encryption failed (${result.exitCode}): ${result.stderr}`);
  const out = result.stdout;
  if (/File is not encrypted/.test(out)) return { encrypted: false, ownerMatched: false, userMatched: false, capabilities: {} };
  const capabilities: Record<string, boolean> = {};
  for (const m of out.matchAll(/^([a-z ]+): (allowed|not allowed)$/gm)) capabilities[m[1]] = m[2] === 'allowed';
  return {
    encrypted: true,
    R: Number(/^R = (\d+)/m.exec(out)?.[1]),
    P: Number(/^P = (-?\d+)/m.exec(out)?.[1]),
    userPassword: /^User password = (.*)$/m.exec(out)?.[1],
    ownerMatched: /Supplied password is owner password/.test(out),
    userMatched: /Supplied password is user password/.test(out),
    capabilities,
    streamMethod: /^stream encryption method: (\S+)/m.exec(out)?.[1],
    stringMethod: /^string encryption method: (\S+)/m.exec(out)?.[1],
    fileMethod: /^file encryption method: (\S+)/m.exec(out)?.[1],
  };
}

/** Whether qpdf opens the file with this password (or none). */
export async function opensWith(bytes: Uint8Array, password?: string): Promise<boolean> {
  const args = ['--check', ...(password !== undefined ? [`--password=${password}`] : []), tempFile(bytes)];
  const result = await execa('qpdf', args, { reject: false });
  return result.exitCode === 0 || result.exitCode === 3;
}

/** `pdftotext [-upw password]` of the whole document. */
export async function text(bytes: Uint8Array, password?: string): Promise<string> {
  const args = [...(password !== undefined ? ['-upw', password] : []), tempFile(bytes), '-'];
  return (await execa('pdftotext', args)).stdout;
}

/** Signature field names that `pdfsig` reports (empty when it finds none). */
export async function signatureNames(bytes: Uint8Array): Promise<string[]> {
  const result = await execa('pdfsig', ['-nocert', tempFile(bytes)], { reject: false });
  const out = `${result.stdout}\n${result.stderr}`;
  if (/does not contain any signatures/.test(out)) return [];
  return [...out.matchAll(/Signature Field Name: (.*)$/gm)].map((m) => m[1].trim());
}

/** Runs something that must fail validation; returns `errors`. */
export async function refused(work: () => Promise<unknown>): Promise<Record<string, string[]>> {
  let caught: unknown;
  try {
    await work();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  return (caught as ValidationError).errors;
}

/** Every message of every field, joined: to check that no password leaked into one. */
export function allMessages(errors: Record<string, string[]>): string {
  return Object.values(errors).flat().join('\n');
}

/** The objects a test document's catalog lists in /Extra, in order, as qpdf reads them (a writer may number them anew). */
export async function extraObjects(path: string, password?: string): Promise<number[]> {
  const pw = password ? [`--password=${password}`] : [];
  const trailer = await execa('qpdf', [...pw, '--show-object=trailer', path]);
  const root = /\/Root (\d+) 0 R/.exec(trailer.stdout)![1];
  const catalog = await execa('qpdf', [...pw, `--show-object=${root}`, path]);
  const extra = /\/Extra \[([^\]]*)\]/.exec(catalog.stdout)![1];
  return [...extra.matchAll(/(\d+) 0 R/g)].map((m) => Number(m[1]));
}

/**
 * `input` encrypted by qpdf with `password` (qpdf's global options, then its
 * --encrypt options), then decrypted by the built CLI's remove-password: the
 * output's path. Exit status 3 of qpdf is allowed: its warnings about the
 * input's reference to an object it lacks.
 */
export async function qpdfEncryptedThenRemoved(input: string, password: string, qpdfGlobal: string[], qpdfOptions: string[], cli: string): Promise<string> {
  const encrypted = tempFile(new Uint8Array(0));
  const made = await execa('qpdf', [...qpdfGlobal, '--encrypt', password, password, ...qpdfOptions, '--', input, encrypted], { reject: false });
  expect([0, 3], made.stderr).toContain(made.exitCode);
  const output = tempFile(new Uint8Array(0));
  await execa('node', [cli, 'remove-password', '--password', password, encrypted, '-o', output, '--force']);
  return output;
}
