/**
 * The V8 interrupt budgets the command line sets are multiples of V8's own,
 * named once (src/core/v8-flags.ts): bin/pdfsvc.js reads its flags from the
 * built dist/cli-route.cjs, merge's from the same module, and neither file
 * writes a number of its own that could drift from the other.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { kebabName } from '../../src/core/action.js';
import { LATE_INTERRUPT_BUDGET, ONE_FILE_CLI_V8_FLAGS } from '../../src/core/v8-flags.js';
import { fixturePath } from '../helpers/pdf-tools.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('V8 interrupt budgets', () => {
  it("are four and sixteen times the budget this Node's V8 has by default", async () => {
    const { stdout } = await execa('node', ['--v8-options']);
    const byDefault = Number(/--interrupt-budget=(\d+)/.exec(stdout.slice(stdout.indexOf('  --interrupt-budget ')))?.[1]);
    expect(byDefault).toBe(66 * 1024);
    expect(ONE_FILE_CLI_V8_FLAGS).toContain(`--interrupt-budget=${4 * byDefault}`);
    expect(LATE_INTERRUPT_BUDGET).toBe(16 * byDefault);
  });

  it('are written as numbers nowhere else: the bin takes its flags from dist/cli-route.cjs', () => {
    for (const file of ['bin/pdfsvc.js', 'src/core/heap-growth.ts']) expect(read(file), file).not.toMatch(/interrupt-budget=\d/);
    expect(read('bin/pdfsvc.js')).toContain('route.compileWithCache(file, join(dist, cache), route.ONE_FILE_CLI_V8_FLAGS, { keepFlags: true })');
    const route = createRequire(import.meta.url)('../../dist/cli-route.cjs') as { ONE_FILE_CLI_V8_FLAGS?: string };
    expect(route.ONE_FILE_CLI_V8_FLAGS).toBe(ONE_FILE_CLI_V8_FLAGS);
  });

  it("take effect when the bin's compileWithCache keeps them, through Node's binding or (without it) node:v8, with no warning", async () => {
    // --trace-gc set at run time: V8 then prints each collection of the garbage the script makes. The file
    // compiled is any script (cli-route.cjs itself, not run), without a cache.
    const script = (withoutBinding: boolean) =>
      `${withoutBinding ? "process.binding = () => { throw new Error('no binding'); };" : ''}
      require('./dist/cli-route.cjs').compileWithCache('dist/cli-route.cjs', 'dist/no-such.cache', '--trace-gc', { keepFlags: true });
      const kept = [];
      for (let i = 0; i < 300000; i++) kept.push({ i });
      process.stdout.write(String(process.moduleLoadList.includes('NativeModule v8')));`;
    for (const withoutBinding of [false, true]) {
      const { stdout, stderr } = await execa('node', ['--pending-deprecation', '-e', script(withoutBinding)]);
      expect(stdout, withoutBinding ? 'node:v8' : 'the binding').toMatch(/Scavenge/);
      expect(stdout.endsWith(String(withoutBinding)), 'node:v8 loaded only without the binding').toBe(true);
      expect(stderr).toBe('');
    }
  });
});

describe("Node's built-ins and the flags the bin sets", () => {
  it("the security actions load node:crypto while Node's code cache of it is taken; a page action loads none of it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-builtins-'));
    try {
      // Node reports each built-in it compiles and whether V8 took its code cache (rejected under changed flags).
      const { NODE_OPTIONS: _, ...env } = process.env;
      const run = (args: string[]) =>
        execa('node', ['bin/pdfsvc.js', ...args], { env: { ...env, NODE_DEBUG_NATIVE: 'CODE_CACHE' }, extendEnv: false, all: true });
      const encrypted = join(dir, 'encrypted.pdf');
      for (const args of [
        ['add-password', '--password', 'built-ins', fixturePath('pages-10.pdf'), '-o', encrypted],
        ['remove-password', '--password', 'built-ins', encrypted, '-o', join(dir, 'decrypted.pdf')],
      ]) {
        const { all } = await run(args);
        expect(all, args[0]).toMatch(/Code cache of crypto \(\w+\) is accepted/);
        expect(all, args[0]).not.toMatch(/Code cache of [\w/]*(crypto|stream)[\w/]* \(\w+\) is rejected/);
      }
      const { all } = await run(['rotate', '--angle', '90', fixturePath('pages-10.pdf'), '-o', join(dir, 'rotated.pdf')]);
      expect(all).not.toMatch(/Compiling [\w/]*crypto/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('A one-action run', () => {
  it("takes a code cache the build made by running its action, and V8 accepts it; the rotate's is its own", async () => {
    const route = createRequire(import.meta.url)('../../dist/cli-route.cjs') as {
      oneFileCliFor(argv: string[]): { file: string; cache: string } | undefined;
    };
    const cacheOf = (action: string) => route.oneFileCliFor(['node', 'pdfsvc', kebabName(action), 'in.pdf'])?.cache;
    for (const action of actions) {
      const cache = cacheOf(action.name);
      expect(cache, action.name).toMatch(/^cli-\w+\.cjs\.\w+\.cache$/);
      expect(existsSync(new URL(`../../dist/${cache}`, import.meta.url)), action.name).toBe(true);
    }
    const others = actions.filter((action) => action.name !== 'rotate_pages').map((action) => cacheOf(action.name));
    expect(others).not.toContain(cacheOf('rotate_pages'));
    expect(cacheOf('add_password')).not.toBe(cacheOf('merge_documents'));
    // The bin's check (PDFSVC_CODE_CACHE=check, as the build runs it) fails when V8 rejects the cache or there is none.
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-code-cache-'));
    try {
      const { NODE_OPTIONS: _, ...env } = process.env;
      const { exitCode, stderr } = await execa(
        'node',
        ['bin/pdfsvc.js', 'rotate', '--angle', '90', fixturePath('pages-10.pdf'), '-o', join(dir, 'rotated.pdf')],
        {
          env: { ...env, PDFSVC_CODE_CACHE: 'check' },
          extendEnv: false,
          reject: false,
        },
      );
      expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads fontkit for text beyond Latin-1 from dist/cli-fontkit.cjs with its cache, which V8 takes, and draws what the full CLI draws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdfsvc-fontkit-file-'));
    try {
      const { NODE_OPTIONS: _, ...env } = process.env;
      // Cyrillic, Chinese and Korean; Arabic (joined by fontkit's shaping, which reads the Unicode tables the build
      // decodes with Node's base64); Hebrew (bidi-js).
      const lines = ['--line-1', 'Черновик 草稿 초안', '--line-2', 'سري للغاية', '--line-3', 'טיוטה'];
      const input = fixturePath('pages-10.pdf');
      // pages-10.pdf is a tiny input: its run changes V8's flags before fontkit loads (core/heap-growth.ts), and the
      // cache is taken all the same (core/v8-flags.ts, underFlags).
      const oneFile = join(dir, 'one-file.pdf');
      const run = await execa('node', ['bin/pdfsvc.js', 'add-text-watermark', ...lines, input, '-o', oneFile], {
        env: { ...env, PDFSVC_CODE_CACHE: 'check', NODE_DEBUG: 'module' },
        extendEnv: false,
        reject: false,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/did not take/);
      // Node's module loader never looked for fontkit in node_modules.
      expect(run.stderr).not.toMatch(/@cantoo[\\/]fontkit/);
      const full = join(dir, 'full.pdf');
      const script = `import('./dist/cli.js').then((cli) => cli.main(${JSON.stringify(['node', 'pdfsvc', 'add-text-watermark', ...lines, input, '-o', full])}))`;
      await execa('node', ['-e', script], { env, extendEnv: false });
      expect(readFileSync(oneFile).equals(readFileSync(full))).toBe(true);
      // Drawn: the text the full CLI's file holds is the watermark's (pdftotext reads it back).
      const { stdout } = await execa('pdftotext', ['-f', '1', '-l', '1', oneFile, '-']);
      expect(stdout).toContain('Черновик');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
