/**
 * dist/client.js in headless Chromium (playwright-core, as test/server/docs.test.ts):
 * a page on one origin imports the module and calls a real pdfsvc server
 * through that origin (a tiny proxy: pdfsvc has no CORS), so the test shows
 * the built client loads in a browser (no node: import) and works there,
 * multipart/mixed answers included.
 */
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, pageMarkers, pdfinfo, qpdfCheck } from '../helpers/pdf-tools.js';
import { ROOT, serve, type Served } from '../server/spawn.js';
import { startProxy, type Proxy } from './proxy.js';

const CHROMIUM = process.env.PDFSVC_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  const message = `Chromium not found at ${CHROMIUM}: the browser client test needs it (apt-get install -y chromium, or set PDFSVC_CHROMIUM)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`${message}; skipping it`);
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>client</title>
<script type="module">
  import { createClient, PdfsvcHttpError } from '/client.js';
  window.pdfsvcClient = { createClient, PdfsvcHttpError };
  window.ready = true;
</script>`;

describe.skipIf(!haveChromium)('pdfsvc/client in headless Chromium', { timeout: 90_000 }, () => {
  let server: Served;
  let proxy: Proxy;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await serve({ args: ['--workers', '1'] });
    proxy = await startProxy({
      target: server.base,
      files: {
        '/': { type: 'text/html; charset=utf-8', body: PAGE },
        '/client.js': { type: 'text/javascript', body: readFileSync(`${ROOT}dist/client.js`) },
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      timeout: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('rotates and splits from a page, and reports a refusal as PdfsvcHttpError', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${proxy.url}/`);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const result = await page.evaluate(
      async ({ key, pdf }) => {
        const { createClient, PdfsvcHttpError } = (window as unknown as { pdfsvcClient: typeof import('../../src/client/index.js') }).pdfsvcClient;
        const client = createClient({ baseUrl: location.origin, apiKey: key });
        const file = new File([new Uint8Array(pdf)], 'in.pdf', { type: 'application/pdf' });
        const rotated = await client.rotatePages({ file, angle: 90 });
        const parts = await client.splitAtPage({ file, page: '2' });
        const refusal = await client.rotatePages({ file, angle: 45 as never }).catch((err: unknown) => err);
        return {
          rotated: [...rotated],
          parts: parts.map((p) => ({ name: p.name, bytes: [...p.bytes] })),
          refusal: refusal instanceof PdfsvcHttpError ? { status: refusal.status, errors: refusal.errors } : String(refusal),
        };
      },
      { key: server.key, pdf: [...fixture('pages-3.pdf')] },
    );
    expect(errors).toEqual([]);
    const rotated = new Uint8Array(result.rotated);
    expect(new TextDecoder().decode(rotated.subarray(0, 5))).toBe('%PDF-');
    expect((await qpdfCheck(rotated)).exitCode).toBe(0);
    expect((await pdfinfo(rotated)).pages.map((p) => p.rotation)).toEqual([90, 90, 90]);
    expect(result.parts.map((p) => p.name)).toEqual(['00001.pdf', '00002.pdf']);
    const markers: number[] = [];
    for (const part of result.parts) markers.push(...(await pageMarkers(new Uint8Array(part.bytes))));
    expect(markers).toEqual([1, 2, 3]);
    expect(result.refusal).toEqual({ status: 400, errors: { angle: [expect.stringMatching(/must be one of/)] } });
  });
});
