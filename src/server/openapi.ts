/**
 * The OpenAPI 3.1 document, generated from the action declarations: every
 * action with its fields as the server checks them (unknown fields refused,
 * lengths, ranges, page syntax as a pattern), every status the server can
 * answer on each path with its problem object, and the paths that need no
 * key (/healthz, this document, /docs, the error pages).
 *
 * test/server/openapi.contract.test.ts drives a real server from this
 * document alone and fails on any answer it does not declare; the same test
 * file lints it with Redocly's recommended rules and calls actions through a
 * client generated from it.
 */
import type { AnyAction } from '../core/action.js';
import { describeDefault, describeFileParts, describeRules, MAX_INTEGER, type Field, type PagesField } from '../core/fields.js';
import { sayText } from '../core/words.js';
import { MEDIA_TYPES } from '../core/packaging.js';
import { MAX_PAGE_SPEC_LENGTH } from '../core/pages.js';
import { ERROR_CODES } from '../core/errors.js';
import { STATUSES } from '../core/problem.js';
import { PLAN_REGIONS, PLANS, REGIONS, type Region } from './keys.js';

type Schema = Record<string, unknown>;

/** Page syntax (core/pages.ts) as patterns: a page is a signed number other than 0; whitespace may surround items and "..". */
const PAGE = '-?0*[1-9][0-9]*';
const ITEM = `\\s*(?:${PAGE}(?:\\s*\\.\\.(?:\\s*${PAGE})?)?|\\.\\.(?:\\s*${PAGE})?)\\s*`;
const LIST = `${ITEM}(?:,${ITEM})*`;
const PAGE_PATTERNS: Record<PagesField['form'], string> = {
  set: `^${LIST}$`,
  ordered: `^${LIST}$`,
  groups: `^${LIST}(?:;${LIST})*$`,
  single: `^\\s*${PAGE}\\s*$`,
};
const PAGE_EXAMPLES: Record<PagesField['form'], string[]> = {
  set: ['1..3,5', '2..', '-1'],
  ordered: ['3,1,2', '5..1', '1,1,2'],
  groups: ['1..3;4,6;7..', '1;2'],
  single: ['2', '-1'],
};

const NUMBER_FORMS = 'Sent as text: decimal (12, 12.5, -0.5, .5) or the exponent form (1e-3) that String(n) writes for very small numbers.';
const INTEGER_FORMS = `Sent as decimal digits with an optional sign, up to 2^53 - 1 (${MAX_INTEGER}).`;

function schemaFor(name: string, field: Field): Schema {
  const parts = field.kind === 'file' ? describeFileParts(name, field) : undefined;
  const description = `${sayText(field.help)} Rules: ${describeRules(field)}${parts ? ` (${parts})` : ''}.`;
  switch (field.kind) {
    case 'file': {
      const binary = { type: 'string', format: 'binary', contentMediaType: field.accepts === 'pdf' ? 'application/pdf' : 'image/*' };
      return field.multiple ? { type: 'array', items: binary, minItems: 1, description } : { ...binary, description };
    }
    case 'text': {
      const printable = field.printableAscii ? '[\\x20-\\x7e]' : undefined;
      // An empty user_password means none (docs/contract.md, "Fields"): empty, or within the rules.
      const emptyOk = field.emptyMeansAbsent && field.minLength !== undefined;
      return {
        type: 'string',
        // A required field that may be empty (remove_password's password) is sent, empty or not: no minLength.
        ...(emptyOk ? {} : { minLength: field.minLength ?? (field.required && !field.emptyFor ? 1 : undefined) }),
        maxLength: field.maxLength,
        ...(printable ? { pattern: emptyOk ? `^(?:${printable}{${field.minLength},${field.maxLength ?? ''}})?$` : `^${printable}*$` } : {}),
        ...(field.secret ? { format: 'password', writeOnly: true } : {}),
        description: emptyOk ? `${description} Empty means none.` : description,
      };
    }
    case 'integer':
      return {
        type: 'integer',
        ...(field.oneOf ? { enum: [...field.oneOf] } : {}),
        minimum: field.min ?? -MAX_INTEGER,
        maximum: field.max ?? MAX_INTEGER,
        default: field.default,
        description: `${description} ${INTEGER_FORMS}`,
      };
    case 'number':
      return {
        type: 'number',
        minimum: field.min,
        maximum: field.max,
        default: field.default,
        description: `${description}${field.defaultHelp ? ` Default: ${field.defaultHelp}.` : ''} ${NUMBER_FORMS}`,
      };
    case 'boolean':
      return {
        type: 'boolean',
        default: field.default,
        description: `${description} Sent as the text true or false; anything else, the empty value included, is a 400.`,
      };
    case 'choice':
      return { type: 'string', enum: [...field.values], default: field.default, description };
    case 'color':
      return { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', default: field.default, description };
    case 'pages': {
      const fallback = describeDefault(field);
      return {
        type: 'string',
        minLength: 1,
        maxLength: MAX_PAGE_SPEC_LENGTH,
        pattern: PAGE_PATTERNS[field.form],
        description: `${description}${fallback ? ` Default: ${fallback}.` : ''} A page the document does not have is a 400 too.`,
      };
    }
  }
}

/** The declared example first (a value this action takes), then for page syntax the other forms it accepts. */
function examplesOf(field: Field): Schema {
  if (field.kind === 'file') return {};
  const forms = field.kind === 'pages' ? PAGE_EXAMPLES[field.form] : [];
  return { examples: [field.example, ...forms.filter((example) => example !== field.example)] };
}

/** The form of one action: its fields, nothing else (an unknown field is a 400), with merge's numbered alternative to the repeated part. */
function requestSchema(action: AnyAction): { schema: Schema; encoding: Record<string, Schema> } {
  const fields = action.fields as Record<string, Field>;
  const properties: Record<string, Schema> = {};
  const encoding: Record<string, Schema> = {};
  const required: string[] = [];
  const form: Schema = {};
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = JSON.parse(JSON.stringify({ ...schemaFor(name, field), ...examplesOf(field) })) as Schema;
    if (field.kind === 'file') {
      const contentType = field.accepts === 'pdf' ? 'application/pdf' : 'image/png, image/jpeg';
      encoding[name] = { contentType, ...(field.multiple ? { style: 'form', explode: true } : {}) };
      if (field.multiple) {
        const numbered = Array.from({ length: field.multiple.numberedUpTo }, (_, i) => `${name}_${i + 1}`);
        for (const [i, alt] of numbered.entries()) {
          properties[alt] = {
            type: 'string',
            format: 'binary',
            contentMediaType: 'application/pdf',
            description: `Document ${i + 1}, for clients that cannot repeat the ${name} part; merged in numeric order. Not together with ${name}.`,
          };
          encoding[alt] = { contentType };
        }
        // At least one document (the form has no other fields), as repeated
        // parts or numbered ones, not both: with the repeated part, it is the only property.
        Object.assign(form, { minProperties: 1, dependentSchemas: { [name]: { maxProperties: 1 } } });
        continue;
      }
    }
    if (field.required) required.push(name);
  }
  return { schema: { type: 'object', additionalProperties: false, properties, required, ...form }, encoding };
}

const problemRef = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });
const REGION_HEADER = { 'X-Region': { $ref: '#/components/headers/X-Region' } };

/** Statuses Node or the app may answer on any path before it is routed (a malformed request, slow or huge headers, an Expect). */
const ANY_REQUEST = [400, 408, 417, 431];

/** What every action may answer besides 200, in the order the checks run (docs/contract.md, "HTTP"). */
function actionStatuses(action: AnyAction): number[] {
  return [400, 401, 403, ...(action.output === 'documents' ? [406] : []), 408, 413, 415, 417, 429, 431, 500, 503];
}

function responsesOf(statuses: number[], success: Record<string, Schema>): Record<string, unknown> {
  const responses: Record<string, unknown> = { ...success };
  for (const status of statuses) responses[status] = problemRef(status);
  return responses;
}

const ACCEPT_DESCRIPTION =
  'How the output documents are packaged: application/zip (the default, also when no Accept is sent), application/json (an envelope with base64 documents) or multipart/mixed (one PDF part each). A list with q-values is read as RFC 9110 §12.5.1 says, the best-ranked of the three winning. An Accept that allows none of them, including a bare */* (what curl, fetch and requests send by default) and application/pdf, is answered 406: a client that accepts anything has not said which packaging it can read (the service contract says so). Send no Accept header for ZIP.';

function actionOperation(action: AnyAction): Record<string, unknown> {
  const { schema, encoding } = requestSchema(action);
  const splits = action.output === 'documents';
  const rateHeaders = {
    'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
    'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
    'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  };
  const success = splits
    ? {
        description: 'The output documents (00001.pdf, 00002.pdf, …), packaged as the Accept header asks: ZIP by default.',
        headers: { ...REGION_HEADER, ...rateHeaders },
        content: {
          [MEDIA_TYPES.zip]: { schema: { type: 'string', format: 'binary', contentMediaType: MEDIA_TYPES.zip } },
          [MEDIA_TYPES.json]: { schema: { $ref: '#/components/schemas/DocumentsEnvelope' } },
          [MEDIA_TYPES.multipart]: { schema: { type: 'string', format: 'binary', contentMediaType: MEDIA_TYPES.multipart } },
        },
      }
    : {
        description: 'The resulting PDF.',
        headers: { ...REGION_HEADER, ...rateHeaders },
        content: { 'application/pdf': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/pdf' } } },
      };
  return {
    operationId: action.name,
    summary: sayText(action.summary),
    description: [
      action.description && sayText(action.description),
      splits ? `Accept: ${ACCEPT_DESCRIPTION}` : 'The answer is application/pdf whatever Accept says.',
    ]
      .filter(Boolean)
      .join('\n\n'),
    tags: [action.group],
    ...(splits
      ? {
          parameters: [
            {
              name: 'Accept',
              in: 'header',
              required: false,
              description: `${ACCEPT_DESCRIPTION} (OpenAPI tools may ignore an Accept parameter and read the 200 response's media types instead: they are the same three.)`,
              schema: { type: 'string', enum: [MEDIA_TYPES.zip, MEDIA_TYPES.json, MEDIA_TYPES.multipart], default: MEDIA_TYPES.zip },
            },
          ],
        }
      : {}),
    requestBody: { required: true, content: { 'multipart/form-data': { schema, encoding } } },
    responses: responsesOf(actionStatuses(action), { 200: success }),
  };
}

/** GET (and HEAD, RFC 9110 §9.3.2) paths that need no key. */
function serviceOperation(
  operationId: string,
  summary: string,
  description: string,
  success: Record<string, unknown>,
  extra: number[] = [],
): Record<string, unknown> {
  return {
    operationId,
    summary,
    description: `${description} No key needed. HEAD answers the same headers without the body; other methods are 405 with Allow: GET, HEAD.`,
    tags: ['service'],
    security: [],
    responses: responsesOf(
      [...ANY_REQUEST, ...extra].sort((a, b) => a - b),
      { 200: { headers: REGION_HEADER, ...success } },
    ),
  };
}

/** Region names as the contract gives them, and the name of each one's base URL there (docs/contract.md, "HTTP"). */
const REGION_NAMES: Record<Region, [string, string]> = {
  global: ['Global', 'base_url'],
  us: ['United States', 'base_url_us'],
  'us-hipaa': ['US HIPAA', 'base_url_hipaa'],
  eu: ['European Union', 'base_url_eu'],
  uk: ['United Kingdom', 'base_url_uk'],
  ca: ['Canada', 'base_url_ca'],
  au: ['Australia', 'base_url_au'],
  jp: ['Japan', 'base_url_jp'],
  in: ['India', 'base_url_in'],
  br: ['Brazil', 'base_url_br'],
};

function servers(region: Region): unknown[] {
  const plans = (r: Region) => PLANS.filter((plan) => PLAN_REGIONS[plan].includes(r)).join(', ');
  return [
    // Relative: resolved against where this document was fetched (OpenAPI 3.1 §4.8.5).
    { url: '/', description: `This server: region ${region} (${REGION_NAMES[region][0]}), where this document was fetched from.` },
    ...REGIONS.map((r) => {
      const [name, variable] = REGION_NAMES[r];
      return {
        url: `{${variable}}`,
        description: `${name} (region ${r}; plans: ${plans(r)}). The same paths, fields and key on every region; only the base URL differs, and the request is processed in this region.`,
        variables: {
          [variable]: {
            default: `https://${r}.pdfsvc.invalid`,
            description: `The base URL of your ${name} server (the contract's {${variable}}): a pdfsvc serve --region ${r}.`,
          },
        },
      };
    }),
  ];
}

/** The shared problem responses of the statuses the operations name. */
function problemResponses(used: Set<number>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of [...used].sort((a, b) => a - b)) {
    const { title, explanation } = STATUSES[status];
    const headers: Record<string, unknown> = { ...REGION_HEADER };
    if (status === 405)
      headers.Allow = { description: 'The methods this path takes: POST for actions, GET, HEAD for the others.', required: true, schema: { type: 'string' } };
    if (status === 429 || status === 503) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    // Every answer after the key's request was counted (all but the path, method and key checks' and the HTTP parser's).
    if (![401, 403, 404, 405, 417, 431].includes(status)) {
      headers['RateLimit-Limit'] = { $ref: '#/components/headers/RateLimit-Limit' };
      headers['RateLimit-Remaining'] = { $ref: '#/components/headers/RateLimit-Remaining' };
      headers['RateLimit-Reset'] = { $ref: '#/components/headers/RateLimit-Reset' };
    }
    const when = status === 429 ? ' Only on a server started with --rate-limit.' : '';
    responses[`Problem${status}`] = {
      description: `${title} ${explanation}${when}`,
      headers,
      content: {
        'application/problem+json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Problem' },
              { type: 'object', properties: { status: { type: 'integer', const: status }, type: { type: 'string', pattern: `/${status}$` } } },
            ],
          },
        },
      },
    };
  }
  return responses;
}

export function openApiDocument(actions: readonly AnyAction[], version: string, region: Region = 'global'): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const action of actions) paths[`/v1/${action.name}`] = { post: actionOperation(action) };
  paths['/healthz'] = {
    get: serviceOperation(
      'healthz',
      'Health of this server',
      "For load balancers and autoscalers: answers while the workers are busy (the main thread never does PDF work), with the worker pool's and the memory budget's state.",
      {
        description: 'The server is up.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
      },
    ),
  };
  paths['/v1/openapi.json'] = {
    get: serviceOperation('openapi', 'This OpenAPI document', 'The OpenAPI 3.1 document of every action, generated from the action declarations.', {
      description: 'This document.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['openapi', 'info', 'paths'],
            properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
          },
        },
      },
    }),
  };
  paths['/docs'] = {
    get: serviceOperation(
      'docs',
      'API reference page',
      'One self-contained HTML page generated from this document (no CDN, works offline): every action with its fields, a curl example and a form to try it.',
      {
        description: 'The reference page.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    ),
  };
  paths['/v1/errors/{status}'] = {
    get: {
      ...serviceOperation(
        'error_page',
        'What a problem type means',
        "Every problem object's type is <error type base>/<status>; by default that is this path, a short page on the status and what to do.",
        { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        [404],
      ),
      parameters: [
        {
          name: 'status',
          in: 'path',
          required: true,
          description: 'An HTTP status this server answers with a problem object; any other is 404.',
          schema: { type: 'integer', enum: Object.keys(STATUSES).map(Number) },
        },
      ],
    },
  };
  const used = new Set<number>();
  for (const item of Object.values(paths) as Array<Record<string, { responses: Record<string, unknown> }>>) {
    for (const operation of Object.values(item)) for (const status of Object.keys(operation.responses)) if (status !== '200') used.add(Number(status));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'pdfsvc',
      version,
      description:
        'PDF actions over HTTP. Every action is POST /v1/<action> with a multipart/form-data body and an X-API-Key header. Single-document actions answer application/pdf; split actions answer with the packaging their Accept header asks for. Every failure is an application/problem+json object (RFC 9457) whose type ends in its status. Every answer carries X-Region.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: servers(region),
    tags: [
      { name: 'security', description: 'Passwords, permissions and signatures.' },
      { name: 'pages', description: 'Page operations: reorder, extract, rotate, reverse, remove, merge.' },
      { name: 'split', description: 'Several output documents, packaged by the Accept header.' },
      { name: 'watermark', description: 'Text and image watermarks, placed as the reader sees each page.' },
      { name: 'service', description: 'Health, this document, the reference page and the error pages: GET and HEAD, no key.' },
    ],
    security: [{ ApiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: `A key from pdfsvc keys create; one key works on every region its plan includes (${PLANS.map((plan) => `${plan[0].toUpperCase()}${plan.slice(1)}: ${PLAN_REGIONS[plan] === REGIONS ? 'all' : PLAN_REGIONS[plan].join(', ')}`).join('; ')}).`,
        },
      },
      headers: {
        'X-Region': { description: 'The region that answered.', schema: { type: 'string', enum: [...REGIONS] } },
        'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Limit': { description: "Requests the key's plan may make per window (only with --rate-limit).", schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Remaining': { description: 'Requests left in this window (only with --rate-limit).', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Reset': { description: 'Seconds until the next window starts (only with --rate-limit).', schema: { type: 'integer', minimum: 0 } },
      },
      responses: problemResponses(used),
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details.',
          required: ['type', 'title', 'status'],
          properties: {
            type: { type: 'string', format: 'uri', description: 'The error type base and the status: <error type base>/<status>.' },
            title: { type: 'string', description: 'The same for every problem of this type.' },
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: { type: 'string', description: 'What went wrong with this request, when it is not a field.' },
            errors: {
              type: 'object',
              description: '400: each offending field (or body, or Content-Type) with messages that say what to change.',
              additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
            },
            code: {
              type: 'string',
              enum: Object.keys(ERROR_CODES),
              description: `400: what was wrong with a refused document, beside \`errors\`, for a client to branch on without reading messages; absent when a field's own value broke its rules. ${Object.entries(
                ERROR_CODES,
              )
                .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
                .join(' ')}`,
            },
          },
        },
        DocumentsEnvelope: {
          type: 'object',
          additionalProperties: false,
          required: ['documents'],
          properties: {
            documents: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'content', 'content_type'],
                properties: {
                  name: { type: 'string', pattern: '^[0-9]{5}\\.pdf$', description: '00001.pdf, 00002.pdf, … in order.' },
                  content: { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/pdf' },
                  content_type: { type: 'string', const: 'application/pdf' },
                },
              },
            },
          },
        },
        Health: {
          type: 'object',
          required: ['status', 'region', 'version', 'in_flight'],
          properties: {
            status: { type: 'string', const: 'ok' },
            region: { type: 'string', enum: [...REGIONS] },
            version: { type: 'string' },
            in_flight: { type: 'integer', minimum: 0, description: 'Action requests being handled now.' },
            workers: {
              type: 'object',
              required: ['threads', 'busy', 'queued', 'max_queue'],
              properties: {
                threads: { type: 'integer', minimum: 1 },
                busy: { type: 'integer', minimum: 0 },
                queued: { type: 'integer', minimum: 0 },
                max_queue: { type: 'integer', minimum: 0 },
              },
            },
            memory: {
              type: 'object',
              required: ['max_bytes', 'in_use_bytes', 'refused'],
              properties: {
                max_bytes: { type: 'integer', minimum: 0 },
                in_use_bytes: { type: 'integer', minimum: 0 },
                refused: { type: 'integer', minimum: 0 },
              },
            },
          },
        },
      },
    },
  };
}
