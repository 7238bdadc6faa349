/**
 * The OpenAPI document is the contract a third party builds on, so a real
 * server is driven from the document it serves, and from nothing else:
 *
 * - a property-based tier (fast-check, seeded): requests generated from each
 *   operation's schema (valid and invalid values, missing and unknown fields,
 *   every Accept, a missing or wrong key, the wrong media type) go to a real
 *   `pdfsvc serve`; every answer's status must be declared for that
 *   operation, its media type declared for that status, its declared required
 *   headers present, and its body must match the declared schema (Ajv with
 *   JSON Schema 2020-12, the dialect of OpenAPI 3.1);
 * - the statuses the generator cannot reach on a default server (429 with
 *   --rate-limit, 413, 431, 417) are provoked and judged the same way;
 * - the document passes Redocly's recommended rules (with telemetry off, so
 *   the linter makes no network request).
 *
 * The only inputs besides the document are test PDFs and a PNG, the bytes a
 * file field's contentMediaType asks for.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { execa } from 'execa';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { fixture } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/render.js';
import { ROOT, send, serve, tempDir, type Reply, type Served } from './spawn.js';

// A CommonJS module whose module.exports is the plugin: TypeScript (NodeNext) types the default import as the module.
const addFormats = ajvFormats as unknown as typeof ajvFormats.default;

type Json = Record<string, unknown>;
interface Schema {
  type?: string | string[];
  format?: string;
  contentMediaType?: string;
  enum?: unknown[];
  examples?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}
interface MediaType {
  schema?: Schema & { $ref?: string };
}
interface ResponseObject {
  description: string;
  headers?: Record<string, { required?: boolean; schema?: Schema } | { $ref: string }>;
  content?: Record<string, MediaType>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType & { schema: Schema }> };
  responses: Record<string, ResponseObject | { $ref: string }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> } & Json;
  security?: Array<Record<string, unknown>>;
}

/** Base seed of the runs; each operation adds its index. A failure prints its seed and path to replay. */
const SEED = 20_260_521;
/** Runs per operation: about 550 requests in all, under a minute on a busy 2-core machine. */
const RUNS = { action: 30, read: 10 };

let served: Served;
let doc: Document;
let ajv: Ajv2020;
beforeAll(async () => {
  served = await serve({ args: ['--workers', '2'] });
  const reply = await send(`${served.base}/v1/openapi.json`);
  expect(reply.status).toBe(200);
  doc = JSON.parse(reply.body.toString('utf8')) as Document;
  ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // OpenAPI 3.1's dialect: its own keywords, and formats that only annotate.
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
  for (const format of ['binary', 'password']) ajv.addFormat(format, true);
  // Schemas are compiled from where they sit in the document, so that
  // #/components/… resolves: the document's paths and components under a
  // root that is itself a (trivial) schema, its two keys known to Ajv as
  // annotations.
  ajv.addKeyword('paths').addKeyword('components');
  ajv.addSchema({ $id: 'openapi.json', paths: doc.paths, components: doc.components });
}, 60_000);
afterAll(() => served.stop());

/** Follows a `#/…` reference inside the document (responses, headers; schemas are Ajv's). */
function deref<T>(value: T | { $ref: string }): T {
  if (!value || typeof value !== 'object' || !('$ref' in value)) return value as T;
  let target: unknown = doc;
  for (const key of value.$ref.replace(/^#\//, '').split('/')) target = (target as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  return deref(target as T | { $ref: string });
}

/** The JSON pointer of a location in the document, for Ajv. */
const pointer = (...keys: string[]) => `openapi.json#/${keys.map((k) => k.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const compiled = new Map<string, ValidateFunction>();
function validator(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

/** Judges one answer against what the document declares for the operation; returns the status. */
async function judge(path: string, method: string, operation: Operation, response: Response, what: string): Promise<number> {
  const body = new Uint8Array(await response.arrayBuffer());
  const text = () => Buffer.from(body.subarray(0, 300)).toString('utf8');
  const status = String(response.status);
  expect(operation.responses[status] ?? operation.responses.default, `${what}: status ${status} is not declared (${text()})`).toBeDefined();
  // Declared for actions (docs/contract.md, "HTTP"), but an internal failure is a bug whatever the request.
  expect(response.status, `${what}: ${text()}`).not.toBe(500);
  const declared = deref(operation.responses[status] ?? operation.responses.default);
  const key = operation.responses[status] ? status : 'default';
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const { required, schema } = deref(header);
    const value = response.headers.get(name);
    if (required) expect(value, `${what}: ${status} needs header ${name}`).not.toBeNull();
    if (value !== null && schema) {
      const typed = schema.type === 'integer' ? Number(value) : value;
      expect(ajv.validate(schema, typed), `${what}: header ${name}: ${value}`).toBe(true);
    }
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  const media = declared.content?.[mediaType];
  expect(media, `${what}: ${status} with ${mediaType} is not declared (declared: ${Object.keys(declared.content ?? {}).join(', ')})`).toBeDefined();
  const where = ['paths', path, method, 'responses', key, 'content', mediaType, 'schema'];
  // A shared response ($ref) is judged where it is defined.
  const ref = (operation.responses[status] ?? operation.responses.default) as { $ref?: string };
  const location = ref.$ref ? `openapi.json${ref.$ref}/content/${mediaType.replaceAll('/', '~1')}/schema` : pointer(...where);
  if (/json$/.test(mediaType)) {
    const validate = validator(location);
    const value = JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
    expect(validate(value), `${what}: ${status} body does not match its schema: ${ajv.errorsText(validate.errors)} in ${text()}`).toBe(true);
  } else {
    const schema = media!.schema as Schema;
    // Binary bodies: the media type's own signature.
    const starts = (magic: string) => Buffer.from(body.subarray(0, magic.length)).toString('latin1') === magic;
    if (schema.format === 'binary' && mediaType === 'application/pdf') expect(starts('%PDF-'), what).toBe(true);
    else if (schema.format === 'binary' && mediaType === 'application/zip') expect(starts('PK\x03\x04'), what).toBe(true);
    else if (schema.format === 'binary' && mediaType === 'multipart/mixed') {
      const boundary = /boundary="?([^";]+)/.exec(response.headers.get('content-type') ?? '')?.[1];
      expect(boundary && Buffer.from(body).includes(`--${boundary}--`), `${what}: multipart/mixed with its closing delimiter`).toBe(true);
    } else expect(validator(location)(Buffer.from(body).toString('utf8')), what).toBe(true);
  }
  return response.status;
}

// --- Generators, from a schema alone --------------------------------------

const OMIT = Symbol('omit');
type Value = string | Blob | Blob[] | typeof OMIT;
const pdfs = () => [fixture('pages-10.pdf'), fixture('pages-3.pdf')];
const PNG = makePng(40, 20, () => [200, 0, 0, 255]);
const blob = (bytes: Uint8Array, type: string) => new Blob([bytes as Uint8Array<ArrayBuffer>], { type });
const fileOf = (schema: Schema) =>
  schema.contentMediaType === 'application/pdf' ? fc.constantFrom(...pdfs()).map((b) => blob(b, 'application/pdf')) : fc.constant(blob(PNG, 'image/png'));
const junkFile = fc.uint8Array({ maxLength: 64 }).map((bytes) => blob(bytes, 'application/octet-stream'));
const isBinary = (schema: Schema) => schema.type === 'string' && schema.format === 'binary';
const INT32 = 2 ** 31 - 1;

function valid(schema: Schema): fc.Arbitrary<Value> {
  if (schema.type === 'array' && schema.items && isBinary(schema.items))
    return fc.array(fileOf(schema.items), { minLength: schema.minItems ?? 0, maxLength: 3 });
  if (isBinary(schema)) return fileOf(schema);
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  switch (schema.type) {
    case 'boolean':
      return fc.boolean().map(String);
    case 'integer': {
      const min = Math.max(schema.minimum ?? -INT32, -INT32);
      const max = Math.min(schema.maximum ?? INT32, INT32);
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(schema.minimum ?? min, schema.maximum ?? max)).map(String);
    }
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true }).map(String);
    default: {
      const lengthOk = (s: string) => [...s].length >= (schema.minLength ?? 0) && [...s].length <= (schema.maxLength ?? Infinity);
      const text = schema.pattern
        ? fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(lengthOk)
        : // Mostly ASCII; any grapheme now and then (a watermark line outside the shipped fonts is a 400, which the schema cannot say).
          choose(
            ...(['grapheme-ascii', 'grapheme-ascii', 'grapheme'] as const).map(
              (unit) =>
                [1, fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40), unit })] as [number, fc.Arbitrary<string>],
            ),
          );
      return schema.examples ? choose<Value>([3, fc.constantFrom(...schema.examples.map(String))], [1, text]) : text;
    }
  }
}

function invalid(schema: Schema): fc.Arbitrary<Value> {
  if (schema.type === 'array' || isBinary(schema)) return fc.oneof(junkFile, fc.constant('not a file'));
  const options: Array<fc.Arbitrary<Value>> = [fc.constant(''), fc.string({ maxLength: 12 })];
  if (schema.type === 'integer')
    options.push(fc.constantFrom('1.5', '1e3', '0x10', String((schema.maximum ?? 0) + 1), String((schema.minimum ?? 0) - 1), '99999999999999999999'));
  if (schema.type === 'number') options.push(fc.constantFrom('NaN', 'Infinity', '12,5', String((schema.maximum ?? 0) + 1), String((schema.minimum ?? 0) - 1)));
  if (schema.type === 'boolean') options.push(fc.constantFrom('TRUE', 'yes', '1', 'false '));
  if (schema.maxLength !== undefined) options.push(fc.constant('1'.repeat(schema.maxLength + 1)));
  return fc.oneof(...options);
}

/**
 * A weighted choice made without fast-check's bias (which favours the ends
 * of a range, and so the rare branches); the values chosen keep theirs.
 */
function choose<T>(...options: Array<[number, fc.Arbitrary<T>]>): fc.Arbitrary<T> {
  const tags = options.flatMap(([weight], i) => Array<number>(weight).fill(i));
  return fc.noBias(fc.constantFrom(...tags)).chain((i) => options[i][1]);
}

/** One field: a clean request sends required fields valid and optional ones valid or not at all; a mutated one also sends invalid values and leaves required ones out. */
function field(schema: Schema, required: boolean, clean: boolean): fc.Arbitrary<Value> {
  if (clean) return required ? valid(schema) : choose([1, fc.constant(OMIT)], [1, valid(schema)]);
  return required
    ? choose([6, valid(schema)], [3, invalid(schema)], [1, fc.constant(OMIT)])
    : choose([4, fc.constant(OMIT)], [3, valid(schema)], [3, invalid(schema)]);
}

/** Accept values: the packagings the operation declares, the q-lists clients send, and ones the server must refuse. */
function acceptOf(operation: Operation, clean: boolean): fc.Arbitrary<string | undefined> {
  const declared = Object.keys(deref(operation.responses['200']).content ?? {});
  const parameter = operation.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'accept');
  const offered = [...new Set([...declared, ...((parameter?.schema.enum as string[] | undefined) ?? [])])];
  const qList = fc
    .shuffledSubarray(offered, { minLength: 1 })
    .chain((types) => fc.tuple(...types.map((t) => fc.integer({ min: 1, max: 10 }).map((q) => `${t};q=${q / 10}`))))
    .map((items) => items.join(', '));
  const good = choose<string | undefined>([2, fc.constant(undefined)], [3, fc.constantFrom(...offered)], [1, qList]);
  // What a split action must refuse (a single-document action answers PDF whatever Accept says).
  const refused = fc.constantFrom('*/*', 'application/pdf', 'text/html, application/xhtml+xml', 'application/*', `${offered[0]};q=0`);
  return clean ? good : choose<string | undefined>([2, good], [1, refused]);
}

interface Generated {
  fields: Record<string, Value>;
  unknown?: [string, string];
  accept?: string;
  key: 'valid' | 'missing' | 'wrong';
  mediaType: 'declared' | 'urlencoded';
}

function requests(operation: Operation): fc.Arbitrary<Generated> {
  const form = operation.requestBody!.content['multipart/form-data'].schema;
  const properties = form.properties ?? {};
  const unknownName = fc.stringMatching(/^[a-z][a-z_]{0,11}$/).filter((name) => !(name in properties));
  const generated = (clean: boolean) =>
    fc.record({
      fields: fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, field(schema, (form.required ?? []).includes(name), clean)])),
      ),
      unknown: clean
        ? fc.constant(undefined)
        : choose<[string, string] | undefined>([3, fc.constant(undefined)], [1, fc.tuple(unknownName, fc.string({ maxLength: 8 }))]),
      accept: acceptOf(operation, clean),
      key: clean
        ? fc.constant<Generated['key']>('valid')
        : choose<Generated['key']>([6, fc.constant('valid')], [1, fc.constant('missing')], [1, fc.constant('wrong')]),
      mediaType: clean
        ? fc.constant<Generated['mediaType']>('declared')
        : choose<Generated['mediaType']>([8, fc.constant('declared')], [1, fc.constant('urlencoded')]),
    });
  // Half the runs are requests a careful client sends (they should mostly reach the action), half are mutated.
  return choose([1, generated(true)], [1, generated(false)]);
}

/**
 * The request as an HTTP client sends it: the form encoded by the platform's
 * FormData, the key where the security scheme says, sent with node:http so
 * that "no Accept" is no Accept (fetch would add `Accept: *\/*`).
 */
async function sendGenerated(url: string, operation: Operation, generated: Generated): Promise<Response> {
  const scheme = Object.keys((operation.security ?? doc.security ?? [])[0] ?? {})[0];
  const { name: keyHeader } = doc.components.securitySchemes[scheme];
  const headers: Record<string, string> = {};
  if (generated.key !== 'missing') headers[keyHeader] = generated.key === 'valid' ? served.key : `pdfsvc_${'x'.repeat(43)}`;
  if (generated.accept !== undefined) headers.accept = generated.accept;
  const form = new FormData();
  for (const [name, value] of Object.entries(generated.fields)) {
    if (value === OMIT) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') form.append(name, item);
      else form.append(name, item, `${name}.bin`);
    }
  }
  if (generated.unknown) form.append(...generated.unknown);
  let encoded: Response;
  if (generated.mediaType === 'urlencoded') {
    encoded = new Response(new URLSearchParams([...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string')));
  } else encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  const reply = await send(url, { body, headers: { ...headers, 'content-type': encoded.headers.get('content-type')! } });
  return asResponse(reply);
}

/** A node:http reply as a fetch Response, for judge(). */
function asResponse(reply: Reply): Response {
  const headers = Object.entries(reply.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value] as [string, string]] : []));
  return new Response(reply.status === 204 || reply.status === 304 ? null : new Uint8Array(reply.body), { status: reply.status, headers });
}

describe('every operation, driven from the served OpenAPI document alone (property-based)', () => {
  it('the document has the operations it should: every action of the catalog and the four read-only paths', () => {
    const all = operations();
    expect(all.filter(({ method }) => method === 'post').map(({ operation }) => operation.operationId)).toEqual(actions.map((action) => action.name));
    expect(
      all
        .filter(({ method }) => method === 'get')
        .map(({ path }) => path)
        .sort(),
    ).toEqual(['/docs', '/healthz', '/v1/errors/{status}', '/v1/openapi.json']);
  });

  // One test per operation, two at a time (the server has two workers).
  const names = actions.map((action) => action.name);
  it.concurrent.each(names.map((name, i) => [name, i] as const))(
    'POST /v1/%s: every answer is declared and matches its schema',
    async (name, index) => {
      const found = operations().find(({ operation }) => operation.operationId === name);
      expect(found, `${name} is in the document`).toBeDefined();
      const { path, method, operation } = found!;
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(requests(operation), async (generated) => {
          const response = await sendGenerated(`${served.base}${path}`, operation, generated);
          const status = await judge(
            path,
            method,
            operation,
            response,
            `${name} ${JSON.stringify(generated, (_, v) => (v instanceof Blob ? `<${v.size} bytes>` : v === OMIT ? '<omitted>' : v))}`,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }),
        { seed: SEED + index, numRuns: RUNS.action },
      );
      // The runs reached the action itself, not only the refusals in front of it.
      expect([...statuses.keys()], `${name}: statuses seen ${JSON.stringify([...statuses])}`).toContain(200);
      expect([...statuses.keys()].some((s) => s === 400)).toBe(true);
    },
    // A harness wait: add_text_watermark's 30 runs took 38 s alone at load 36, and over 240 s in a full run
    // at that load (sharing the server's two workers with the other operations and another test file).
    600_000,
  );

  it('GET paths (no key): every answer is declared and matches its schema', async () => {
    for (const [index, { path, method, operation }] of operations()
      .filter(({ method }) => method === 'get')
      .entries()) {
      const parameter = operation.parameters?.find((p) => p.in === 'path');
      const paths = parameter
        ? fc.oneof(valid(parameter.schema), fc.integer({ min: 100, max: 999 }).map(String)).map((value) => path.replace(`{${parameter.name}}`, String(value)))
        : fc.constant(path);
      await fc.assert(
        fc.asyncProperty(paths, async (concrete) => {
          await judge(path, method, operation, await fetch(`${served.base}${concrete}`), `GET ${concrete}`);
        }),
        { seed: SEED + 100 + index, numRuns: RUNS.read },
      );
    }
  });
});

describe('statuses a default server does not reach by chance, judged against the document', () => {
  it('429 with --rate-limit, 413 over --max-upload-bytes, 431 and 417 (answered by Node before the app): declared, with their schema and headers', async () => {
    const limited = await serve({ args: ['--workers', '1', '--rate-limit', 'business=2/min', '--max-upload-bytes', '5000'] });
    try {
      const path = '/v1/rotate_pages';
      const operation = doc.paths[path].post;
      const form = () => {
        const body = new FormData();
        body.append('file', blob(fixture('pages-1.pdf'), 'application/pdf'), 'in.pdf');
        body.append('angle', '90');
        return body;
      };
      const post = (init: RequestInit = {}) =>
        fetch(`${limited.base}${path}`, { method: 'POST', body: form(), ...init, headers: { 'x-api-key': limited.key, ...init.headers } });
      const statuses: number[] = [];
      statuses.push(await judge(path, 'post', operation, await post(), 'within the limit'));
      // pages-10.pdf is larger than 5000 bytes.
      const large = new FormData();
      large.append('file', blob(fixture('pages-10.pdf'), 'application/pdf'), 'big.pdf');
      statuses.push(await judge(path, 'post', operation, await post({ body: large }), 'over --max-upload-bytes'));
      statuses.push(await judge(path, 'post', operation, await post(), 'past the rate limit'));
      expect(statuses).toEqual([200, 413, 429]);

      // Node's own refusals, through node:http (fetch will not send these).
      for (const [headers, status] of [
        [{ 'x-big': 'a'.repeat(20_000) }, 431],
        [{ expect: 'teapot' }, 417],
      ] as const) {
        const reply = await send(`${limited.base}${path}`, { method: 'POST', headers: { ...headers, 'x-api-key': limited.key } });
        expect(await judge(path, 'post', operation, asResponse(reply), `headers ${Object.keys(headers)[0]}`)).toBe(status);
      }
    } finally {
      await limited.stop();
    }
  });
});

describe('Redocly CLI, recommended rules', () => {
  it('finds nothing to report in the served document, without touching the network', async () => {
    const file = join(tempDir('pdfsvc-openapi-lint-'), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const result = await execa(
      process.execPath,
      [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--extends', 'recommended', '--format', 'json', file],
      {
        reject: false,
        // Redocly sends usage telemetry and checks npm for updates unless told not to.
        env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
      },
    );
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(result.exitCode).toBe(0);
  });
});
