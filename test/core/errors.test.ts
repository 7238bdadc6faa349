/**
 * Every code of the closed set (core/errors.ts ERROR_CODES) is what a real
 * input gets, with the field and the message a user reads, and the same code
 * reaches a client three ways: the library's ValidationError, the HTTP
 * problem object, and the problem `pdfsvc … --json` prints.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findAction } from '../../src/actions/index.js';
import { kebabName } from '../../src/core/action.js';
import { ERROR_CODES, ValidationError, type ErrorCode } from '../../src/core/errors.js';
import { runAction } from '../../src/core/run.js';
import type { RawValues } from '../../src/core/fields.js';
import { createClient, PdfsvcHttpError } from '../../src/client/index.js';
import { formRequest, inProcessApp, keys } from '../server/harness.js';
import { fixture } from '../helpers/pdf-tools.js';
import { buildPdf, simpleDoc } from '../helpers/raw-pdf.js';

const hostile = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/out/hostile/${name}`, import.meta.url)));

interface Case {
  code: ErrorCode;
  action: string;
  values: Record<string, string | Uint8Array>;
  field: string;
  message: RegExp;
}

const CASES: Case[] = [
  {
    code: 'damaged',
    action: 'rotate_pages',
    values: { file: fixture('not-a-pdf.pdf'), angle: '90' },
    field: 'file',
    message: /^could not be parsed; it may be invalid or corrupt \(/,
  },
  {
    code: 'limit',
    action: 'rotate_pages',
    values: { file: hostile('nested-dicts-100000.pdf'), angle: '90' },
    field: 'file',
    message: /^passes a limit of what this service reads/,
  },
  {
    code: 'limit',
    action: 'add_image_watermark',
    values: { file: fixture('pages-1.pdf'), image: hostile('png-100000x100000.png') },
    field: 'image',
    message: /^declares 100000 x 100000 pixels/,
  },
  {
    code: 'encrypted',
    action: 'rotate_pages',
    values: { file: fixture('encrypted-user.pdf'), angle: '90' },
    field: 'file',
    message: /^the document is password-protected: call remove_password with its password first, then rotate_pages$/,
  },
  {
    code: 'restricted',
    action: 'reverse_pages',
    values: { file: fixture('restricted.pdf') },
    field: 'file',
    message: /^the document is encrypted with permission restrictions: call remove_restrictions first, then reverse_pages$/,
  },
  {
    code: 'unsupported_encryption',
    action: 'remove_password',
    values: { file: fixture('encrypted-certificate.pdf'), password: 'x' },
    field: 'file',
    message: /^the document is encrypted with a certificate/,
  },
  {
    code: 'wrong_password',
    action: 'remove_password',
    values: { file: fixture('encrypted-user.pdf'), password: 'not-it' },
    field: 'password',
    message: /^does not open the document/,
  },
  {
    code: 'signed',
    action: 'rotate_pages',
    values: { file: fixture('signed.pdf'), angle: '90' },
    field: 'file',
    message: /^the document is digitally signed \(1 signature\); any edit would invalidate it: call remove_signatures first, then rotate_pages$/,
  },
  {
    code: 'no_pages',
    action: 'split_by_page_count',
    values: { file: buildPdf([{ objects: simpleDoc([]).objects }]).bytes, page_count: '1' },
    field: 'file',
    message: /^the document has no pages, so there is nothing to split$/,
  },
  {
    code: 'page_out_of_range',
    action: 'extract_pages',
    values: { file: fixture('pages-3.pdf'), pages: '2..9' },
    field: 'pages',
    message: /^page "9" in "2\.\.9" does not exist \(the document has 3 pages\)/,
  },
  {
    code: 'bad_image',
    action: 'add_image_watermark',
    values: { file: fixture('pages-1.pdf'), image: fixture('pages-1.pdf') },
    field: 'image',
    message: /^must be a PNG or JPEG image; got a PDF document/,
  },
  {
    code: 'unsupported_character',
    action: 'add_text_watermark',
    values: { file: fixture('pages-1.pdf'), line_1: 'fine', line_2: 'Tangut 𗀀' },
    field: 'line_2',
    message: /^the character "𗀀" \(U\+17000[^)]*\) is not in the fonts pdfsvc ships/,
  },
];

const name = (c: Case) => `${c.code}: ${c.action} (${c.field})`;

it('every code of the closed set has a case here', () => {
  expect(new Set(CASES.map((c) => c.code))).toEqual(new Set(Object.keys(ERROR_CODES)));
});

it("the README's table of codes lists the closed set, in its order", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('#### Error codes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| `code` |')));
  expect([...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]).filter((code) => code !== 'code')).toEqual(Object.keys(ERROR_CODES));
});

describe.each(CASES.map((c) => [name(c), c] as const))('%s', (_, c) => {
  it('the library throws a ValidationError on the field, with the code', async () => {
    const error = await runAction(findAction(c.action)!, c.values as RawValues).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ValidationError);
    const { errors, code } = error as ValidationError;
    expect(Object.keys(errors)).toEqual([c.field]);
    expect(errors[c.field][0]).toMatch(c.message);
    expect(code).toBe(c.code);
  });

  it("the HTTP problem carries the code beside errors, and the HTTP client's error has it", async () => {
    const app = inProcessApp('global');
    const response = await app.fetch(
      formRequest(
        `http://pdfsvc.test/v1/${c.action}`,
        Object.entries(c.values).map(([k, v]) => [k, typeof v === 'string' ? v : { bytes: v, filename: `${k}.bin` }]),
        { 'x-api-key': keys.business },
      ),
    );
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: Record<string, string[]>; code?: string };
    expect(problem.code).toBe(c.code);
    expect(problem.errors[c.field][0]).toMatch(c.message);

    const client = createClient({ baseUrl: 'http://pdfsvc.test', apiKey: keys.business, fetch: async (input, init) => app.fetch(new Request(input, init)) });
    const error = (await client.call(c.action, c.values).catch((err: unknown) => err)) as PdfsvcHttpError;
    expect(error).toBeInstanceOf(PdfsvcHttpError);
    expect([error.status, error.code]).toEqual([400, c.code]);
  });
});

describe('pdfsvc … --json prints the problem with its code', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-codes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(CASES.map((c) => [name(c), c] as const))('%s', async (_, c) => {
    const action = findAction(c.action)!;
    const args = [kebabName(action.name), '--json', '-o', join(dir, `${c.code}-out`)];
    for (const [field, value] of Object.entries(c.values)) {
      if (field === 'file') {
        const path = join(dir, `${c.code}-${c.field}-input`);
        writeFileSync(path, value);
        args.push(path);
      } else if (typeof value === 'string') args.push(`--${kebabName(field)}`, value);
      else {
        const path = join(dir, `${c.code}-${field}`);
        writeFileSync(path, value);
        args.push(`--${kebabName(field)}`, path);
      }
    }
    const { exitCode, stderr, stdout } = await execa('node', ['bin/pdfsvc.js', ...args], { reject: false });
    expect(exitCode, stderr).toBe(2);
    expect(stdout).toBe('');
    const problem = JSON.parse(stderr) as { status: number; errors: Record<string, string[]>; code?: string };
    expect(problem).toMatchObject({ status: 400, code: c.code });
    expect(problem.errors[c.field][0]).toMatch(c.message);
  });
});
