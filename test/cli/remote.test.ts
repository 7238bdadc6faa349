/**
 * Remote mode end to end: `pdfsvc --server URL …` against real `pdfsvc
 * serve` processes, compared with local work on the same inputs (the same
 * bytes wherever the action is deterministic), and its failures: exit
 * statuses and messages as local work has them, the server's problem with
 * --json, 401/403/413, 503 retried, batch mode, --cacert for HTTPS. The key
 * never appears in any output.
 */
import AdmZip from 'adm-zip';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath, pageCount, qpdfCheck } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/render.js';
import { CLI, ROOT, serve, tempDir, type Served } from '../server/spawn.js';
import { startProxy } from '../client/proxy.js';
import { boundaryOf, parseMultipart } from '../../src/client/multipart.js';

const dir = tempDir('pdfsvc-remote-');
const outputs: string[] = [];
const pdfsvc = async (args: string[], env: Record<string, string> = {}) => {
  const result = await execa(process.execPath, [CLI, ...args], {
    reject: false,
    encoding: 'buffer',
    env: { PDFSVC_SERVER: '', PDFSVC_API_KEY: '', ...env },
    cwd: dir,
    stdin: 'ignore',
  });
  const stderr = Buffer.from(result.stderr).toString();
  outputs.push(stderr, Buffer.from(result.stdout).toString('latin1'));
  return { exitCode: result.exitCode, stdout: Buffer.from(result.stdout), stderr };
};

let server: Served;
let keyFile: string;
/** Global options of remote mode, before the action as a user would write them. */
let remote: string[];
beforeAll(async () => {
  server = await serve({ args: ['--workers', '1'] });
  keyFile = join(dir, 'key.txt');
  writeFileSync(keyFile, `${server.key}\n`);
  remote = ['--server', server.base, '--api-key-file', keyFile];
});
afterAll(() => {
  // The key never reached any output of the command line.
  for (const text of outputs) expect(text).not.toContain(server.key);
  return server?.stop();
});

const P = fixturePath;
const passwordFile = join(dir, 'password.txt');
writeFileSync(passwordFile, 'secret-user\n');
const pngFile = join(dir, 'mark.png');
writeFileSync(
  pngFile,
  makePng(30, 10, () => [0, 0, 255, 255]),
);

let counter = 0;
const outPath = (suffix = '.pdf') => join(dir, `out-${++counter}${suffix}`);

/** Runs the action locally and remotely with -o; returns both outputs' bytes. */
async function both(args: string[], suffix = '.pdf'): Promise<[Buffer, Buffer]> {
  const [local, far] = [outPath(suffix), outPath(suffix)];
  const l = await pdfsvc([...args, '-o', local]);
  expect(l.stderr).toBe('');
  expect(l.exitCode).toBe(0);
  const r = await pdfsvc([...remote, ...args, '-o', far]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return suffix === '' ? [Buffer.alloc(0), Buffer.alloc(0)] : [readFileSync(local), readFileSync(far)];
}

describe('pdfsvc --server (remote mode)', () => {
  it.each([
    ['rotate', ['rotate', '--angle', '90', '--pages', '1,3', P('pages-3.pdf')]],
    ['extract', ['extract', '--pages', '2..4', P('pages-10.pdf')]],
    ['reorder', ['reorder', '--page-order', '3,1,2,2', P('pages-3.pdf')]],
    ['reverse', ['reverse', P('pages-3.pdf')]],
    ['remove-pages', ['remove-pages', '--pages', '1', P('pages-3.pdf')]],
    ['merge', ['merge', P('merge-a.pdf'), P('merge-b.pdf')]],
    ['remove-signatures', ['remove-signatures', P('signed.pdf')]],
    ['remove-restrictions', ['remove-restrictions', P('restricted.pdf')]],
    ['remove-password', ['remove-password', '--password-file', passwordFile, P('encrypted-user.pdf')]],
    ['add-text-watermark', ['add-text-watermark', '--line-1', 'DRAFT', P('pages-3.pdf')]],
    ['add-image-watermark', ['add-image-watermark', '--image', pngFile, P('pages-3.pdf')]],
  ])('%s: the same bytes as local work', async (_, args) => {
    const [local, far] = await both(args);
    expect((await qpdfCheck(far)).exitCode).toBe(0);
    expect(far.equals(local)).toBe(true);
  });

  it.each([
    ['split-by-page-count', ['split-by-page-count', '--page-count', '3', P('pages-10.pdf')]],
    ['split-at-page', ['split-at-page', '--page', '2', P('pages-3.pdf')]],
    ['split-by-groups', ['split-by-groups', '--groups', '3;1..2', P('pages-3.pdf')]],
    ['split-by-size', ['split-by-size', '--maximum-bytes', '100000', P('sized.pdf')]],
  ])('%s -o DIR: the same parts, byte for byte, as local work', async (_, args) => {
    const [local, far] = [outPath(''), outPath('')];
    expect((await pdfsvc([...args, '-o', local])).exitCode).toBe(0);
    const r = await pdfsvc([...remote, ...args, '-o', far]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const names = readdirSync(local).sort();
    expect(names.length).toBeGreaterThan(1);
    expect(readdirSync(far).sort()).toEqual(names);
    for (const name of names) expect(readFileSync(join(far, name)).equals(readFileSync(join(local, name))), name).toBe(true);
  });

  it('splits on standard output: --format json the same bytes as local, multipart and zip the same parts', async () => {
    const args = ['split-by-page-count', '--page-count', '4', P('pages-10.pdf')];
    const parts = (await pdfsvc([...args, '--format', 'json'])).stdout;
    const remoteJson = await pdfsvc([...remote, ...args, '--format', 'json']);
    expect(remoteJson.exitCode).toBe(0);
    expect(remoteJson.stdout.equals(parts)).toBe(true);
    const expected = (JSON.parse(parts.toString()) as { documents: Array<{ name: string; content: string }> }).documents.map((d) => [d.name, d.content]);
    expect(expected).toHaveLength(3);

    const multipart = await pdfsvc([...remote, ...args, '--format', 'multipart']);
    expect(multipart.exitCode).toBe(0);
    const boundary = /^--(\S+)\r\n/.exec(multipart.stdout.subarray(0, 200).toString('latin1'))![1];
    const read = parseMultipart(multipart.stdout, boundaryOf(`multipart/mixed; boundary=${boundary}`)!);
    expect(read.map((p) => [/filename="([^"]+)"/.exec(p.headers['content-disposition'])![1], Buffer.from(p.body).toString('base64')])).toEqual(expected);

    const zip = await pdfsvc([...remote, ...args]);
    expect(zip.exitCode).toBe(0);
    expect(new AdmZip(zip.stdout).getEntries().map((e) => [e.entryName, e.getData().toString('base64')])).toEqual(expected);
  });

  it("add-password and add-restrictions: the output opens with the password, with the input's pages", async () => {
    writeFileSync(join(dir, 'new-pw.txt'), 'fresh-pw\n');
    const locked = outPath();
    const r = await pdfsvc([...remote, 'add-password', '--password-file', join(dir, 'new-pw.txt'), P('pages-3.pdf'), '-o', locked]);
    expect(r.exitCode).toBe(0);
    expect((await qpdfCheck(readFileSync(locked), 'fresh-pw')).exitCode).toBe(0);
    expect((await qpdfCheck(readFileSync(locked))).exitCode).not.toBe(0);
    expect(await pageCount(readFileSync(locked), 'fresh-pw')).toBe(3);
    const restricted = outPath();
    const s = await pdfsvc([
      ...remote,
      'add-restrictions',
      '--owner-password-file',
      join(dir, 'new-pw.txt'),
      '--allow-print',
      'false',
      P('pages-10.pdf'),
      '-o',
      restricted,
    ]);
    expect(s.exitCode).toBe(0);
    expect((await qpdfCheck(readFileSync(restricted), 'fresh-pw')).exitCode).toBe(0);
    expect(await pageCount(readFileSync(restricted))).toBe(10);
  });

  it("a 400 is reported field by field with exit 2, like local work; --json prints the server's problem", async () => {
    const args = ['rotate', '--angle', '45', P('pages-3.pdf'), '-o', outPath()];
    const local = await pdfsvc(args);
    const far = await pdfsvc([...remote, ...args]);
    expect(far.exitCode).toBe(2);
    expect(far.stderr).toMatch(/^pdfsvc: angle: must be one of 0, 90/);
    expect(far.stderr).toBe(local.stderr);
    const json = await pdfsvc([...remote, ...args, '--json']);
    expect(json.exitCode).toBe(2);
    const problem = JSON.parse(json.stderr);
    expect(problem.type).toBe(`${server.base}/v1/errors/400`);
    expect(problem.errors.angle[0]).toMatch(/must be one of/);
  });

  it("the server's refusals are said in the command line's words (options, commands), as local work says them", async () => {
    // Each names an action or a field with an underscore in the API's words: remove_password, owner_password.
    for (const args of [
      ['rotate', '--angle', '90', P('encrypted-user.pdf'), '-o', outPath()],
      ['remove-restrictions', P('encrypted-user.pdf'), '-o', outPath()],
      ['add-restrictions', '--owner-password', 'same', '--user-password', 'same', P('pages-3.pdf'), '-o', outPath()],
      // And the API's verbs: "; send …, or leave the field out", "use line_1 … line_5".
      ['add-text-watermark', '--line-1', 'X', '--font-size', '', P('pages-3.pdf'), '-o', outPath()],
      ['add-text-watermark', '--line-1', 'X', '--line-2', 'a\tb', P('pages-3.pdf'), '-o', outPath()],
    ]) {
      const local = await pdfsvc(args);
      expect(local.exitCode, args.join(' ')).toBe(2);
      const far = await pdfsvc([...remote, ...args]);
      expect(far.exitCode, args.join(' ')).toBe(2);
      expect(far.stderr).toBe(local.stderr);
      expect(far.stderr).toMatch(/run remove-password|--owner-password|; give number .* leave the option out|use --line-1/);
      expect(far.stderr).not.toMatch(/: .*(remove_password|owner_password|line_1|\bcall\b|\bsend\b|\bfield\b)/);
      // --json keeps the server's problem, in the API's words.
      const json = JSON.parse((await pdfsvc([...remote, ...args, '--json'])).stderr);
      expect(JSON.stringify(json.errors)).toMatch(/remove_password|owner_password|; send .* the field out|use line_1/);
    }
  });

  it('a 401 says how to give a key, with none and with a wrong one (exit 1)', async () => {
    const none = await pdfsvc(['--server', server.base, 'reverse', P('pages-3.pdf'), '-o', outPath()]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/needs an API key: give one with --api-key-file FILE .* or PDFSVC_API_KEY/);
    const wrong = await pdfsvc(['reverse', P('pages-3.pdf'), '-o', outPath()], { PDFSVC_SERVER: server.base, PDFSVC_API_KEY: 'pdfsvc_wrong' });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toMatch(/does not accept this API key.*--api-key-file FILE or PDFSVC_API_KEY/);
  });

  it("a 403 names the server's region; a 413 the upload limit (exit 2)", async () => {
    const keysPath = join(dir, 'free-keys.json');
    const created = await execa(process.execPath, [CLI, 'keys', 'create', '--plan', 'free', '--keys-file', keysPath]);
    const freeKey = join(dir, 'free-key.txt');
    writeFileSync(freeKey, created.stdout.trim());
    const eu = await serve({ args: ['--workers', '1', '--region', 'eu'], keys: { path: keysPath, key: created.stdout.trim() } });
    const limited = await serve({ args: ['--workers', '1', '--max-upload-bytes', '1000'] });
    try {
      const forbidden = await pdfsvc(['--server', eu.base, '--api-key-file', freeKey, 'reverse', P('pages-3.pdf'), '-o', outPath()]);
      expect(forbidden.exitCode).toBe(1);
      expect(forbidden.stderr).toMatch(/the server \(region eu\) does not allow this API key: the free plan does not include the eu region/);
      expect(forbidden.stderr).not.toContain(created.stdout.trim());
      writeFileSync(join(dir, 'limited-key.txt'), limited.key);
      const large = await pdfsvc(['--server', limited.base, '--api-key-file', join(dir, 'limited-key.txt'), 'reverse', P('pages-10.pdf'), '-o', outPath()]);
      expect(large.exitCode).toBe(2);
      expect(large.stderr).toMatch(/larger than the server accepts.*1000 bytes/);
      expect(large.stderr).not.toContain(limited.key);
    } finally {
      await Promise.all([eu.stop(), limited.stop()]);
    }
  });

  it("a 403 for a suspended account says so, and blames no plan (the server's detail gives the cause)", async () => {
    const problem = {
      type: 'http://127.0.0.1/v1/errors/403',
      title: 'The API key is valid but not allowed on this server.',
      status: 403,
      detail: 'the account acme is suspended: its keys are refused until the operator resumes it',
    };
    const stub = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(403, { 'content-type': 'application/problem+json', 'x-region': 'eu' }).end(JSON.stringify(problem)));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
      const keyFile = join(dir, 'suspended-key.txt');
      writeFileSync(keyFile, 'pdfsvc_suspendedAccountKey');
      const refused = await pdfsvc(['--server', base, '--api-key-file', keyFile, 'reverse', P('pages-3.pdf'), '-o', outPath()]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(/the server \(region eu\) does not allow this API key: the account acme is suspended/);
      expect(refused.stderr).not.toMatch(/plan/);
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('a 406 (a server that offers none of the split packagings) says so, exit 1, and writes nothing', async () => {
    // The proxy asks the real server for application/pdf, which no split can answer.
    const proxy = await startProxy({ target: server.base, accept: 'application/pdf' });
    const out = outPath('');
    const r = await pdfsvc(['--server', proxy.url, '--api-key-file', keyFile, 'split-at-page', '--page', '2', P('pages-3.pdf'), '-o', out]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^pdfsvc: the server answered 406 /m);
    expect(existsSync(out)).toBe(false);
    const json = await pdfsvc(['--server', proxy.url, '--api-key-file', keyFile, 'split-at-page', '--page', '2', P('pages-3.pdf'), '--json'], {});
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({ status: 406 });
    await proxy.close();
  });

  it('a 503 is retried after Retry-After, then the output is written', async () => {
    const proxy = await startProxy({ target: server.base, busyFirst: 1, retryAfter: '1' });
    const out = outPath();
    const r = await pdfsvc(['--server', proxy.url, '--api-key-file', keyFile, 'reverse', P('pages-3.pdf'), '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(proxy.arrivals).toHaveLength(2);
    expect(proxy.arrivals[1] - proxy.arrivals[0]).toBeGreaterThanOrEqual(950);
    expect((await qpdfCheck(readFileSync(out))).exitCode).toBe(0);
    await proxy.close();
  });

  it('batch mode: --out-dir with --jobs 2 writes what local batch mode writes, with the same JSON lines and exit status', async () => {
    const inputs = join(dir, 'batch-in');
    mkdirSync(inputs);
    const names = ['a.pdf', 'b.pdf', 'broken.pdf', 'd.pdf'];
    for (const [name, source] of names.map((n, i) => [n, ['pages-3.pdf', 'pages-10.pdf', 'not-a-pdf.pdf', 'outline.pdf'][i]]))
      copyFileSync(P(source), join(inputs, name));
    const paths = names.map((n) => join(inputs, n));
    const local = await pdfsvc(['rotate', '--angle', '180', ...paths, '--out-dir', join(dir, 'batch-local'), '--json', '--jobs', '1']);
    const far = await pdfsvc([...remote, 'rotate', '--angle', '180', ...paths, '--out-dir', join(dir, 'batch-remote'), '--json', '--jobs', '2']);
    expect(far.exitCode).toBe(2);
    expect(far.exitCode).toBe(local.exitCode);
    const lines = (text: Buffer) =>
      text
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const [l, r] = [lines(local.stdout), lines(far.stdout)];
    expect(r.map((x) => [x.input, x.status])).toEqual(l.map((x) => [x.input, x.status]));
    expect(r[2].problem.errors).toEqual(l[2].problem.errors);
    expect(far.stderr).toMatch(/pdfsvc: 3 done, 1 failed/);
    for (const name of ['a.pdf', 'b.pdf', 'd.pdf'])
      expect(readFileSync(join(dir, 'batch-remote', name)).equals(readFileSync(join(dir, 'batch-local', name))), name).toBe(true);
    expect(readdirSync(join(dir, 'batch-remote')).sort()).toEqual(['a.pdf', 'b.pdf', 'd.pdf']);
  });

  it('https: an unknown certificate authority is refused and --cacert named; with --cacert the work is done', async () => {
    const { cert, key } = await selfSignedCertificate(dir);
    const secure = await serve({ args: ['--workers', '1', '--https', '--cert', cert, '--key', key], keys: { path: server.keysPath, key: server.key } });
    try {
      expect(secure.base).toMatch(/^https:/);
      const refused = await pdfsvc(['--server', secure.base, '--api-key-file', keyFile, 'reverse', P('pages-3.pdf'), '-o', outPath()]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(/cannot reach the server.*certificate.*--cacert FILE/);
      const [local, far] = [outPath(), outPath()];
      await pdfsvc(['reverse', P('pages-3.pdf'), '-o', local]);
      const trusted = await pdfsvc(['--server', secure.base, '--api-key-file', keyFile, '--cacert', cert, 'reverse', P('pages-3.pdf'), '-o', far]);
      expect(trusted.stderr).toBe('');
      expect(trusted.exitCode).toBe(0);
      expect(readFileSync(far).equals(readFileSync(local))).toBe(true);
    } finally {
      await secure.stop();
    }
  });

  it('never loads the PDF library (local work does)', async () => {
    const log = join(dir, 'modules.log');
    const hook = join(dir, 'record-modules.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) { const found = await next(specifier, context); appendFileSync(process.env.PDFSVC_MODULE_LOG, found.url + '\\\\n'); return found; }\`));`,
    );
    // The local run goes through dist/cli.js itself: bin/pdfsvc.js runs a local action from dist/cli-action.cjs,
    // one file read without the module loader this hook watches. It shows that the hook sees the PDF library when it loads.
    const fullCli = join(dir, 'full-cli.mjs');
    writeFileSync(fullCli, `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/cli.js')).href)};\nawait main(process.argv);\n`);
    const loaded = async (args: string[], name: string, entry = CLI) => {
      const file = `${log}.${name}`;
      const run = await execa(process.execPath, ['--import', hook, entry, ...args], {
        reject: false,
        cwd: dir,
        env: { PDFSVC_MODULE_LOG: file, PDFSVC_SERVER: '' },
        stdin: 'ignore',
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const urls = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter((url) => url.startsWith('file:') && url.includes('/dist/'));
      // pdfsvc's PDF objects (src/pdf/model/primitives.ts), as esbuild writes the class.
      return urls.filter((url) => readFileSync(new URL(url), 'latin1').includes('var PDFContext = class'));
    };
    expect(await loaded(['rotate', '--angle', '90', P('pages-3.pdf'), '-o', outPath()], 'local', fullCli)).not.toEqual([]);
    expect(await loaded([...remote, 'rotate', '--angle', '90', P('pages-3.pdf'), '-o', outPath()], 'remote')).toEqual([]);
  });
});
