/** The OpenAPI 3.1 document, generated from the action declarations. */
import type { AnyAction } from '../core/action.js';
import { describeDefault, describeRules, type Field } from '../core/fields.js';
import { MEDIA_TYPES } from '../core/packaging.js';
import { STATUSES } from '../core/problem.js';

function schemaFor(field: Field): Record<string, unknown> {
  const description = `${field.help} Rules: ${describeRules(field)}.`;
  switch (field.kind) {
    case 'file':
      return field.multiple
        ? { type: 'array', items: { type: 'string', format: 'binary', contentMediaType: 'application/pdf' }, minItems: 1, description }
        : { type: 'string', format: 'binary', contentMediaType: field.accepts === 'pdf' ? 'application/pdf' : 'image/*', description };
    case 'text':
      return { type: 'string', minLength: field.minLength, maxLength: field.maxLength, ...(field.printableAscii ? { pattern: '^[\\x20-\\x7e]*$' } : {}), ...(field.secret ? { format: 'password', writeOnly: true } : {}), description };
    case 'integer':
      return { type: 'integer', ...(field.oneOf ? { enum: [...field.oneOf] } : {}), minimum: field.min, maximum: field.max, default: field.default, description };
    case 'number':
      return { type: 'number', minimum: field.min, maximum: field.max, default: field.default, description: field.defaultHelp ? `${description} Default: ${field.defaultHelp}.` : description };
    case 'boolean':
      return { type: 'boolean', default: field.default, description };
    case 'choice':
      return { type: 'string', enum: [...field.values], default: field.default, description };
    case 'color':
      return { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', default: field.default, description };
    case 'pages': {
      const fallback = describeDefault(field);
      return { type: 'string', maxLength: 1000, description: fallback ? `${description} Default: ${fallback}.` : description };
    }
  }
}

function problemResponse(status: number) {
  return {
    description: STATUSES[status].title,
    ...(status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } } } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

export function openApiDocument(actions: readonly AnyAction[], version: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const action of actions) {
    const fields = action.fields as Record<string, Field>;
    const properties: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(fields)) properties[name] = JSON.parse(JSON.stringify(schemaFor(field)));
    const required = Object.entries(fields).filter(([, f]) => f.required).map(([n]) => n);
    const success =
      action.output === 'document'
        ? { description: 'The resulting PDF.', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } }
        : {
            description: 'The output documents (00001.pdf, 00002.pdf, …), packaged by the Accept header: ZIP by default.',
            content: {
              [MEDIA_TYPES.zip]: { schema: { type: 'string', format: 'binary' } },
              [MEDIA_TYPES.json]: { schema: { $ref: '#/components/schemas/DocumentsEnvelope' } },
              [MEDIA_TYPES.multipart]: { schema: { type: 'string', format: 'binary' } },
            },
          };
    const responses: Record<string, unknown> = { 200: success };
    for (const status of [400, 401, 403, ...(action.output === 'documents' ? [406] : []), 408, 413, 415, 500, 503]) responses[status] = problemResponse(status);
    paths[`/v1/${action.name}`] = {
      post: {
        operationId: action.name,
        summary: action.summary,
        description: action.description,
        tags: [action.group],
        security: [{ ApiKey: [] }],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', properties, required },
              ...(Object.values(fields).some((f) => f.kind === 'file' && f.multiple) ? { encoding: { file: { style: 'form', explode: true } } } : {}),
            },
          },
        },
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'pdfsvc', version, description: 'PDF actions over HTTP. Every action is POST /v1/<action> with a multipart/form-data body and an X-API-Key header.' },
    paths,
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          },
        },
        DocumentsEnvelope: {
          type: 'object',
          required: ['documents'],
          properties: {
            documents: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'content', 'content_type'],
                properties: { name: { type: 'string' }, content: { type: 'string', contentEncoding: 'base64' }, content_type: { type: 'string', const: 'application/pdf' } },
              },
            },
          },
        },
      },
    },
  };
}
