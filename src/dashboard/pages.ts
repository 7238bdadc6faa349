/**
 * The dashboard's pages as functions of plain data: no database, no request,
 * so each can be rendered and checked alone. Every value is escaped here.
 *
 * One stylesheet and one small script, inline, allowed by the page's nonce
 * (Content-Security-Policy: nothing else runs, nothing is fetched). Forms
 * work without the script; it only adds the copy button. Focus is always
 * visible, every control has a label, and the layout folds to one column on
 * a narrow screen (tables scroll sideways inside their own box).
 */
import { KEY_NAME_MAX_LENGTH, KEY_NAME_PATTERN, KEY_NAME_RULE } from '../core/key-name.js';
import { usableWithin } from '../core/plans.js';
import { usageChart, type ChartSeries } from './chart.js';
import { daysInMonth, escapeHtml as e, formatBytes, formatCount, formatTime } from './html.js';

/** A key name's input: the browser checks the rule the server applies (src/core/key-name.ts). */
const KEY_NAME_INPUT = `maxlength="${KEY_NAME_MAX_LENGTH}" pattern="${e(KEY_NAME_PATTERN)}" title="${e(KEY_NAME_RULE)}"`;

export interface AccountView {
  name: string;
  email: string;
  plan: string;
  operator: boolean;
}

export interface KeyView {
  id: string;
  name: string;
  /** The first characters of the key: enough to recognise it, far too few to use it. */
  prefix: string;
  created: string;
  lastUsed: string | null;
  expires: string | null;
  /** Regions the key is limited to; null: every region of the plan. */
  regions: string[] | null;
  requestsThisMonth: number;
}

export interface UsageRow {
  day: string;
  keyId: string;
  keyName: string;
  requests: number;
  pages: number;
  bytesIn: number;
  bytesOut: number;
}

export interface UsageTotals {
  requests: number;
  pages: number;
  bytesIn: number;
  bytesOut: number;
}

export interface AuditView {
  time: string;
  event: string;
  actor: string;
  address: string | null;
  detail: string;
}

export interface OperatorRow extends UsageTotals {
  account: string;
  email: string;
  plan: string;
  status: string;
  keys: number;
}

/** What every signed-in page needs: who, the CSRF token for its forms, and the response's nonce. */
export interface Frame {
  nonce: string;
  /** The path the dashboard is served under ('' or '/dashboard'): every link and form starts with it. */
  base: string;
  account?: AccountView;
  csrf?: string;
  current?: 'keys' | 'usage' | 'audit' | 'operator';
}

const STYLE = `
:root{color-scheme:light;--fg:#1b1b1b;--muted:#555;--line:#c8c8c8;--accent:#0b57a4;--bad:#a4000f;--ok:#0f6b2f;--bg:#fff;--soft:#f3f5f8}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid #e66100;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem;z-index:2}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
header .brand{font-weight:700;margin-right:auto}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
form.inline{display:inline}
.card{border:1px solid var(--line);border-radius:6px;padding:1rem;margin:1rem 0;background:var(--bg)}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.field{display:flex;flex-direction:column;gap:.25rem;min-width:12rem;flex:1 1 14rem}
.field.narrow{flex:0 1 13rem;min-width:11rem}
label{font-weight:600}
.hint{color:var(--muted);font-size:.9rem;font-weight:400}
input,select,button{font:inherit;padding:.45rem .6rem;border:1px solid #767676;border-radius:4px;background:#fff;color:var(--fg)}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad)}
fieldset{border:1px solid var(--line);border-radius:4px;margin:0;padding:.5rem .75rem}
fieldset label{font-weight:400;margin-right:.75rem;white-space:nowrap}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft)}
tbody th{background:none}
td.num,th.num{text-align:right;white-space:nowrap}
tfoot td,tfoot th{font-weight:700;border-top:2px solid var(--fg)}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.95em}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret input{flex:1 1 24rem;font-family:ui-monospace,Menlo,Consolas,monospace;min-width:0}
.notice{border-left:4px solid var(--ok);background:#eef7f0;padding:.75rem 1rem;margin:1rem 0}
.error{border-left:4px solid var(--bad);background:#fbeeee;padding:.75rem 1rem;margin:1rem 0}
.chart>svg{width:100%;height:auto;max-height:320px;display:block}
.legend svg{width:12px;height:12px;vertical-align:-1px}
.chart figcaption{color:var(--muted);font-size:.9rem}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.25rem 0 0}
.narrow-form{max-width:26rem}
.narrow-form .field{min-width:0}
@media (max-width:40rem){main{padding:.5rem}header{padding:.5rem}.field,.field.narrow{flex-basis:100%}th,td{padding:.35rem .4rem}}
`;

/** The copy button: the only script. Forms and links work without it. */
const SCRIPT = `
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var field = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById(button.getAttribute('data-status'));
    var done = function (ok) { status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy: select the key and copy it.'; };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(function () { done(true); }, function () { field.select(); done(false); });
    else { field.select(); done(document.execCommand && document.execCommand('copy')); }
  });
});
`;

/** The Content-Security-Policy of a page with this nonce: its own style and script, forms to itself, nothing else. */
export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

function csrfField(frame: Frame): string {
  return frame.csrf ? `<input type="hidden" name="csrf" value="${e(frame.csrf)}">` : '';
}

function layout(title: string, frame: Frame, body: string): string {
  const account = frame.account;
  const link = (href: string, label: string, name: Frame['current']) =>
    `<li><a href="${href}"${frame.current === name ? ' aria-current="page"' : ''}>${label}</a></li>`;
  const nav = account
    ? `<nav aria-label="Dashboard"><ul>${link(`${frame.base}/keys`, 'Keys', 'keys')}${link(`${frame.base}/usage`, 'Usage', 'usage')}${link(`${frame.base}/audit`, 'Audit log', 'audit')}${account.operator ? link(`${frame.base}/operator`, 'All accounts', 'operator') : ''}</ul></nav>` +
      `<span class="hint">${e(account.name)} · ${e(account.email)} · ${e(account.plan)} plan</span>` +
      `<form class="inline" method="post" action="${frame.base}/sign-out">${csrfField(frame)}<button type="submit" class="secondary">Sign out</button></form>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin">
<title>${e(title)} · pdfsvc dashboard</title><style nonce="${e(frame.nonce)}">${STYLE}</style></head>
<body><a class="skip" href="#main">Skip to the content</a>
<header><span class="brand">pdfsvc dashboard</span>${nav}</header>
<main id="main" tabindex="-1"><h1>${e(title)}</h1>${body}</main>
<script nonce="${e(frame.nonce)}">${SCRIPT}</script></body></html>`;
}

function message(kind: 'notice' | 'error', text: string | undefined): string {
  return text ? `<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${e(text)}</p>` : '';
}

export function signInPage(frame: Frame, options: { email?: string; error?: string; notice?: string } = {}): string {
  return layout(
    'Sign in',
    frame,
    `${message('notice', options.notice)}${message('error', options.error)}
<form method="post" action="${frame.base}/sign-in" class="card narrow-form">${csrfField(frame)}
<div class="field"><label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="username" required value="${e(options.email ?? '')}"${options.email ? '' : ' autofocus'}></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${options.email ? ' autofocus' : ''}></div>
<p><button type="submit">Sign in</button></p></form>
<p class="hint">No password yet? Use the link your operator gave you (from <code>pdfsvc accounts create</code>); it sets one.</p>`,
  );
}

export function setPasswordPage(frame: Frame, options: { token: string; email: string; error?: string; minLength: number }): string {
  return layout(
    'Choose your password',
    frame,
    `${message('error', options.error)}
<form method="post" action="${frame.base}/set-password" class="card narrow-form">${csrfField(frame)}<input type="hidden" name="token" value="${e(options.token)}">
<p>For <strong>${e(options.email)}</strong>. This link works once.</p>
<input type="hidden" name="username" autocomplete="username" value="${e(options.email)}">
<div class="field"><label for="password">New password <span class="hint">(at least ${options.minLength} characters)</span></label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${options.minLength}" required autofocus></div>
<div class="field"><label for="confirm">The same password again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${options.minLength}" required></div>
<p><button type="submit">Set the password and sign in</button></p></form>`,
  );
}

/** A page that only says something (a link that expired, a page not found, too many attempts). */
export function messagePage(frame: Frame, title: string, text: string, link?: { href: string; label: string }): string {
  return layout(title, frame, `<p>${e(text)}</p>${link ? `<p><a href="${e(link.href)}">${e(link.label)}</a></p>` : ''}`);
}

/** A key shown in full, once, with its copy button. */
function revealedKey(revealed: { name: string; key: string; note: string }): string {
  return `<section class="notice" aria-labelledby="new-key-title" role="status"><h2 id="new-key-title">Key “${e(revealed.name)}”: copy it now</h2>
<p>${e(revealed.note)} This is the only time the whole key is shown; pdfsvc keeps only its hash.</p>
<div class="secret"><label for="new-key" class="hint">The key</label><input id="new-key" readonly value="${e(revealed.key)}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="new-key" data-status="copy-status" hidden>Copy</button></div><p id="copy-status" aria-live="polite"></p></section>`;
}

/**
 * A key's regions; a limit the plan has some or none of (the plan changed since) is marked with where it works,
 * as pdfsvc keys list marks it: only there, or nowhere.
 */
function regionsText(regions: string[] | null, planRegions: readonly string[]): string {
  if (!regions) return 'all of the plan';
  const usable = usableWithin(planRegions, regions);
  if (usable.length === regions.length) return regions.join(', ');
  return `${regions.join(', ')}: ${usable.length ? `only ${usable.join(', ')} in your plan` : 'not in your plan, so this key works nowhere'}`;
}

export function keysPage(
  frame: Frame,
  options: {
    keys: KeyView[];
    planRegions: readonly string[];
    revealed?: { name: string; key: string; note: string };
    error?: string;
    notice?: string;
    month: string;
  },
): string {
  const rows = options.keys
    .map(
      (k) =>
        `<tr><th scope="row"><a href="${frame.base}/keys/${e(k.id)}">${e(k.name)}</a></th><td><code>${e(k.prefix)}…</code></td><td>${e(formatTime(k.created))}</td><td>${k.lastUsed ? e(formatTime(k.lastUsed)) : 'never'}</td><td>${k.expires ? e(formatTime(k.expires)) : 'none'}</td><td>${e(regionsText(k.regions, options.planRegions))}</td><td class="num">${formatCount(k.requestsThisMonth)}</td></tr>`,
    )
    .join('');
  const table = options.keys.length
    ? `<p class="hint">Requests are counted for ${e(options.month)} (UTC).</p><div class="table-wrap"><table aria-label="API keys"><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Regions</th><th scope="col" class="num">Requests this month</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : '<p>No keys yet. Create one below: use a separate key per application, so that one can be revoked alone.</p>';
  return layout(
    'API keys',
    { ...frame, current: 'keys' },
    `${options.revealed ? revealedKey(options.revealed) : ''}${message('notice', options.notice)}${message('error', options.error)}
${table}
<h2 id="create-title">Create a key</h2>
<form method="post" action="${frame.base}/keys" class="card" aria-labelledby="create-title">${csrfField(frame)}<input type="hidden" name="listed" value="${e(options.keys.map((k) => k.id).join(' '))}">
<div class="row"><div class="field"><label for="key-name">Name <span class="hint">(what the key is for)</span></label><input id="key-name" name="name" required ${KEY_NAME_INPUT}></div>
<div><button type="submit">Create key</button></div></div>
<p class="hint">Region limits and an expiry date can be set on the key's page after it is created.</p></form>`,
  );
}

export function keyPage(
  frame: Frame,
  options: {
    key: KeyView;
    planRegions: readonly string[];
    revealed?: { name: string; key: string; note: string };
    error?: string;
    notice?: string;
    today: string;
  },
): string {
  const k = options.key;
  const id = e(k.id);
  const regionBoxes = options.planRegions
    .map((r) => `<label><input type="checkbox" name="regions" value="${e(r)}"${k.regions?.includes(r) ? ' checked' : ''}> ${e(r)}</label>`)
    .join(' ');
  return layout(
    `Key “${k.name}”`,
    { ...frame, current: 'keys' },
    `${options.revealed ? revealedKey(options.revealed) : ''}${message('notice', options.notice)}${message('error', options.error)}
<dl class="card"><dt>Prefix</dt><dd><code>${e(k.prefix)}…</code></dd><dt>Created</dt><dd>${e(formatTime(k.created))}</dd><dt>Last used</dt><dd>${k.lastUsed ? e(formatTime(k.lastUsed)) : 'never'}</dd><dt>Expires</dt><dd>${k.expires ? e(formatTime(k.expires)) : 'none'}</dd><dt>Regions</dt><dd>${e(regionsText(k.regions, options.planRegions))}</dd><dt>Requests this month</dt><dd>${formatCount(k.requestsThisMonth)}</dd></dl>
<h2 id="rename-title">Rename</h2>
<form method="post" action="${frame.base}/keys/${id}/rename" class="card" aria-labelledby="rename-title">${csrfField(frame)}<div class="row">
<div class="field"><label for="rename">New name</label><input id="rename" name="name" required ${KEY_NAME_INPUT} value="${e(k.name)}"></div><div><button type="submit">Rename</button></div></div></form>
<h2 id="limits-title">Limits</h2>
<form method="post" action="${frame.base}/keys/${id}/limits" class="card" aria-labelledby="limits-title">${csrfField(frame)}
<fieldset><legend>Regions this key works in <span class="hint">(none ticked: every region of the plan)</span></legend>${regionBoxes}</fieldset>
<div class="row"><div class="field narrow"><label for="expires">Expires on <span class="hint">(UTC, end of day; empty: never)</span></label><input id="expires" name="expires" type="date" min="${e(options.today)}" value="${k.expires ? e(k.expires.slice(0, 10)) : ''}"></div>
<div><button type="submit">Save limits</button></div></div></form>
<h2 id="rotate-title">Rotate</h2>
<form method="post" action="${frame.base}/keys/${id}/rotate" class="card" aria-labelledby="rotate-title">${csrfField(frame)}<input type="hidden" name="shown_name" value="${e(k.name)}">
<p>Makes a new key with this name and settings, shown once. The old one keeps working for the grace period, so it can be replaced where it is deployed, then stops.</p>
<div class="row"><div class="field narrow"><label for="grace">Grace period</label><select id="grace" name="grace"><option value="1h">1 hour</option><option value="24h" selected>24 hours</option><option value="7d">7 days</option><option value="0s">none: stop the old key now</option></select></div>
<div><button type="submit">Rotate key</button></div></div></form>
<h2 id="revoke-title">Revoke</h2>
<div class="card"><p>A revoked key stops working everywhere within 2 seconds. This cannot be undone.</p><p><a href="${frame.base}/keys/${id}/revoke">Revoke this key…</a></p></div>`,
  );
}

export function revokeConfirmPage(frame: Frame, key: KeyView): string {
  return layout(
    `Revoke “${key.name}”?`,
    { ...frame, current: 'keys' },
    `<form method="post" action="${frame.base}/keys/${e(key.id)}/revoke" class="card">${csrfField(frame)}<input type="hidden" name="confirm" value="yes">
<p>The key <code>${e(key.prefix)}…</code> (“${e(key.name)}”) will stop working in every region within 2 seconds. Applications using it get <code>401</code>. This cannot be undone.</p>
<div class="row"><button type="submit" class="danger" autofocus>Yes, revoke it</button><a href="${frame.base}/keys/${e(key.id)}">No, keep it</a></div></form>`,
  );
}

const METRICS = [
  { name: 'requests', label: 'Requests', format: formatCount, pick: (r: UsageTotals) => r.requests },
  { name: 'pages', label: 'Pages processed', format: formatCount, pick: (r: UsageTotals) => r.pages },
  { name: 'bytes_in', label: 'Bytes in', format: formatBytes, pick: (r: UsageTotals) => r.bytesIn },
  { name: 'bytes_out', label: 'Bytes out', format: formatBytes, pick: (r: UsageTotals) => r.bytesOut },
] as const;
export type MetricName = (typeof METRICS)[number]['name'];
export const METRIC_NAMES = METRICS.map((m) => m.name) as readonly MetricName[];

function totalsOf(rows: UsageTotals[]): UsageTotals {
  return rows.reduce(
    (t, r) => ({ requests: t.requests + r.requests, pages: t.pages + r.pages, bytesIn: t.bytesIn + r.bytesIn, bytesOut: t.bytesOut + r.bytesOut }),
    { requests: 0, pages: 0, bytesIn: 0, bytesOut: 0 },
  );
}

function numberCells(t: UsageTotals): string {
  return `<td class="num">${formatCount(t.requests)}</td><td class="num">${formatCount(t.pages)}</td><td class="num" title="${t.bytesIn} bytes">${formatBytes(t.bytesIn)}</td><td class="num" title="${t.bytesOut} bytes">${formatBytes(t.bytesOut)}</td>`;
}

const NUMBER_HEADS =
  '<th scope="col" class="num">Requests</th><th scope="col" class="num">Pages</th><th scope="col" class="num">Bytes in</th><th scope="col" class="num">Bytes out</th>';

function monthForm(action: string, month: string, extra = ''): string {
  return `<form method="get" action="${action}" class="card"><div class="row"><div class="field narrow"><label for="month">Month <span class="hint">(UTC)</span></label><input id="month" name="month" type="month" value="${e(month)}" required></div>${extra}<div><button type="submit">Show</button></div></div></form>`;
}

export function usagePage(frame: Frame, options: { month: string; metric: MetricName; rows: UsageRow[] }): string {
  const metric = METRICS.find((m) => m.name === options.metric) ?? METRICS[0];
  const days = daysInMonth(options.month);
  const byKey = new Map<string, { name: string; rows: UsageRow[] }>();
  for (const row of options.rows) {
    const entry = byKey.get(row.keyId) ?? { name: row.keyName, rows: [] };
    entry.rows.push(row);
    byKey.set(row.keyId, entry);
  }
  const series: ChartSeries[] = [...byKey.values()].map(({ name, rows }) => {
    const values = new Array<number>(days).fill(0);
    for (const row of rows) values[Number(row.day.slice(8, 10)) - 1] += metric.pick(row);
    return { label: name, values };
  });
  const metricSelect = `<div class="field narrow"><label for="metric">Chart</label><select id="metric" name="metric">${METRICS.map((m) => `<option value="${m.name}"${m.name === metric.name ? ' selected' : ''}>${m.label}</option>`).join('')}</select></div>`;
  const keyRows = [...byKey.entries()].map(([, { name, rows }]) => `<tr><th scope="row">${e(name)}</th>${numberCells(totalsOf(rows))}</tr>`).join('');
  const dayRows = [...options.rows]
    .sort((a, b) => (a.day === b.day ? a.keyName.localeCompare(b.keyName) : a.day.localeCompare(b.day)))
    .map((r) => `<tr><td>${e(r.day)}</td><th scope="row">${e(r.keyName)}</th>${numberCells(r)}</tr>`)
    .join('');
  const total = totalsOf(options.rows);
  const body = options.rows.length
    ? `${usageChart('usage-chart', `${metric.label} per day, ${options.month}`, series, days, metric.format)}
<h2 id="per-key">Per key</h2><div class="table-wrap"><table aria-labelledby="per-key"><thead><tr><th scope="col">Key</th>${NUMBER_HEADS}</tr></thead><tbody>${keyRows}</tbody><tfoot><tr><th scope="row">Account total</th>${numberCells(total)}</tr></tfoot></table></div>
<h2 id="per-day">Per key and day</h2><div class="table-wrap"><table aria-labelledby="per-day"><thead><tr><th scope="col">Day</th><th scope="col">Key</th>${NUMBER_HEADS}</tr></thead><tbody>${dayRows}</tbody><tfoot><tr><th scope="row" colspan="2">Account total</th>${numberCells(total)}</tr></tfoot></table></div>`
    : `<p>No requests in ${e(options.month)}.</p>`;
  return layout(`Usage, ${options.month}`, { ...frame, current: 'usage' }, `${monthForm(`${frame.base}/usage`, options.month, metricSelect)}${body}`);
}

export function auditPage(frame: Frame, events: AuditView[]): string {
  const rows = events
    .map((a) => `<tr><td>${e(formatTime(a.time))}</td><td>${e(a.event)}</td><td>${e(a.detail)}</td><td>${e(a.actor)}</td><td>${e(a.address ?? '')}</td></tr>`)
    .join('');
  return layout(
    'Audit log',
    { ...frame, current: 'audit' },
    events.length
      ? `<p class="hint">The latest ${events.length} events of this account, newest first.</p><div class="table-wrap"><table aria-label="Audit log"><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">From</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : '<p>No events yet.</p>',
  );
}

export function operatorPage(frame: Frame, options: { month: string; rows: OperatorRow[] }): string {
  const rows = options.rows
    .map(
      (r) =>
        `<tr><th scope="row">${e(r.account)}</th><td>${e(r.email)}</td><td>${e(r.plan)}</td><td>${e(r.status)}</td><td class="num">${r.keys}</td>${numberCells(r)}</tr>`,
    )
    .join('');
  const total = totalsOf(options.rows);
  return layout(
    `All accounts, ${options.month}`,
    { ...frame, current: 'operator' },
    `${monthForm(`${frame.base}/operator`, options.month)}<div class="table-wrap"><table><thead><tr><th scope="col">Account</th><th scope="col">E-mail</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col" class="num">Keys</th>${NUMBER_HEADS}</tr></thead><tbody>${rows}</tbody><tfoot><tr><th scope="row" colspan="5">All accounts</th>${numberCells(total)}</tr></tfoot></table></div>
<p class="hint">For invoices: <code>pdfsvc usage --month ${e(options.month)} --format csv</code>.</p>`,
  );
}
