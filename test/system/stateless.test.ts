/**
 * Stateless, proven: every action of the catalog runs through a real server
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
import { examplePassword, exampleRequest } from '../helpers/examples.js';
import { pageCount } from '../helpers/pdf-tools.js';
import { keysFile, postAction, serve, tempDir, type Served } from '../server/spawn.js';

/** Every action of the catalog with every field set to its example (the declarations'), which succeeds. */
const REQUESTS = Object.fromEntries(
  actions.map((action) => [action.name, { fields: exampleRequest(action, undefined, true), splits: action.output === 'documents' }]),
);

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

  it.each(Object.entries(REQUESTS))('%s answers 200', async (name, { fields, splits }) => {
    const reply = await postAction(served, name, fields, { headers: splits ? { accept: 'application/zip' } : {} });
    expect(reply.status, reply.body.toString('utf8').slice(0, 500)).toBe(200);
    if (splits) {
      expect(reply.headers['content-type']).toBe('application/zip');
      expect(reply.body.subarray(0, 2).toString('latin1')).toBe('PK');
    } else {
      expect(reply.headers['content-type']).toBe('application/pdf');
      expect(reply.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(await pageCount(reply.body, examplePassword(fields))).toBeGreaterThan(0);
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
