// Builds dist/ from src/: one esbuild pass bundles the CLI, the library entry
// and the worker with code splitting (a second one the browser-safe HTTP
// client), so that `pdfsvc --help` loads only the
// action declarations and commander, and pdf-lib (bundled: about half the
// import time of its 192 separate modules) is loaded only by a transform.
// Type declarations for library users come from tsc.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Commander's node:child_process becomes a lazy stand-in (scripts/build/lazy-child-process.cjs says why). */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL('build/lazy-child-process.cjs', import.meta.url)) }
        : undefined,
    );
  },
};
// Built beside dist/ and swapped in at the end, so that a server or test
// running from dist/ meanwhile sees the old build or the new one, never none.
const next = `dist.next-${process.pid}`;
rmSync(new URL(`../${next}`, import.meta.url), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: {
    index: 'src/index.ts',
    cli: 'src/cli/main.ts',
    worker: 'src/server/worker.ts',
    'batch-worker': 'src/cli/batch-worker.ts',
    'progress-worker': 'src/cli/progress-worker.ts',
  },
  outdir: next,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  // Packages with their own start-up cost or native parts stay external (PGlite
  // also loads its WebAssembly and data files from beside its own modules);
  // pdf-lib is bundled because that is what makes it load fast.
  external: ['h3', 'h3/*', 'listhen', 'srvx', 'srvx/*', 'chalk', 'adm-zip', 'piscina', 'prom-client', 'cli-progress', '@electric-sql/pglite', 'pg'],
  // pdf-lib's fflate calls go to Node's zlib (src/pdf/model/fflate-node.ts says why).
  alias: { fflate: './src/pdf/model/fflate-node.ts' },
  plugins: [lazyChildProcessForCommander],
  // Chunks sit beside the entries so that ./worker.js resolves from any of them.
  chunkNames: '_chunk-[hash]',
  logLevel: 'warning',
  define: { __PDFSVC_VERSION__: JSON.stringify(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version) },
  // Some bundled CommonJS code calls require(); give ESM output one.
  banner: {
    js: "import { createRequire as __pdfsvcCreateRequire } from 'node:module'; const require = __pdfsvcCreateRequire(import.meta.url);",
  },
});

// The HTTP client (pdfsvc/client) runs in browsers too: a pass of its own,
// with no node: banner and no chunks shared with the Node entries. It needs
// the action declarations only; their lazily imported transforms (and with
// them pdf-lib) are replaced by a stub that is never called.
await build({
  absWorkingDir: root,
  entryPoints: { client: 'src/client/index.ts' },
  outdir: next,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: ['es2022'],
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'no-transforms',
      setup(build) {
        build.onResolve({ filter: /\/transform\.js$/ }, (args) => ({ path: args.path, namespace: 'no-transform' }));
        build.onLoad({ filter: /.*/, namespace: 'no-transform' }, () => ({
          contents: "throw new Error('pdfsvc/client sends actions to a server; it has no transforms');",
          loader: 'js',
        }));
      },
    },
  ],
});
const clientCode = readFileSync(new URL(`../${next}/client.js`, import.meta.url), 'utf8');
const nodeOnly = /\bfrom\s*["']node:|\bimport\(\s*["']node:|\brequire\(/.exec(clientCode);
if (nodeOnly) throw new Error(`dist/client.js must run in browsers, but it contains ${JSON.stringify(nodeOnly[0])}`);

const old = `dist.old-${process.pid}`;
try {
  renameSync(new URL('../dist', import.meta.url), new URL(`../${old}`, import.meta.url));
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(new URL(`../${next}`, import.meta.url), new URL('../dist', import.meta.url));
rmSync(new URL(`../${old}`, import.meta.url), { recursive: true, force: true });

if (!process.argv.includes('--no-types')) {
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.json', '--emitDeclarationOnly'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
