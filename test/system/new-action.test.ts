/**
 * Adding an action is one new folder and `npm run readme`: a throwaway 18th
 * action (turn_pages: a declaration, a transform and a test, nothing else)
 * is added to a copy of the repository, `npm run readme` and `npm run build`
 * run there, and then every surface must see it: the CLI (--help, `actions`,
 * running it), the HTTP route, the OpenAPI document, the HTTP client, the
 * shell completion, the fuzz run, the README check, the registry test and
 * the action's own test; and the typed library export type-checks.
 */
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { fixture, fixturePath, pdfinfo } from '../helpers/pdf-tools.js';
import { keysFile, postAction, ROOT, send, serve, type Served } from '../server/spawn.js';

const NAME = 'turn_pages';

/** The whole action: one folder of three files. */
const FOLDER: Record<string, string> = {
  'action.ts': `import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';

export const fields = {
  file: pdfFile,
  turns: { kind: 'integer', required: true, oneOf: [1, 2, 3], example: 2, help: 'Quarter turns clockwise.' },
  pages: { ...selectedPages, help: 'The pages to turn; omitted means every page.' },
} as const satisfies FieldMap;

export default defineAction({
  name: '${NAME}',
  group: 'pages',
  summary: 'Turn pages by whole quarter turns (a throwaway action of the catalog test).',
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
`,
  'transform.ts': `import type { Transform } from '../../core/action.js';
import rotatePages from '../rotate_pages/transform.js';
import type { fields } from './action.js';

const turnPages: Transform<typeof fields, 'document'> = (values, context) =>
  rotatePages({ file: values.file, angle: values.turns * 90, pages: values.pages }, context);

export default turnPages;
`,
  [`${NAME}.test.ts`]: `import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { turnPages } from '../../index.js';

it('${NAME} turns the pages it is asked to', async () => {
  const out = await turnPages({ file: readFileSync(new URL('../../../fixtures/out/pages-3.pdf', import.meta.url)), turns: 1, pages: '2' });
  const path = join(tmpdir(), 'pdfsvc-${NAME}-' + process.pid + '.pdf');
  writeFileSync(path, out);
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', '3', path], { encoding: 'utf8' });
  expect([...info.matchAll(/^Page\\s+\\d+ rot:\\s+(\\d+)/gm)].map((m) => Number(m[1]))).toEqual([0, 90, 0]);
});
`,
};

let copy: string;
/** The environment without a request to write the README (npm run readme sets it itself). */
const { PDFSVC_WRITE_README: _, ...environment }: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
const run = (command: string, args: string[], timeout = 300_000) =>
  execa(command, args, { cwd: copy, reject: false, timeout, env: environment, extendEnv: false });
const cli = (...args: string[]) => run(process.execPath, [join(copy, 'bin/pdfsvc.js'), ...args]);
const rotations = async (bytes: Uint8Array) => (await pdfinfo(bytes)).pages.map((page) => page.rotation);

describe('a new action is one folder and npm run readme', () => {
  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'pdfsvc-new-action-'));
    // The tracked files as they are in the working tree (tar keeps their times, so the fixtures in the copy stay up to date).
    const files = (await execa('git', ['ls-files', '-z'], { cwd: ROOT })).stdout.split('\0').filter(Boolean);
    await execa('tar', ['--null', '-T', '-', '-cf', '-'], { cwd: ROOT, input: files.join('\0'), encoding: 'buffer' }).then(({ stdout }) =>
      execa('tar', ['-xf', '-', '-C', copy], { input: stdout }),
    );
    cpSync(join(ROOT, 'fixtures/out'), join(copy, 'fixtures/out'), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    mkdirSync(join(copy, 'src/actions', NAME));
    for (const [file, text] of Object.entries(FOLDER)) writeFileSync(join(copy, 'src/actions', NAME, file), text);

    const readme = await run('npm', ['run', 'readme']);
    expect(readme.exitCode, readme.stdout + readme.stderr).toBe(0);
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.stdout + build.stderr).toBe(0);
  }, 600_000);
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('npm run readme listed it in the catalog, the library and the README; the checks pass and the types hold', async () => {
    expect(readFileSync(join(copy, 'src/actions/catalog.ts'), 'utf8')).toContain(`import turnPages from './${NAME}/action.js';`);
    expect(readFileSync(join(copy, 'src/index.ts'), 'utf8')).toContain('export const turnPages = library(catalog.turnPages);');
    expect(readFileSync(join(copy, 'README.md'), 'utf8')).toContain(`#### \`${NAME}\``);
    // After the other page actions, before the splits: the order of listings.
    const catalog = readFileSync(join(copy, 'src/actions/catalog.ts'), 'utf8');
    expect(catalog.indexOf('  turnPages,')).toBeGreaterThan(catalog.indexOf('  mergeDocuments,'));
    expect(catalog.indexOf('  turnPages,')).toBeLessThan(catalog.indexOf('  splitBySize,'));
    const tests = await run('npx', ['vitest', 'run', 'test/system/readme.test.ts', 'test/system/registry.test.ts', `src/actions/${NAME}/`]);
    expect(tests.exitCode, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/Test Files\s+3 passed/);
    const types = await run('npx', ['tsc', '--noEmit']);
    expect(types.exitCode, types.stdout + types.stderr).toBe(0);
    // A library user's view, through the package's own types (dist/types): the new function, its fields typed.
    writeFileSync(
      join(copy, 'library-user.ts'),
      `import { turnPages } from 'pdfsvc';
const turned: Promise<Uint8Array> = turnPages({ file: new Uint8Array(), turns: 2 });
// @ts-expect-error turns is one of 1, 2, 3
void turnPages({ file: new Uint8Array(), turns: 4 });
// @ts-expect-error turns is required
void turnPages({ file: new Uint8Array() });
void turned;
`,
    );
    const user = await run('npx', [
      'tsc',
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      '--types',
      'node',
      'library-user.ts',
    ]);
    expect(user.exitCode, user.stdout + user.stderr).toBe(0);
  }, 600_000);

  it('the CLI lists it, documents its fields and runs it', async () => {
    expect((await cli('--help')).stdout).toMatch(/turn-pages/);
    const listed = JSON.parse((await cli('actions', '--json')).stdout) as Array<{ name: string }>;
    // After the last page action: the order of listings.
    const at = actions.findLastIndex((action) => action.group === 'pages') + 1;
    expect(listed.map((a) => a.name)).toEqual([...actions.map((a) => a.name).slice(0, at), NAME, ...actions.map((a) => a.name).slice(at)]);
    const help = await cli('turn-pages', '--help');
    expect(help.stdout).toMatch(/--turns <value>/);
    expect(help.stdout).toMatch(/one of 1, 2, 3/);
    const out = join(copy, 'turned.pdf');
    const ran = await cli(NAME, '--turns', '2', fixturePath('pages-3.pdf'), '-o', out);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(await rotations(readFileSync(out))).toEqual([180, 180, 180]);
    const refused = await cli('turn-pages', '--turns', '4', fixturePath('pages-3.pdf'), '-o', out);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/turns: must be one of 1, 2, 3; got 4/);
  });

  it('the shell completion offers it and its options', async () => {
    const bash = (await cli('completion', 'bash')).stdout;
    expect(bash).toContain('turn-pages');
    expect(bash).toContain('--turns');
  });

  describe('through a server of the copy', () => {
    let served: Served;
    beforeAll(async () => {
      served = await serve({ cli: join(copy, 'bin/pdfsvc.js'), keys: await keysFile() });
    });
    afterAll(async () => {
      await served?.stop();
    });

    it('is an HTTP route', async () => {
      const reply = await postAction(served, NAME, { file: fixture('pages-3.pdf'), turns: '3', pages: '1' });
      expect(reply.status, reply.body.toString()).toBe(200);
      expect(await rotations(reply.body)).toEqual([270, 0, 0]);
      const refused = await postAction(served, NAME, { file: fixture('pages-3.pdf') });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body.toString()).errors).toEqual({ turns: ['is required'] });
    });

    it('is in the OpenAPI document, with its example', async () => {
      const doc = JSON.parse((await send(`${served.base}/v1/openapi.json`)).body.toString()) as {
        paths: Record<
          string,
          {
            post: {
              operationId: string;
              requestBody: {
                content: Record<string, { schema: { properties: Record<string, { examples?: unknown[]; enum?: unknown[] }>; required: string[] } }>;
              };
            };
          }
        >;
      };
      const operation = doc.paths[`/v1/${NAME}`].post;
      expect(operation.operationId).toBe(NAME);
      const schema = operation.requestBody.content['multipart/form-data'].schema;
      expect(schema.required).toEqual(['file', 'turns']);
      expect(schema.properties.turns).toMatchObject({ enum: [1, 2, 3], examples: [2] });
    });

    it('the HTTP client of the copy calls it', async () => {
      const { createClient } = (await import(pathToFileURL(join(copy, 'dist/client.js')).href)) as {
        createClient: (options: { baseUrl: string; apiKey: string }) => Record<string, (fields: Record<string, unknown>) => Promise<Uint8Array>>;
      };
      const client = createClient({ baseUrl: served.base, apiKey: served.key });
      expect(await rotations(await client.turnPages({ file: fixture('pages-3.pdf'), turns: 1 }))).toEqual([90, 90, 90]);
    });
  });

  it('the fuzz run takes it', async () => {
    const fuzz = await run(process.execPath, ['scripts/fuzz.mjs', '--actions', NAME, '--cases', '6', '--seed', '1', '--jobs', '1']);
    expect(fuzz.exitCode, fuzz.stdout + fuzz.stderr).toBe(0);
    expect(fuzz.stderr).toMatch(/1 actions/);
    expect(fuzz.stdout).toMatch(/6 cases, \d+ outputs, \d+ refused with a 400, 0 failed/);
  });
});
