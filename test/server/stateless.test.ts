/**
 * Stateless, proven: every one of the 17 actions runs through a real server
 * that cannot write to the file system at all. Node's permission model
 * (`--experimental-permission` with read access and worker threads only)
 * turns any write (a temporary file, a cache, a log file) into an error that
 * would fail the request; the working directory and TMPDIR are fresh,
 * read-only folders that must still be empty at the end. Being root ignores
 * file modes, which is why the permission model is the real proof here.
 */
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { fixture, pageCount } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/render.js';
import { keysFile, postAction, serve, tempDir, type FormPart, type Served } from './spawn.js';

const PNG = makePng(40, 20, () => [200, 30, 30, 160]);

/** A request that succeeds, for every action, and the pages its output must have (null: a split, checked by packaging). */
const REQUESTS: Record<string, { fields: Record<string, FormPart>; pages: number | null }> = {
  add_password: { fields: { file: fixture('pages-3.pdf'), password: 'open-sesame' }, pages: null },
  add_restrictions: { fields: { file: fixture('pages-3.pdf'), owner_password: 'owner-pw', allow_print: 'false' }, pages: 3 },
  remove_password: { fields: { file: fixture('encrypted-user.pdf'), password: 'secret-user' }, pages: null },
  remove_restrictions: { fields: { file: fixture('restricted.pdf') }, pages: null },
  remove_signatures: { fields: { file: fixture('signed.pdf') }, pages: null },
  reorder_pages: { fields: { file: fixture('pages-3.pdf'), page_order: '3,1,2' }, pages: 3 },
  extract_pages: { fields: { file: fixture('pages-3.pdf'), pages: '2..' }, pages: 2 },
  rotate_pages: { fields: { file: fixture('pages-3.pdf'), angle: '90' }, pages: 3 },
  reverse_pages: { fields: { file: fixture('pages-3.pdf') }, pages: 3 },
  remove_pages: { fields: { file: fixture('pages-3.pdf'), pages: '1' }, pages: 2 },
  merge_documents: { fields: { file: [fixture('pages-3.pdf'), fixture('pages-1.pdf')] }, pages: 4 },
  split_by_size: { fields: { file: fixture('pages-10.pdf'), maximum_bytes: '20000' }, pages: null },
  split_by_page_count: { fields: { file: fixture('pages-10.pdf'), page_count: '4' }, pages: null },
  split_at_page: { fields: { file: fixture('pages-10.pdf'), page: '5' }, pages: null },
  split_by_groups: { fields: { file: fixture('pages-10.pdf'), groups: '1..3;4,6' }, pages: null },
  add_text_watermark: { fields: { file: fixture('pages-3.pdf'), line_1: 'DRAFT', line_2: 'Черновик · Προσχέδιο' }, pages: 3 },
  add_image_watermark: { fields: { file: fixture('pages-3.pdf'), image: PNG }, pages: 3 },
};

describe('stateless: every action through a server that cannot write to disk', () => {
  let served: Served;
  let cwd: string;
  let tmp: string;
  beforeAll(async () => {
    cwd = tempDir('pdfsvc-readonly-cwd-');
    tmp = tempDir('pdfsvc-readonly-tmp-');
    const keys = await keysFile();
    chmodSync(cwd, 0o555);
    chmodSync(tmp, 0o555);
    served = await serve({
      keys,
      cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: cwd,
        TMPDIR: tmp,
        NODE_OPTIONS: '--experimental-permission --allow-fs-read=* --allow-worker',
      },
    });
  });
  afterAll(async () => {
    await served?.stop();
    chmodSync(cwd, 0o755);
    chmodSync(tmp, 0o755);
  });

  it('covers every action of the catalog', () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(actions.map((a) => a.name).sort());
  });

  it.each(Object.entries(REQUESTS))('%s answers 200', async (name, { fields, pages }) => {
    const reply = await postAction(served, name, fields, { headers: name.startsWith('split_') ? { accept: 'application/zip' } : {} });
    expect(reply.status, reply.body.toString('utf8').slice(0, 500)).toBe(200);
    if (name.startsWith('split_')) {
      expect(reply.headers['content-type']).toBe('application/zip');
      expect(reply.body.subarray(0, 2).toString('latin1')).toBe('PK');
    } else {
      expect(reply.headers['content-type']).toBe('application/pdf');
      expect(reply.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      if (pages !== null) expect(await pageCount(reply.body)).toBe(pages);
    }
  });

  it('wrote nothing: the working directory and TMPDIR are empty, and no request failed inside', () => {
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(statSync(join(cwd)).mode & 0o777).toBe(0o555);
    const requests = served.log().filter((line) => 'status' in line);
    expect(requests).toHaveLength(Object.keys(REQUESTS).length);
    expect(requests.filter((line) => line.status !== 200 || line.fault)).toEqual([]);
    expect(served.stderr()).not.toMatch(/ERR_ACCESS_DENIED/);
  });
});
