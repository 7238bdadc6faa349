// Builds dist/ from src/: one esbuild pass bundles the CLI, the library entry
// and the worker with code splitting (a second one the browser-safe HTTP
// client), so that `pdfsvc --help` loads only the
// action declarations and commander, and pdf-lib (bundled: about half the
// import time of its 192 separate modules) is loaded only by a transform.
// Further passes make dist/cli-action.cjs and dist/cli-watermark.cjs, the
// command line for running one action, each a single CommonJS file with a V8
// code cache made by running it (bin/pdfsvc.js loads them; bench/README.md,
// "Start-up", says what it saves).
// Type declarations for library users come from tsc.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { buildPdf, simpleDoc } from './raw-pdf.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node built-in modules that the bundle requires at load time but a short run
 * may never use become stand-ins that load them on first use
 * (scripts/build/lazy-module.cjs): `modules` names them, `importer` says
 * whose requires change.
 */
function lazyBuiltins(modules, importer = /./) {
  const lazyModule = JSON.stringify(fileURLToPath(new URL('build/lazy-module.cjs', import.meta.url)));
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^node:(?:${modules.join('|')})$`) }, (args) =>
        importer.test(args.importer) ? { path: args.path.slice('node:'.length), namespace: 'lazy-builtin' } : undefined,
      );
      // The stand-in requires the module without `node:`, which this plugin leaves alone.
      build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
        contents: `module.exports = require(${lazyModule})(() => require(${JSON.stringify(args.path)}));`,
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}
// Commander requires child_process at load time for executable subcommands, which pdfsvc has none of.
const lazyChildProcessForCommander = lazyBuiltins(['child_process'], /[\\/]node_modules[\\/]commander[\\/]/);

// Built beside dist/ and swapped in at the end, so that a server or test
// running from dist/ meanwhile sees the old build or the new one, never none.
const next = `dist.next-${process.pid}`;
rmSync(new URL(`../${next}`, import.meta.url), { recursive: true, force: true });

// What the Node builds share.
const nodeBuild = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  // Packages with their own start-up cost or native parts stay external (PGlite
  // also loads its WebAssembly and data files from beside its own modules);
  // pdf-lib is bundled because that is what makes it load fast.
  external: ['h3', 'h3/*', 'listhen', 'srvx', 'srvx/*', 'chalk', 'adm-zip', 'piscina', 'prom-client', 'cli-progress', '@electric-sql/pglite', 'pg'],
  // pdf-lib's fflate calls go to Node's zlib (src/pdf/watermark/fflate-node.ts says why).
  alias: { fflate: './src/pdf/watermark/fflate-node.ts' },
  logLevel: 'warning',
  define: { __PDFSVC_VERSION__: JSON.stringify(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version) },
};

await build({
  ...nodeBuild,
  entryPoints: {
    index: 'src/index.ts',
    cli: 'src/cli/main.ts',
    worker: 'src/server/worker.ts',
    'batch-worker': 'src/cli/batch-worker.ts',
    'progress-worker': 'src/cli/progress-worker.ts',
  },
  outdir: next,
  splitting: true,
  format: 'esm',
  plugins: [lazyChildProcessForCommander],
  // Chunks sit beside the entries so that ./worker.js resolves from any of them.
  chunkNames: '_chunk-[hash]',
  // Some bundled CommonJS code calls require(); give ESM output one.
  banner: {
    js: "import { createRequire as __pdfsvcCreateRequire } from 'node:module'; const require = __pdfsvcCreateRequire(import.meta.url);",
  },
});

// dist/cli-action.cjs and dist/cli-watermark.cjs: the command line for one
// action, in one file (no module resolution, one compile, one code cache).
// The server, the database, the dashboard and shell completion are left out:
// modules that only those import become a stub that throws, and the actions
// whose transform reaches one run from dist/cli.js instead
// (src/cli/action-entry.ts). Worker threads start dist/*.js as before. The
// two watermarks have a file of their own (pdf-lib's embedders and font
// metrics, from their module files: a third of the code), so that a page
// action neither reads nor deserializes their code; fontkit and bidi-js, which
// only text beyond Latin-1 loads, stay outside both: fontkit in a file of its
// own (dist/cli-fontkit.cjs), bidi-js required from node_modules when used.
const FULL_CLI_ONLY = /(?:server\/serve|server\/keys-cli|store\/cli|dashboard\/command|cli\/completion)\.js$/;
const fullCliOnly = {
  name: 'full-cli-only',
  setup(build) {
    build.onResolve({ filter: FULL_CLI_ONLY }, (args) => ({ path: join(args.resolveDir, args.path), namespace: 'full-cli-only' }));
    build.onLoad({ filter: /.*/, namespace: 'full-cli-only' }, (args) => ({
      // CommonJS, so that esbuild takes any name imported from it (and warns of none).
      contents: `module.exports = (() => { throw new Error(${JSON.stringify(`${args.path} is not in the one-file CLIs; bin/pdfsvc.js should have run dist/cli.js`)}); })();`,
      loader: 'js',
    }));
  },
};
/**
 * pdf-lib's standard-font encodings (packages/standard-fonts/Encoding.js)
 * are decompressed and parsed when the module loads, about 2 ms of every run,
 * because the object model's utilities import the font names beside them;
 * only text drawing and form appearances use them. Here they are made when
 * first read. The build fails if pdf-lib's file no longer reads as expected.
 */
const lazyFontEncodings = {
  name: 'lazy-font-encodings',
  setup(build) {
    build.onLoad({ filter: /[\\/]@cantoo[\\/]pdf-lib[\\/]es[\\/]packages[\\/]standard-fonts[\\/]Encoding\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = [
        'const decompressedEncodings = decompressJson(AllEncodingsCompressed);\nconst allUnicodeMappings = JSON.parse(decompressedEncodings);\n',
        "export const Encodings = {\n    Symbol: new Encoding('Symbol', allUnicodeMappings.symbol),\n    ZapfDingbats: new Encoding('ZapfDingbats', allUnicodeMappings.zapfdingbats),\n    WinAnsi: new Encoding('WinAnsi', allUnicodeMappings.win1252),\n};\n",
      ];
      if (!eager.every((text) => source.includes(text))) throw new Error(`${args.path} has changed: see lazyFontEncodings in scripts/build.mjs`);
      const lazy = source
        .replace(eager[0], 'let allUnicodeMappings;\nconst mappings = () => (allUnicodeMappings ??= JSON.parse(decompressJson(AllEncodingsCompressed)));\n')
        .replace(
          eager[1],
          'const made = {};\nconst encoding = (name, key) => (made[name] ??= new Encoding(name, mappings()[key]));\n' +
            "export const Encodings = {\n    get Symbol() { return encoding('Symbol', 'symbol'); },\n    get ZapfDingbats() { return encoding('ZapfDingbats', 'zapfdingbats'); },\n    get WinAnsi() { return encoding('WinAnsi', 'win1252'); },\n};\n",
        );
      return { contents: lazy, loader: 'js' };
    });
  },
};
/**
 * pdf-lib turns a standard font's inflated metrics (67 KB of JSON for
 * Helvetica-Bold) into a string one character at a time (`str +=
 * String.fromCharCode(...)`): about 8 ms of every text watermark, against
 * 0.2 ms for Buffer's latin1 decoding, which gives the same string.
 */
const fastFontJson = {
  name: 'fast-font-json',
  setup(build) {
    build.onLoad({ filter: /[\\/]@cantoo[\\/]pdf-lib[\\/]es[\\/]packages[\\/]standard-fonts[\\/]utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const slow =
        "const arrayToString = (array) => {\n    let str = '';\n    for (let i = 0; i < array.length; i++) {\n        str += String.fromCharCode(array[i]);\n    }\n    return str;\n};\n";
      if (!source.includes(slow)) throw new Error(`${args.path} has changed: see fastFontJson in scripts/build.mjs`);
      const fast = "const arrayToString = (array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('latin1');\n";
      return { contents: source.replace(slow, fast), loader: 'js' };
    });
  },
};
/**
 * The text watermark draws Latin-1 text in Helvetica-Bold from pdfsvc's own
 * table of its metrics (src/pdf/watermark/helvetica-bold.ts), yet pdf-lib's
 * font table imports the metrics of all fourteen standard fonts: 130 KB of
 * the watermark CLI's source that every run reads and compiles. In the
 * one-file CLIs they are left out, and asking pdf-lib for one throws, naming
 * this plugin. The build fails if pdfsvc's watermark code names one of
 * pdf-lib's standard fonts or pdf-lib's file no longer reads as expected.
 */
const noStandardFontMetrics = {
  name: 'no-standard-font-metrics',
  setup(build) {
    const watermarkDir = join(root, 'src', 'pdf', 'watermark');
    for (const file of readdirSync(watermarkDir)) {
      if (/\bStandardFonts\.(?!js\b)\w+/.test(readFileSync(join(watermarkDir, file), 'utf8')))
        throw new Error(`src/pdf/watermark/${file} names a standard font of pdf-lib's: see noStandardFontMetrics in scripts/build.mjs`);
    }
    build.onLoad({ filter: /[\\/]@cantoo[\\/]pdf-lib[\\/]es[\\/]packages[\\/]standard-fonts[\\/][A-Za-z-]+\.compressed\.json$/ }, (args) => {
      if (/[\\/]all-encodings\.compressed\.json$/.test(args.path)) return undefined;
      return { contents: 'export default undefined;', loader: 'js' };
    });
    build.onLoad({ filter: /[\\/]@cantoo[\\/]pdf-lib[\\/]es[\\/]packages[\\/]standard-fonts[\\/]Font\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const load = '    const json = decompressJson(compressedJsonForFontName[fontName]);\n';
      if (!source.includes(load)) throw new Error(`${args.path} has changed: see noStandardFontMetrics in scripts/build.mjs`);
      const refused = `    throw new Error(\`the standard font \${fontName} is not in this build (scripts/build.mjs, noStandardFontMetrics)\`);\n${load}`;
      return { contents: source.replace(load, refused), loader: 'js' };
    });
  },
};
/**
 * The code caches of the one-file CLIs, by the actions that share one (dist/FILE.cjs.GROUP.cache, the name
 * cli-route.ts gives it). V8 deserializes a whole cache on every run: the rotate (the start-up row) has one of
 * its own, the security actions one with their key derivation and ciphers, which they compiled from source
 * before (add_password on ten-pages 51.7 -> 48.0 ms; bench/README.md, startup2).
 */
const CODE_CACHE_GROUPS = {
  rotate: ['rotate_pages'],
  pages: ['reverse_pages', 'reorder_pages', 'remove_pages', 'extract_pages', 'remove_signatures'],
  merge: ['merge_documents'],
  split: ['split_by_page_count', 'split_by_size', 'split_at_page', 'split_by_groups'],
  security: ['add_password', 'add_restrictions', 'remove_password', 'remove_restrictions'],
  watermarks: ['add_text_watermark', 'add_image_watermark'],
};
/**
 * The group of CODE_CACHE_GROUPS that `action` is in. A new action (one folder, nothing else to edit) shares the
 * page actions' cache, which holds the reader and the writer, until it is given a group and warm-up runs.
 */
function codeCacheGroup(action) {
  return Object.keys(CODE_CACHE_GROUPS).find((name) => CODE_CACHE_GROUPS[name].includes(action)) ?? 'pages';
}
/** Each one-file CLI: its file in dist/, its actions (undefined: every action no other one holds). */
const ONE_FILE_CLIS = [
  { file: 'cli-watermark', actions: ['add_text_watermark', 'add_image_watermark'] },
  { file: 'cli-action', actions: undefined },
];
/** Whether `action` is in `cli`'s file. */
const holds = (cli, action) => cli.actions?.includes(action) ?? !ONE_FILE_CLIS.some((other) => other.actions?.includes(action));
/** The transforms of the actions another one-file CLI holds become a stub that throws (bin/pdfsvc.js never calls them). */
function otherFilesTransforms(cli) {
  return {
    name: 'other-files-transforms',
    setup(build) {
      build.onResolve({ filter: /^\.\/transform\.js$/ }, (args) => {
        const action = /[\\/]src[\\/]actions[\\/]([a-z_]+)$/.exec(args.resolveDir)?.[1];
        if (action === undefined || holds(cli, action)) return undefined;
        return { path: join(args.resolveDir, args.path), namespace: 'other-file' };
      });
      build.onLoad({ filter: /.*/, namespace: 'other-file' }, (args) => ({
        contents: `module.exports = (() => { throw new Error(${JSON.stringify(`${args.path} is not in dist/${cli.file}.cjs; bin/pdfsvc.js should have run another file`)}); })();`,
        loader: 'js',
      }));
    },
  };
}
/** In the one-file CLIs, fontkit is dist/cli-fontkit.cjs (below), loaded with its code cache by src/cli/fontkit-file.ts. */
const fontkitFile = {
  name: 'fontkit-file',
  setup(build) {
    build.onResolve({ filter: /^@cantoo\/fontkit$/ }, () => ({ path: join(root, 'src/cli/fontkit-file.ts') }));
  },
};
/**
 * fontkit decodes its Unicode tables from base64 in JavaScript when it loads
 * (about 9 ms): in dist/cli-fontkit.cjs, Node's decoder does it. The build
 * fails if fontkit's file no longer reads as expected.
 */
const fontkitBase64 = {
  name: 'fontkit-base64',
  setup(build) {
    build.onLoad({ filter: /[\\/]@cantoo[\\/]fontkit[\\/]dist[\\/]main\.cjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const decoders = /^function (decodeBase64\d*)\(base64\) \{$/gm;
      const names = [...source.matchAll(decoders)].map((match) => match[1]);
      if (names.length !== 2) throw new Error(`scripts/build.mjs: expected fontkit's two decodeBase64 functions in ${args.path}, found ${names.length}`);
      // The same bytes: a Uint8Array of its own (the tables are read through views of its buffer).
      return { contents: source.replace(decoders, '$&\n  return new Uint8Array(Buffer.from(base64, "base64"));'), loader: 'js' };
    });
  },
};
const oneFileCli = (cli) => ({
  ...nodeBuild,
  entryPoints: { [cli.file]: 'src/cli/action-entry.ts' },
  outdir: next,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  external: [...nodeBuild.external, 'bidi-js'],
  // Every run reads the whole file into a string (about 1.8 us a KB): without comments and indentation it is 425 KB
  // instead of 624 (a 10-page rotate 37.46 -> 37.06 ms, peak RSS -0.3 MiB; bench/README.md, startup2). Names and
  // syntax are kept (stack traces name functions; the source map has the rest).
  minifyWhitespace: true,
  plugins: [fullCliOnly, otherFilesTransforms(cli), lazyFontEncodings, fastFontJson, noStandardFontMetrics, fontkitFile],
  // import() of an external package (adm-zip, cli-progress) becomes require():
  // V8 drops the dynamic-import callback of code that comes from a code cache.
  supported: { 'dynamic-import': false },
  // The worker threads' files are found from import.meta.url, the file's own
  // address, made when first read (node:url and the URL class: ~0.4 ms of every run).
  define: { ...nodeBuild.define, 'import.meta': '__pdfsvcImportMeta' },
  banner: {
    js: [
      "const __pdfsvcImportMeta = { get url() { return __pdfsvcBuiltin('node:url').pathToFileURL(__filename).href; } };",
      // Node's built-ins through process.getBuiltinModule, not require() (BUILTIN_REQUIRE says why).
      'const __pdfsvcBuiltin = (id) => process.getBuiltinModule(id);',
      `const __pdfsvcLazyModule = ${createRequire(import.meta.url)('./build/lazy-module.cjs')};`,
    ].join('\n'),
  },
});
// Built-in modules that a run of one action may not need: their requires get
// the stand-in of scripts/build/lazy-module.cjs. (Done on the output: a plugin
// would make them bundled modules, which esbuild copies whole at load time.)
const LAZY_BUILTINS = /\brequire\("(node:(?:child_process|crypto|fs\/promises|worker_threads|os|http|https|tls|net|zlib))"\)/g;
/**
 * Every other require() of a built-in: process.getBuiltinModule returns the
 * same module without what require() adds for a user's first require of it
 * (the module loader's lookup, and an ES module facade of its exports: node:fs
 * ~17 us, node:events ~75 us, node:process ~15 us in a fresh process; about
 * 80 us of a 10-page rotate; bench/README.md, startup3).
 */
const BUILTIN_REQUIRE = /\brequire\("(node:[a-z_/]+)"\)/g;
/**
 * The file in ASCII, so that bin/pdfsvc.js can read it as Latin-1 (a plain
 * copy; UTF-8 decoding of a file with any other character, an arrow in a
 * comment, made a two-byte string: about 2 ms). esbuild escapes such
 * characters in strings but not in comments nor regular expressions: on a
 * comment's line each becomes `?` (one per UTF-16 unit, so the source map's
 * columns hold), elsewhere its `\uXXXX` escape, which means the same
 * character in a regular expression, and is only text in a comment.
 */
function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (char, at) => {
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
    // A line that starts as a comment (a regular expression cannot span lines; strings are escaped).
    if (/^\s*(?:\*|\/\*|\/\/)/.test(line)) return '?';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
/**
 * A one-file CLI is written as the function Node's CommonJS loader would wrap
 * it in, and bin/pdfsvc.js compiles the file's text as it is: wrapping it at
 * run time (Module.wrap) joined a 620 KB string that V8 then copied whole to
 * compile it (a 10-page rotate 36.95 -> 36.16 ms; bench/README.md, startup2).
 * The file is no module for require() then: oneFileCliExports loads it.
 */
const COMMONJS_WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n})'];
/** The exports of a one-file CLI, loaded as bin/pdfsvc.js loads it. */
function oneFileCliExports(path) {
  const mod = { exports: {} };
  new Script(readFileSync(path, 'latin1'), { filename: path }).runInThisContext()(mod.exports, createRequire(path), mod, path, dirname(path));
  return mod.exports;
}
/** The command name or alias of each action a one-file CLI runs: that file's name in dist/ and the action's code cache group. */
const oneFileCommands = {};
for (const cli of ONE_FILE_CLIS) {
  const build1 = oneFileCli(cli);
  const { metafile } = await build({ ...build1, define: { ...build1.define, __PDFSVC_ACTIONS_HERE__: '[]' }, write: false, metafile: true });
  // The actions of this file whose transform reaches a module of the full CLI only.
  const fullCliActions = [];
  for (const input of Object.keys(metafile.inputs)) {
    const action = /^src\/actions\/([a-z_]+)\/transform\.ts$/.exec(input)?.[1];
    if (!action) continue;
    const seen = new Set([input]);
    const queue = [input];
    while (queue.length > 0) {
      const file = queue.pop();
      for (const { path } of metafile.inputs[file]?.imports ?? []) {
        if (path.startsWith('full-cli-only:')) {
          fullCliActions.push(action);
          queue.length = 0;
          break;
        }
        if (!seen.has(path)) seen.add(path), queue.push(path);
      }
    }
  }
  const here = Object.keys(metafile.inputs)
    .map((input) => /^src\/actions\/([a-z_]+)\/action\.ts$/.exec(input)?.[1])
    .filter((action) => action !== undefined && holds(cli, action) && !fullCliActions.includes(action))
    .sort();
  const { outputFiles } = await build({ ...build1, define: { ...build1.define, __PDFSVC_ACTIONS_HERE__: JSON.stringify(here) }, write: false });
  for (const output of outputFiles) {
    const text = output.path.endsWith('.cjs')
      ? COMMONJS_WRAPPER.join(
          asciiOnly(output.text.replace(LAZY_BUILTINS, '__pdfsvcLazyModule(() => require("$1"))').replace(BUILTIN_REQUIRE, '__pdfsvcBuiltin("$1")')),
        )
      : output.text;
    writeFileSync(output.path, text);
  }
  // The command names, asked of the file itself.
  const { commandNames } = oneFileCliExports(fileURLToPath(new URL(`../${next}/${cli.file}.cjs`, import.meta.url)));
  for (const [name, action] of commandNames()) oneFileCommands[name] = [`${cli.file}.cjs`, codeCacheGroup(action)];
}

// dist/cli-fontkit.cjs: fontkit and the packages it uses, for the one-file CLIs (src/cli/fontkit-file.ts), with
// their fflate and Brotli calls on Node's zlib (src/pdf/watermark/fflate-node.ts, brotli-node.ts): a text
// watermark beyond Latin-1 loaded fontkit from node_modules in ~60 ms of CPU, this in ~20 (bench/README.md,
// "fontkit in one file"). Written as the one-file CLIs are: in the CommonJS wrapper, ASCII, without whitespace.
{
  const { outputFiles } = await build({
    ...nodeBuild,
    entryPoints: { 'cli-fontkit': createRequire(import.meta.url).resolve('@cantoo/fontkit') },
    outdir: next,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    minifyWhitespace: true,
    alias: { ...nodeBuild.alias, 'brotli/decompress.js': './src/pdf/watermark/brotli-node.ts' },
    plugins: [fontkitBase64],
    write: false,
  });
  for (const output of outputFiles) writeFileSync(output.path, output.path.endsWith('.cjs') ? COMMONJS_WRAPPER.join(asciiOnly(output.text)) : output.text);
}

// dist/cli-route.cjs: which file a command line runs from, with the command
// names of the one-file CLIs' actions.
await build({
  ...nodeBuild,
  entryPoints: { 'cli-route': 'src/cli/cli-route.ts' },
  outdir: next,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  define: { ...nodeBuild.define, __PDFSVC_ONE_FILE_COMMANDS__: JSON.stringify(oneFileCommands) },
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

/**
 * A document with the parts of real ones that a merge reads and in.pdf lacks: object and cross-reference
 * streams, an outline, named destinations, a link, an opening action, page labels, a layer, a form field, a title.
 */
function richDoc() {
  const catalog = [
    '/Outlines 20 0 R /Names << /Dests 23 0 R >> /OpenAction [4 0 R /Fit] /PageLabels << /Nums [0 << /S /r >>] >>',
    '/OCProperties << /OCGs [26 0 R] /D << /Order [26 0 R] /ON [26 0 R] >> >> /AcroForm << /Fields [27 0 R] /DA (/Helv 0 Tf 0 g) >>',
  ].join(' ');
  const doc = simpleDoc(['one', 'two'], { catalog, page: (i) => (i === 0 ? '/Annots [24 0 R 27 0 R]' : '') });
  doc.objects.push(
    { num: 20, body: '<< /Type /Outlines /First 21 0 R /Last 22 0 R /Count 2 >>' },
    { num: 21, body: '<< /Title (One) /Parent 20 0 R /Next 22 0 R /Dest (one) >>' },
    { num: 22, body: '<< /Title (Two) /Parent 20 0 R /Prev 21 0 R /A << /S /GoTo /D [6 0 R /Fit] >> >>' },
    { num: 23, body: '<< /Names [(one) [4 0 R /XYZ 0 792 0]] >>' },
    { num: 24, body: '<< /Type /Annot /Subtype /Link /Rect [0 0 100 100] /Dest (one) >>' },
    { num: 25, body: '<< /Title (Rich) >>' },
    { num: 26, body: '<< /Type /OCG /Name (Layer) >>' },
    { num: 27, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (value) /Rect [0 0 100 20] /P 4 0 R >>' },
  );
  return { ...doc, xref: 'stream', trailer: '/Info 25 0 R', objectStreams: [{ num: 30, members: [1, 2, 3, 4, 6, 20, 21, 22, 23, 24, 25, 26, 27] }] };
}

// The code caches of the one-file CLIs, one per CODE_CACHE_GROUPS entry:
// bin/pdfsvc.js runs each action of the group on small documents and writes
// what V8 compiled by then (each run adds to the cache the one before wrote),
// and a second pass checks that V8 accepts it. Each action runs on in.pdf (a
// classic table) and rich.pdf (object and cross-reference streams): a rotate's
// cache without the latter made a rotate of a small file with object streams
// 2 ms slower.
// Without NODE_OPTIONS: V8 takes a cache only under the flags it was made
// with (a user's own flags make bin/pdfsvc.js compile from source).
{
  const work = mkdtempSync(join(tmpdir(), 'pdfsvc-build-'));
  try {
    const input = join(work, 'in.pdf');
    // What most real files have and simpleDoc's lacks, so that the code reading it is in the caches too (a
    // 10-page rotate compiled six functions from source for them): a file ID, and a page whose content is an
    // array of streams.
    const plain = simpleDoc(['one', 'two', 'three']);
    const contentsArray = (object) =>
      object.num === plain.pages[1] ? { ...object, body: object.body.replace(/\/Contents (\d+) 0 R/, '/Contents [$1 0 R]') } : object;
    const fileId = '/ID [<5044465356432d6275696c642d3031> <5044465356432d6275696c642d3031>]';
    writeFileSync(input, buildPdf([{ ...plain, objects: plain.objects.map(contentsArray), trailer: fileId }]).bytes);
    // What real inputs have and in.pdf lacks (cross-reference and object streams, an outline, named
    // destinations, a link, a title), so that the code reading them is in the cache too.
    const rich = join(work, 'rich.pdf');
    writeFileSync(rich, buildPdf([richDoc()]).bytes);
    const image = join(work, 'mark.png');
    // A 4 x 4 RGBA PNG (the common watermark image: colour and alpha).
    writeFileSync(
      image,
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAANklEQVR4nBXIMQHAMAACQYQxIIuxSqqCsUqipp8bT4oeR2+jb9GRYsKECd8oUaJEb4wYMWLnBwIpGhFd3BPYAAAAAElFTkSuQmCC',
        'base64',
      ),
    );
    const { NODE_OPTIONS: _, ...env } = process.env;
    const bin = fileURLToPath(new URL('../bin/pdfsvc.js', import.meta.url));
    const pdfsvc = (args, mode) => execFileSync(process.execPath, [bin, ...args], { env: mode ? { ...env, PDFSVC_CODE_CACHE: mode } : env, stdio: 'inherit' });
    // Inputs for the actions that take an encrypted or restricted document, made before any cache is.
    const locked = (doc, args) => {
      const out = join(work, `locked-${args.join('-')}-${doc === rich ? 'rich' : 'in'}.pdf`);
      pdfsvc([...args, doc, '-o', out]);
      return out;
    };
    const PASSWORD = 'build-password';
    const encrypted = [
      locked(input, ['add-password', '--password', PASSWORD]),
      locked(rich, ['add-password', '--password', PASSWORD, '--encryption-algorithm', 'AES-256']),
    ];
    const restricted = [locked(input, ['add-restrictions', '--owner-password', PASSWORD]), locked(rich, ['add-restrictions', '--owner-password', PASSWORD])];
    const parts = join(work, 'parts');
    const documents = ['-o', parts, '--force'];
    /** Each action's runs (each to its own output, unless it names the parts' directory). */
    const warmUps = {
      rotate_pages: [input, rich].map((doc) => ['rotate', '--angle', '90', doc]),
      reverse_pages: [input, rich].map((doc) => ['reverse', doc]),
      reorder_pages: [input, rich].map((doc) => ['reorder', '--page-order', '-1..1', doc]),
      remove_pages: [input, rich].map((doc) => ['remove', '--pages', '1', doc]),
      extract_pages: [input, rich].map((doc) => ['extract', '--pages', '1', doc]),
      remove_signatures: [input, rich].map((doc) => ['remove-signatures', doc]),
      merge_documents: [['merge', rich, input, rich]],
      split_by_page_count: [input, rich].map((doc) => ['split-by-page-count', '--page-count', '1', doc, ...documents]),
      split_by_size: [input, rich].map((doc) => ['split-by-size', '--maximum-bytes', '1000', doc, ...documents]),
      split_at_page: [input, rich].map((doc) => ['split-at-page', '--page', '2', doc, ...documents]),
      split_by_groups: [input, rich].map((doc) => ['split-by-groups', '--groups', '1;2', doc, ...documents]),
      add_password: [
        ['add-password', '--password', PASSWORD, input],
        ['add-password', '--password', PASSWORD, '--encryption-algorithm', 'AES-256', rich],
      ],
      remove_password: encrypted.map((doc) => ['remove-password', '--password', PASSWORD, doc]),
      add_restrictions: [input, rich].map((doc) => ['add-restrictions', '--owner-password', PASSWORD, doc]),
      remove_restrictions: restricted.map((doc) => ['remove-restrictions', doc]),
      add_text_watermark: [
        ...[input, rich].map((doc) => ['add-text-watermark', '--line-1', 'DRAFT', doc]),
        // Text beyond Latin-1 (Cyrillic, Chinese, Korean), for dist/cli-fontkit.cjs's cache.
        ['add-text-watermark', '--line-1', 'Черновик', '--line-2', '草稿 초안', input],
      ],
      add_image_watermark: [input, rich].map((doc) => ['add-image-watermark', '--image', image, doc]),
    };
    const routed = [...new Set(Object.values(oneFileCommands).map(([, group]) => group))].flatMap((group) => CODE_CACHE_GROUPS[group]);
    const missing = routed.filter((action) => !Object.hasOwn(warmUps, action));
    if (missing.length > 0) throw new Error(`scripts/build.mjs: no warm-up runs for ${missing.join(', ')} (warmUps makes the code caches)`);
    for (const mode of ['write', 'check']) {
      for (const action of routed) {
        for (const [i, args] of warmUps[action].entries()) {
          pdfsvc(args.includes(parts) ? args : [...args, '-o', join(work, `${mode}-${action}-${i}.pdf`)], mode);
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

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
