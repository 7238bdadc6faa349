/**
 * GET /docs: an API reference page generated from the OpenAPI document, with
 * every action, its fields and responses, a curl example, and a form to try a
 * request from the browser. One self-contained HTML page (inline style and
 * script, no fonts, no CDN), so it works offline and behind any proxy; links
 * and requests are relative, so a path prefix in front of the server works
 * too. The Content-Security-Policy allows exactly the inline style and script
 * (by hash) and requests to this origin.
 */
import { createHash } from 'node:crypto';
import { ERROR_CODES } from '../core/errors.js';

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  writeOnly?: boolean;
  contentMediaType?: string;
  minItems?: number;
  examples?: unknown[];
}

interface FormSchema {
  properties?: Record<string, Schema>;
  required?: string[];
  /** merge_documents: at least one of the repeated part and its numbered alternatives. */
  minProperties?: number;
}

interface ResponseObject {
  description: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: FormSchema }> };
  responses: Record<string, ResponseObject | { $ref: string }>;
}

interface OpenApi {
  info: { title: string; version: string; description?: string };
  paths: Record<string, { post?: Operation }>;
  components?: { responses?: Record<string, ResponseObject> };
}

/** A response, or the shared one its `$ref` names (`#/components/responses/<name>`). */
function resolveResponse(doc: OpenApi, response: ResponseObject | { $ref: string }): ResponseObject {
  if (!('$ref' in response)) return response;
  return doc.components?.responses?.[response.$ref.replace('#/components/responses/', '')] ?? { description: '' };
}

/** A problem response's title: the first sentence of its description (the error page linked beside it explains the rest). */
function titleOf(description: string): string {
  return /^.*?\.(?=\s|$)/.exec(description)?.[0] ?? description;
}

/** The headers a response names, but X-Region, which every response has (the overview says so). */
function headerList(r: ResponseObject): string {
  const names = Object.keys(r.headers ?? {}).filter((name) => name !== 'X-Region');
  return names.length > 0 ? ` (headers: ${names.map(escape).join(', ')})` : '';
}

/**
 * The fields the page shows and which a request must send. The numbered
 * alternatives of a repeated part (merge's file_1 … file_N) are left out: the
 * part's description names them, and a form repeats a file input anyway. A
 * form that needs at least one of them (minProperties) needs the repeated part.
 */
function formFields(form: FormSchema): { properties: Record<string, Schema>; required: string[] } {
  const all = form.properties ?? {};
  const repeated = Object.keys(all).filter((name) => all[name].type === 'array');
  const properties = Object.fromEntries(Object.entries(all).filter(([name]) => !repeated.some((base) => new RegExp(`^${base}_\\d+$`).test(name))));
  const required = [...(form.required ?? []), ...((form.minProperties ?? 0) > 0 && (form.required ?? []).length === 0 ? repeated : [])];
  return { properties, required };
}

function escape(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `code` spans for backquoted words in declaration text. */
function prose(text: string | undefined): string {
  return escape(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}

function typeLabel(schema: Schema): string {
  if (schema.type === 'array') return `${typeLabel(schema.items ?? {})}, repeated`;
  if (schema.format === 'binary') return `file (${schema.contentMediaType ?? 'bytes'})`;
  if (schema.format === 'password') return 'password';
  if (schema.enum) return `one of ${schema.enum.map((v) => String(v)).join(', ')}`;
  const range = [schema.minimum !== undefined ? `≥ ${schema.minimum}` : '', schema.maximum !== undefined ? `≤ ${schema.maximum}` : '']
    .filter(Boolean)
    .join(', ');
  return `${schema.type ?? 'string'}${range ? ` (${range})` : ''}`;
}

/** The form control that sends one field. */
function control(operation: string, name: string, schema: Schema, required: boolean): string {
  const id = `f-${operation}-${name}`;
  const req = required ? ' required' : '';
  let input: string;
  if (schema.type === 'array' || schema.format === 'binary') {
    const accept = (schema.items ?? schema).contentMediaType === 'application/pdf' ? '.pdf,application/pdf' : 'image/*';
    input = `<input type="file" id="${id}" name="${escape(name)}" accept="${accept}"${schema.type === 'array' ? ' multiple' : ''}${req}>`;
  } else if (schema.enum || schema.type === 'boolean') {
    const values = schema.enum ?? [true, false];
    const options = values.map((v) => `<option value="${escape(v)}">${escape(v)}${v === schema.default ? ' (default)' : ''}</option>`).join('');
    input = `<select id="${id}" name="${escape(name)}"${req}><option value="">${required ? '— choose —' : '(not sent)'}</option>${options}</select>`;
  } else {
    const type = schema.format === 'password' ? 'password' : schema.type === 'integer' || schema.type === 'number' ? 'number' : 'text';
    const attrs = [
      type === 'number' && schema.minimum !== undefined ? ` min="${schema.minimum}"` : '',
      type === 'number' && schema.maximum !== undefined ? ` max="${schema.maximum}"` : '',
      type === 'number' && schema.type === 'number' ? ' step="any"' : '',
      schema.maxLength !== undefined ? ` maxlength="${schema.maxLength}"` : '',
      schema.default !== undefined ? ` placeholder="${escape(schema.default)}"` : '',
      type === 'password' ? ' autocomplete="off"' : '',
    ].join('');
    // Required but possibly empty (remove_password's password): the browser must not refuse it empty, and the form sends it.
    const sendsEmpty = required && schema.type === 'string' && schema.minLength === undefined;
    input = `<input type="${type}" id="${id}" name="${escape(name)}"${attrs}${sendsEmpty ? ' data-send-empty' : req}>`;
  }
  return `<div class="control"><label for="${id}"><code>${escape(name)}</code>${required ? ' <span class="req">required</span>' : ''}</label>${input}</div>`;
}

/** A value as one shell word: quoted when it holds anything but safe characters. */
function shellWord(text: string): string {
  return /^[\w.,:@%+=/-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

function curlExample(path: string, properties: Record<string, Schema>, required: string[], splits: boolean): string {
  const parts = ['curl -sS', '-H "X-API-Key: $KEY"'];
  if (splits) parts.push('-H "Accept: application/zip"');
  for (const [name, schema] of Object.entries(properties)) {
    if (!required.includes(name)) continue;
    if (schema.type === 'array') parts.push(`-F ${name}=@a.pdf -F ${name}=@b.pdf`);
    else if (schema.format === 'binary') parts.push(`-F ${name}=@${schema.contentMediaType === 'application/pdf' ? 'in.pdf' : 'image.png'}`);
    else {
      // curl -F reads ';' as the start of a part's parameters and a leading @ or < as a file: --form-string sends the text as it is.
      const value = String(schema.examples?.[0] ?? '…');
      parts.push(`${/[;@<]/.test(value) ? '--form-string' : '-F'} ${shellWord(`${name}=${value}`)}`);
    }
  }
  parts.push(`-o ${splits ? 'out.zip' : 'out.pdf'}`, `"$BASE${path}"`);
  return parts.join(' ');
}

function operationSection(doc: OpenApi, path: string, op: Operation): string {
  const { properties, required } = formFields(op.requestBody?.content['multipart/form-data']?.schema ?? {});
  const success = resolveResponse(doc, op.responses['200']);
  const successTypes = Object.keys(success?.content ?? {});
  const splits = successTypes.length > 1;
  const rows = Object.entries(properties)
    .map(
      ([name, schema]) =>
        `<tr><td><code>${escape(name)}</code></td><td>${escape(typeLabel(schema))}</td><td>${required.includes(name) ? 'yes' : 'no'}</td><td>${schema.default !== undefined ? `<code>${escape(schema.default)}</code>` : ''}</td><td>${prose(schema.description)}</td></tr>`,
    )
    .join('');
  const responses = Object.entries(op.responses)
    .map(([status, ref]) => {
      const r = resolveResponse(doc, ref);
      const types = Object.keys(r.content ?? {})
        .map((t) => `<code>${escape(t)}</code>`)
        .join(', ');
      const link = status === '200' ? escape(status) : `<a href="v1/errors/${escape(status)}">${escape(status)}</a>`;
      return `<li>${link} ${escape(status === '200' ? r.description : titleOf(r.description))}${types ? ` — ${types}` : ''}${headerList(r)}</li>`;
    })
    .join('');
  const accept = splits
    ? `<div class="control"><label for="f-${op.operationId}-accept"><code>Accept</code> (header)</label><select id="f-${op.operationId}-accept" data-header="Accept">${successTypes.map((t) => `<option>${escape(t)}</option>`).join('')}</select></div>`
    : '';
  const controls = Object.entries(properties)
    .map(([name, schema]) => control(op.operationId, name, schema, required.includes(name)))
    .join('');
  return `<section class="operation" id="op-${escape(op.operationId)}" data-operation="${escape(op.operationId)}">
<h2><span class="method">POST</span> <code>${escape(path)}</code></h2>
<p class="summary">${prose(op.summary)}</p>
${op.description ? `<p>${prose(op.description)}</p>` : ''}
<h3>Fields <small>(multipart/form-data)</small></h3>
${rows ? `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Default</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>None but the file.</p>'}
<h3>Responses</h3><ul class="responses">${responses}</ul>
<h3>Example</h3><pre class="example">${escape(curlExample(path, properties, required, splits))}</pre>
<details class="try"><summary>Try it</summary>
<form class="try-form" data-path="${escape(path.replace(/^\//, ''))}" data-operation="${escape(op.operationId)}">${accept}${controls}
<button type="submit">Send request</button></form>
<div class="result" hidden><p class="result-status"></p><pre class="result-body"></pre><a class="result-download" hidden>Download the result</a></div>
</details>
</section>`;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1d1f23;--muted:#5b616b;--bg:#fff;--panel:#f4f5f7;--line:#d9dce1;--accent:#0b63c5}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#a0a6b0;--bg:#16181c;--panel:#1f2228;--line:#343841;--accent:#6aa9ff}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:1.5rem 2rem;border-bottom:1px solid var(--line)}header h1{margin:0 0 .25rem}
.layout{display:flex;align-items:flex-start}nav{position:sticky;top:0;max-height:100vh;overflow:auto;min-width:15rem;padding:1rem 1.5rem;border-right:1px solid var(--line)}
nav h4{margin:1rem 0 .25rem;text-transform:capitalize;color:var(--muted)}nav ul{list-style:none;margin:0;padding:0}nav a{color:var(--accent);text-decoration:none}
main{flex:1;min-width:0;padding:1rem 2rem 4rem}section{border-bottom:1px solid var(--line);padding:1rem 0 1.5rem}
code,pre{font:13px/1.45 ui-monospace,monospace}pre{background:var(--panel);padding:.75rem;overflow:auto;border-radius:4px;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:var(--panel)}
.method{background:var(--accent);color:var(--bg);border-radius:3px;padding:0 .4rem;font-size:.8em}
.try{background:var(--panel);border-radius:4px;padding:.5rem 1rem;margin-top:1rem}.try summary{cursor:pointer;font-weight:600}
.control{display:grid;grid-template-columns:14rem 1fr;gap:.5rem;align-items:center;margin:.4rem 0}.req{color:#b3261e;font-size:.8em}
.auth{margin-top:.75rem}.auth input{width:28rem;max-width:100%}input,select,button{font:inherit}button{margin-top:.5rem;padding:.3rem 1rem}
.ok{color:#1a7f37}.fail{color:#b3261e}.field-error{grid-column:2;margin:0;color:#b3261e;font-size:.9em}`;

const SCRIPT = `
(() => {
  const keyInput = document.getElementById('api-key');
  for (const form of document.querySelectorAll('form.try-form')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const section = form.closest('section');
      const result = section.querySelector('.result');
      const status = result.querySelector('.result-status');
      const body = result.querySelector('.result-body');
      const download = result.querySelector('.result-download');
      const data = new FormData();
      for (const element of form.elements) {
        if (!element.name) continue;
        if (element.type === 'file') for (const file of element.files) data.append(element.name, file, file.name);
        else if (element.value !== '' || element.dataset.sendEmpty !== undefined) data.append(element.name, element.value);
      }
      const headers = { 'X-API-Key': keyInput.value.trim() };
      const accept = form.querySelector('[data-header="Accept"]');
      if (accept) headers.Accept = accept.value;
      result.hidden = false;
      status.className = 'result-status';
      status.textContent = 'Sending…';
      status.removeAttribute('data-status');
      body.textContent = '';
      for (const old of form.querySelectorAll('.field-error')) old.remove();
      for (const old of form.querySelectorAll('[aria-invalid]')) old.removeAttribute('aria-invalid');
      download.hidden = true;
      if (download.href) URL.revokeObjectURL(download.href);
      try {
        const started = performance.now();
        const response = await fetch(form.dataset.path, { method: 'POST', headers, body: data });
        const type = response.headers.get('content-type') || '';
        const blob = await response.blob();
        const ms = Math.round(performance.now() - started);
        status.dataset.status = String(response.status);
        status.classList.add(response.ok ? 'ok' : 'fail');
        status.textContent = [response.status + (response.statusText ? ' ' + response.statusText : ''), type.split(';')[0], blob.size + ' bytes', ms + ' ms'].filter(Boolean).join(' · ');
        if (/json/.test(type)) {
          const text = await blob.text();
          let parsed;
          try { parsed = JSON.parse(text); } catch {}
          body.textContent = (parsed === undefined ? text : JSON.stringify(parsed, null, 2)).slice(0, 20000);
          // A problem's field errors, also shown under the controls they are about.
          const errors = !response.ok && parsed && typeof parsed.errors === 'object' ? parsed.errors : {};
          for (const [name, messages] of Object.entries(errors || {})) {
            const element = form.elements.namedItem(name);
            const control = element && (element.closest ? element : element[0]);
            if (!control || !control.closest) continue;
            control.setAttribute('aria-invalid', 'true');
            const note = document.createElement('p');
            note.className = 'field-error';
            note.dataset.field = name;
            note.textContent = [].concat(messages).join(' ');
            control.closest('.control').append(note);
          }
        }
        if (response.ok) {
          const extension = /zip/.test(type) ? 'zip' : /json/.test(type) ? 'json' : /multipart/.test(type) ? 'multipart' : 'pdf';
          download.href = URL.createObjectURL(blob);
          download.download = form.dataset.operation + '.' + extension;
          download.hidden = false;
        }
      } catch (error) {
        status.dataset.status = 'error';
        status.classList.add('fail');
        status.textContent = 'The request failed: ' + error;
      }
    });
  }
})();`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export interface DocsPage {
  html: string;
  headers: Record<string, string>;
}

export function docsPage(document: Record<string, unknown>): DocsPage {
  const doc = document as unknown as OpenApi;
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => (item.post ? [[path, item.post] as const] : []));
  const groups = new Map<string, Array<readonly [string, Operation]>>();
  for (const entry of operations) {
    const tag = entry[1].tags?.[0] ?? 'actions';
    groups.set(tag, [...(groups.get(tag) ?? []), entry]);
  }
  const nav = [...groups]
    .map(
      ([tag, ops]) =>
        `<h4>${escape(tag)}</h4><ul>${ops.map(([, op]) => `<li><a href="#op-${escape(op.operationId)}">${escape(op.operationId)}</a></li>`).join('')}</ul>`,
    )
    .join('');
  const statuses = new Map<string, string>();
  for (const [, op] of operations)
    for (const [status, r] of Object.entries(op.responses)) if (status !== '200') statuses.set(status, titleOf(resolveResponse(doc, r).description));
  const errors = [...statuses]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, title]) => `<li><a href="v1/errors/${escape(status)}">${escape(status)}</a> ${escape(title)}</li>`)
    .join('');
  // The same codes and meanings the OpenAPI document's Problem schema declares (src/core/errors.ts).
  const errorCodes = Object.entries(ERROR_CODES)
    .map(([code, meaning]) => `<tr><th scope="row"><code>${escape(code)}</code></th><td>${escape(meaning)}</td></tr>`)
    .join('');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} API reference</title><link rel="icon" href="data:,"><style>${STYLE}</style></head>
<body>
<header><h1>${escape(doc.info.title)} API reference <small>${escape(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)} <span id="action-count">${operations.length}</span> actions. Generated from <a href="v1/openapi.json">the OpenAPI document</a>.</p>
<div class="auth"><label for="api-key">API key (sent as <code>X-API-Key</code> by the forms below; it stays in this page)</label><br>
<input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="pdfsvc_…"></div></header>
<div class="layout"><nav aria-label="Actions">${nav}</nav>
<main>
<section id="overview"><h2>Overview</h2>
<p>Every action is <code>POST /v1/&lt;action&gt;</code> with a <code>multipart/form-data</code> body and an <code>X-API-Key</code> header. Single-document actions answer <code>application/pdf</code>; split actions answer with the packaging their <code>Accept</code> header asks for (ZIP when it asks for none). Failures are <code>application/problem+json</code> objects:</p>
<ul class="errors">${errors}</ul>
<p>A <code>400</code> for a document pdfsvc refused also carries a <code>code</code> (beside <code>errors</code>), stable for a client to branch on without reading messages; it is absent when a field's own value broke its rules:</p>
<table id="error-codes"><thead><tr><th scope="col"><code>code</code></th><th scope="col">Meaning</th></tr></thead><tbody>${errorCodes}</tbody></table>
<p>Checks run in this order: path, method, key, region, <code>Accept</code>, content type, size, fields, document. <code>GET /healthz</code> needs no key.</p></section>
${operations.map(([path, op]) => operationSection(doc, path, op)).join('\n')}
</main></div>
<script>${SCRIPT}</script>
</body></html>
`;
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  };
}
