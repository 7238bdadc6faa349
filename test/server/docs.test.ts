/**
 * GET /docs in a real browser: a real `pdfsvc serve` process, and headless
 * Chromium (Debian's /usr/bin/chromium) driven by playwright-core. The page
 * must load with no console error, no script error and no Content-Security-
 * Policy violation, fetch nothing from any other origin (it works offline),
 * list every action of the OpenAPI document with its fields, and its try-it
 * forms must work the way a user uses them: a rotation that returns a real
 * rotated PDF, a refusal whose field error is shown, and a split whose ZIP is
 * offered as a download.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Download, type Locator, type Page, type Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath, pageMarkers, pdfinfo } from '../helpers/pdf-tools.js';
import { showEncryption } from '../helpers/security.js';
import { checkedMarkers, unpack } from '../helpers/split-tools.js';
import { haveTool } from '../helpers/tools.js';
import { serve, type Served } from './spawn.js';
import { actions } from '../../src/actions/index.js';

const CHROMIUM = process.env.PDFSVC_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = haveTool(CHROMIUM, 'the /docs browser tests', 'apt-get install -y chromium, or set PDFSVC_CHROMIUM');

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface OpenApiOperation {
  operationId: string;
  requestBody: {
    content: {
      'multipart/form-data': {
        schema: {
          properties: Record<string, { type?: string; format?: string; minLength?: number; enum?: unknown[]; examples?: unknown[] }>;
          required: string[];
        };
      };
    };
  };
}

describe.skipIf(!haveChromium)('GET /docs in headless Chromium', { timeout: 90_000 }, () => {
  let server: Served;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let operations: Map<string, OpenApiOperation>;
  /** Everything the page did that a test did not expect; checked after each test. */
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const requests: string[] = [];
  /** Action URLs a test makes fail on purpose (Chromium logs their 4xx as console errors). */
  const expectedFailures = new Set<string>();

  beforeAll(async () => {
    server = await serve();
    origin = new URL(server.base).origin;
    const document = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as { paths: Record<string, { post?: OpenApiOperation }> };
    operations = new Map(Object.entries(document.paths).flatMap(([path, item]) => (item.post ? [[path.replace(/^\/v1\//, ''), item.post] as const] : [])));

    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 60_000 });
    context = await browser.newContext({ acceptDownloads: true });
    // Every request of every page and worker of the context, wherever it goes.
    context.on('request', (request) => requests.push(request.url()));
    page = await context.newPage();
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() !== 'error') return;
      const where = message.location().url;
      if (/^Failed to load resource: the server responded with a status of 4\d\d\b/.test(message.text()) && expectedFailures.has(where)) return;
      consoleErrors.push(`${message.text()} (${where})`);
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // CSP violations as the page itself sees them (they are console errors too).
    await page.addInitScript(() => {
      const seen: string[] = [];
      (globalThis as unknown as { __cspViolations: string[] }).__cspViolations = seen;
      globalThis.addEventListener('securitypolicyviolation', (event) => {
        const e = event as unknown as { violatedDirective: string; blockedURI: string };
        seen.push(`${e.violatedDirective} blocked ${e.blockedURI}`);
      });
    });
    const response = await page.goto(`${server.base}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.fill('#api-key', server.key);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  afterEach(async () => {
    const violations = await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations);
    expect(violations, 'CSP violations').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
    expect(pageErrors, 'uncaught page errors').toEqual([]);
    // Offline: the page asked nothing of any other origin (no CDN, no fonts, no analytics).
    // (data: URLs are inline; a blob: URL's origin is the page's.)
    const foreign = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(foreign, 'requests to other origins').toEqual([]);
  });

  const section = (action: string): Locator => page.locator(`section#op-${action}`);

  /** Opens an action's try-it form (a closed <details>), as a user would. */
  async function openForm(action: string): Promise<Locator> {
    const sectionOf = section(action);
    const details = sectionOf.locator('details.try');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
    await expect.poll(() => sectionOf.locator('form.try-form').isVisible()).toBe(true);
    return sectionOf;
  }

  /** Submits an action's form; returns the POST's response and the status line the page shows for it. */
  async function submit(action: string): Promise<{ response: Response; status: Locator }> {
    const sectionOf = section(action);
    const answered = page.waitForResponse((r) => r.url() === `${origin}/v1/${action}` && r.request().method() === 'POST', { timeout: 60_000 });
    await sectionOf.locator('form.try-form button[type="submit"]').click();
    const response = await answered;
    const status = sectionOf.locator('.result-status');
    await expect.poll(() => status.getAttribute('data-status'), { timeout: 10_000 }).toBe(String(response.status()));
    return { response, status };
  }

  /** Clicks the page's download link; returns the file it saved and its suggested name. */
  async function download(action: string): Promise<{ name: string; bytes: Uint8Array }> {
    const link = section(action).locator('a.result-download');
    expect(await link.isVisible()).toBe(true);
    const [saved] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), link.click()]);
    return { name: (saved as Download).suggestedFilename(), bytes: new Uint8Array(readFileSync(await (saved as Download).path())) };
  }

  it('loads offline from this server alone, under its CSP', async () => {
    expect(await page.title()).toMatch(/pdfsvc API reference/);
    expect(requests[0]).toBe(`${origin}/docs`);
    // Nothing external in the markup either: no stylesheet link, script src, image, frame or font.
    expect(await page.locator('link[rel="stylesheet"], script[src], img, iframe, object, embed').count()).toBe(0);
    const { headers } = await fetch(`${server.base}/docs`);
    expect(headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'sha256-/);
  });

  it('lists every error code a problem object carries, with its meaning, as the OpenAPI document declares them', async () => {
    const document = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as {
      components: { schemas: { Problem: { properties: { code: { enum: string[]; description: string } } } } };
    };
    const declared = document.components.schemas.Problem.properties.code;
    const rows = await page
      .locator('#error-codes tbody tr')
      .evaluateAll((all) => all.map((row) => [row.querySelector('th')!.textContent!.trim(), row.querySelector('td')!.textContent!.trim()]));
    expect(rows.map(([code]) => code)).toEqual(declared.enum);
    expect(rows.length).toBeGreaterThan(0);
    // Each meaning is the one the OpenAPI document gives beside the code.
    for (const [code, meaning] of rows) expect(declared.description, code).toContain(`\`${code}\`: ${meaning}`);
    expect(rows).toContainEqual(['wrong_password', 'The password given opens the document neither as its user nor as its owner.']);
    await expect.poll(() => page.locator('#error-codes').isVisible()).toBe(true);
  });

  it('lists every action of the catalog, each with its fields, a curl example and a form', async () => {
    const names = [...operations.keys()];
    expect([...names].sort()).toEqual(actions.map((action) => action.name).sort());
    expect(await page.locator('#action-count').textContent()).toBe(String(actions.length));
    expect((await page.locator('nav a').allTextContents()).sort()).toEqual([...names].sort());
    expect(
      (
        await page.locator('section.operation').evaluateAll((all) => all.map((s) => (s as unknown as { dataset: { operation: string } }).dataset.operation))
      ).sort(),
    ).toEqual([...names].sort());
    for (const [name, op] of operations) {
      const { properties, required } = op.requestBody.content['multipart/form-data'].schema;
      const s = section(name);
      expect(await s.locator('h2').textContent()).toContain(`/v1/${name}`);
      // The fields table: one row per schema property, in order; merge's
      // numbered alternatives file_1 … file_10 are named in the row of the
      // repeated file part (which the form repeats itself), and that part is
      // what the form requires. A required text that may be empty (no
      // minLength: remove_password's password) is sent empty, not refused.
      const merge = name === 'merge_documents';
      const shown = Object.keys(properties).filter((field) => !(merge && /^file_\d+$/.test(field)));
      const needed = (merge ? ['file'] : required).filter(
        (field) => !(properties[field].type === 'string' && properties[field].format !== 'binary' && properties[field].minLength === undefined),
      );
      expect(await s.locator('table tbody tr td:first-child').allTextContents(), name).toEqual(shown);
      if (merge) expect(await s.locator('table tbody tr').first().textContent()).toContain('file_1 to file_10');
      const curl = await s.locator('pre.example').textContent();
      expect(curl).toContain(`"$BASE/v1/${name}"`);
      // Each required field with its declared example (the first of the schema's examples).
      for (const field of required) {
        const example = properties[field].examples?.[0];
        if (example !== undefined) expect(curl, `${name}.${field}`).toContain(`${field}=${String(example)}`);
      }
      for (const field of shown) {
        const control = s.locator(`form.try-form [name="${field}"]`);
        expect(await control.count(), `${name}.${field} control`).toBe(1);
        expect(await control.evaluate((el) => (el as unknown as { required: boolean }).required), `${name}.${field} required`).toBe(needed.includes(field));
      }
    }
    // One action with several fields, as the reader sees it.
    const watermark = operations.get('add_text_watermark')!;
    const fields = Object.keys(watermark.requestBody.content['multipart/form-data'].schema.properties);
    expect(fields.length).toBeGreaterThan(5);
    const text = await section('add_text_watermark').innerText();
    for (const field of fields) expect(text).toContain(field);
  });

  it('rotate_pages from the form: 200, and the download is the document turned 90° on every page', async () => {
    const s = await openForm('rotate_pages');
    // The angle is a choice among the declared quarter turns, nothing else.
    const angles = operations.get('rotate_pages')!.requestBody.content['multipart/form-data'].schema.properties.angle.enum!.map(String);
    expect(await s.locator('select[name="angle"] option').evaluateAll((all) => all.map((o) => (o as unknown as { value: string }).value))).toEqual([
      '',
      ...angles,
    ]);

    await s.locator('input[name="file"]').setInputFiles(fixturePath('pages-3.pdf'));
    await s.locator('select[name="angle"]').selectOption('90');
    const { response, status } = await submit('rotate_pages');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/pdf');
    expect(await response.request().headerValue('x-api-key')).toBe(server.key);
    expect(await status.textContent()).toMatch(/^200 .*application\/pdf/);
    expect(await status.getAttribute('class')).toContain('ok');

    // (Playwright cannot read the body of a fetch the page consumed as a blob: the download is the answer.)
    const saved = await download('rotate_pages');
    expect(saved.name).toMatch(/\.pdf$/);
    expect(await status.textContent()).toContain(` ${saved.bytes.byteLength} bytes`);
    const info = await pdfinfo(saved.bytes);
    expect(info.pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
    expect(await pageMarkers(saved.bytes)).toEqual([1, 2, 3]);
  });

  it('a refused request shows its status and the field error from the problem object', async () => {
    const s = await openForm('rotate_pages');
    expectedFailures.add(`${origin}/v1/rotate_pages`);
    try {
      await s.locator('input[name="file"]').setInputFiles(fixturePath('pages-3.pdf'));
      await s.locator('select[name="angle"]').selectOption('90');
      // A page the 3-page document does not have: only the server can tell.
      await s.locator('input[name="pages"]').fill('7');
      const { response, status } = await submit('rotate_pages');
      expect(response.status()).toBe(400);
      expect(response.headers()['content-type']).toBe('application/problem+json');
      expect(await status.textContent()).toMatch(/^400 .*application\/problem\+json/);
      expect(await status.getAttribute('class')).toContain('fail');
      // The problem object as the page shows it, and its field error under the field.
      const problem = JSON.parse((await s.locator('.result-body').textContent())!) as { status: number; errors: Record<string, string[]> };
      expect(problem.status).toBe(400);
      expect(Object.keys(problem.errors)).toEqual(['pages']);
      const message = problem.errors.pages[0];
      expect(message).toMatch(/page "7" does not exist \(the document has 3 pages\)/);
      const note = s.locator('.control:has([name="pages"]) .field-error');
      expect(await note.isVisible()).toBe(true);
      expect(await note.textContent()).toBe(message);
      expect(await s.locator('[name="pages"]').getAttribute('aria-invalid')).toBe('true');
      expect(await s.locator('.field-error').count()).toBe(1);
      expect(await s.locator('a.result-download').isVisible()).toBe(false);
    } finally {
      expectedFailures.delete(`${origin}/v1/rotate_pages`);
    }
    // Corrected and sent again: the error goes away, and the answer is a PDF.
    await s.locator('input[name="pages"]').fill('2');
    const { response } = await submit('rotate_pages');
    expect(response.status()).toBe(200);
    expect(await s.locator('.field-error').count()).toBe(0);
    expect(await s.locator('[name="pages"]').getAttribute('aria-invalid')).toBeNull();
    const saved = await download('rotate_pages');
    expect((await pdfinfo(saved.bytes)).pages.map((p) => p.rotation)).toEqual([0, 90, 0]);
  });

  it('remove_password from the form with the password left empty: a document that opens without one is decrypted', async () => {
    const s = await openForm('remove_password');
    // Required, and sent even empty: the browser must not refuse to submit it.
    const password = s.locator('input[name="password"]');
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('required')).toBeNull();
    await s.locator('input[name="file"]').setInputFiles(fixturePath('restricted.pdf'));
    const { response } = await submit('remove_password');
    expect(response.status()).toBe(200);
    // (Left out, the password would be a 400 "is required": the 200 says the form sent it empty.)
    const saved = await download('remove_password');
    expect((await showEncryption(saved.bytes)).encrypted).toBe(false);
    expect(await pageMarkers(saved.bytes)).toEqual(await pageMarkers(readFileSync(fixturePath('restricted.pdf'))));
  });

  it('split_by_page_count from the form: the ZIP answer is offered as a download', async () => {
    const s = await openForm('split_by_page_count');
    expect(await s.locator('select[data-header="Accept"]').inputValue()).toBe('application/zip');
    await s.locator('input[name="file"]').setInputFiles(fixturePath('pages-3.pdf'));
    await s.locator('input[name="page_count"]').fill('1');
    const { response, status } = await submit('split_by_page_count');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/zip');
    expect(await status.textContent()).toMatch(/^200 .*application\/zip/);

    const saved = await download('split_by_page_count');
    expect(saved.name).toMatch(/\.zip$/);
    const { documents } = unpack(saved.bytes, 'application/zip');
    expect(documents.map((d) => d.name)).toEqual(['00001.pdf', '00002.pdf', '00003.pdf']);
    expect(await checkedMarkers(documents)).toEqual([[1], [2], [3]]);
  });
});
