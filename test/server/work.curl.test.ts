/**
 * The API as a customer first meets it: the README's curl commands against a
 * real `pdfsvc serve`, with the slips curl makes easy. `-F file=in.pdf` (the
 * @ left out) sends the name as text: the 400 says so and how to send the
 * file. `-F 'groups=1..3;4..'` is cut at the `;` by curl itself (a part
 * parameter to it), silently under `-sS`: the README says to use
 * --form-string, and this checks that advice holds.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath, pageCount } from '../helpers/pdf-tools.js';
import { haveTool } from '../helpers/tools.js';
import { serve, type Served } from './spawn.js';

const CURL = '/usr/bin/curl';
const haveCurl = haveTool(CURL, 'the curl tests', 'apt-get install -y curl');

describe.skipIf(!haveCurl)('curl against a real server', () => {
  let server: Served;
  let dir: string;
  beforeAll(async () => {
    server = await serve({ args: ['--workers', '1'] });
    dir = mkdtempSync(join(tmpdir(), 'pdfsvc-curl-'));
    for (const name of ['pages-3.pdf', 'pages-10.pdf', 'not-a-pdf.pdf', 'watermark.png']) writeFileSync(join(dir, name), readFileSync(fixturePath(name)));
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Runs curl in the directory holding the files, as a user would; returns status, content type and body. */
  async function curl(action: string, args: string[], accept?: string) {
    const out = join(dir, 'answer');
    const run = await execa(
      CURL,
      [
        '-sS',
        '-o',
        out,
        '-w',
        '%{http_code} %{content_type}',
        '-H',
        `X-API-Key: ${server.key}`,
        ...(accept ? ['-H', `Accept: ${accept}`] : []),
        ...args,
        `${server.base}/v1/${action}`,
      ],
      { cwd: dir },
    );
    const [status, contentType] = run.stdout.split(' ');
    const body = readFileSync(out);
    return { status: Number(status), contentType, body, problem: contentType === 'application/problem+json' ? JSON.parse(body.toString()) : undefined };
  }

  it('a file name sent instead of the file (-F file=in.pdf): the 400 says what came and how to send the file', async () => {
    const reply = await curl('rotate_pages', ['-F', 'file=pages-3.pdf', '-F', 'angle=90']);
    expect(reply.status).toBe(400);
    expect(reply.problem.code).toBe('damaged');
    expect(reply.problem.errors.file).toHaveLength(2);
    expect(reply.problem.errors.file[0]).toMatch(/could not be parsed/);
    expect(reply.problem.errors.file[1]).toBe(
      'it was sent as the text "pages-3.pdf" (a form field with no file name), not as a file: send the file\'s content (with curl, -F file=@pages-3.pdf: the @ reads the file)',
    );
    // The command the message gives works.
    const fixed = await curl('rotate_pages', ['-F', 'file=@pages-3.pdf', '-F', 'angle=90']);
    expect(fixed.status).toBe(200);
    expect(await pageCount(fixed.body)).toBe(3);
  });

  it('merge names the document that was a name, and an image field gets the same help', async () => {
    const merge = await curl('merge_documents', ['-F', 'file=@pages-3.pdf', '-F', 'file=pages-10.pdf']);
    expect(merge.status).toBe(400);
    expect(merge.problem.code).toBe('damaged');
    expect(merge.problem.errors.file[0]).toMatch(/^document 2 could not be parsed/);
    expect(merge.problem.errors.file[1]).toMatch(/^document 2 was sent as the text "pages-10\.pdf" .* -F file=@pages-10\.pdf/);
    const image = await curl('add_image_watermark', ['-F', 'file=@pages-3.pdf', '-F', 'image=watermark.png']);
    expect(image.status).toBe(400);
    expect(image.problem.code).toBe('bad_image');
    expect(image.problem.errors.image[1]).toMatch(/^it was sent as the text "watermark\.png" .* -F image=@watermark\.png/);
  });

  it('a real file that is no PDF, and a PDF sent as a field without a file name, are as before', async () => {
    const broken = await curl('rotate_pages', ['-F', 'file=@not-a-pdf.pdf', '-F', 'angle=90']);
    expect(broken.status).toBe(400);
    expect(broken.problem.code).toBe('damaged');
    expect(broken.problem.errors.file).toHaveLength(1);
    // -F 'file=<in.pdf' sends the content with no file name: a file field takes it all the same.
    const content = await curl('rotate_pages', ['-F', 'file=<pages-3.pdf', '-F', 'angle=90']);
    expect(content.status).toBe(200);
    expect(await pageCount(content.body)).toBe(3);
  });

  it('a path that names no action but is near one (the CLI spelling, a short verb, no /v1, a typo): the 404 says which', async () => {
    const detail = async (path: string) => {
      const run = await execa(CURL, ['-sS', '-H', `X-API-Key: ${server.key}`, '-F', 'file=@pages-3.pdf', '-F', 'angle=90', `${server.base}${path}`], {
        cwd: dir,
      });
      const problem = JSON.parse(run.stdout);
      expect(problem.status).toBe(404);
      return problem.detail as string;
    };
    for (const path of ['/v1/rotate-pages', '/v1/rotate', '/rotate_pages', '/v1/rotate_page', '/v1/Rotate_Pages/']) {
      expect(await detail(path)).toBe(`no endpoint ${path}; did you mean POST /v1/rotate_pages? actions are POST /v1/<action> (see GET /v1/openapi.json)`);
    }
    expect(await detail('/v1/frobnicate')).toBe('no endpoint /v1/frobnicate; actions are POST /v1/<action> (see GET /v1/openapi.json)');
  });

  it("groups with ';': -F cuts the value at the first ';' (silently under -sS), --form-string sends it whole", async () => {
    const names = (body: Buffer) => (JSON.parse(body.toString()) as { documents: Array<{ name: string }> }).documents.map((d) => d.name);
    const cut = await curl('split_by_groups', ['-F', 'file=@pages-10.pdf', '-F', 'groups=1..3;4,6;7..'], 'application/json');
    expect(cut.status).toBe(200);
    expect(names(cut.body)).toEqual(['00001.pdf']);
    const whole = await curl('split_by_groups', ['-F', 'file=@pages-10.pdf', '--form-string', 'groups=1..3;4,6;7..'], 'application/json');
    expect(whole.status).toBe(200);
    expect(names(whole.body)).toEqual(['00001.pdf', '00002.pdf', '00003.pdf']);
  });
});
