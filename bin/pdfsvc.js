#!/usr/bin/env node
// The built CLI lives in dist/ (made by `npm install` / `npm run build`), in
// three forms: dist/cli-action.cjs runs one action (`pdfsvc rotate …`) and
// dist/cli-watermark.cjs one of the two watermarks, each loaded here with the
// V8 code cache the build made for that action; dist/cli.js runs every command.
// dist/cli-route.cjs says which one a command line needs. This file is
// CommonJS (bin/package.json): an ES module entry costs Node its module
// loader before any of our code runs. bench/README.md, "Start-up", has the
// measurements.
'use strict';
// Built-ins through process.getBuiltinModule: require() adds a lookup and an ES module facade of their exports.
const { readFileSync, renameSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

const dist = join(__dirname, '..', 'dist');

/** A one-file CLI's exports and its compiled script, or undefined when it is not built. `found`: oneFileCli()'s. */
function loadOneFileCli({ file: name, cache, route }) {
  const v8Flags = route.ONE_FILE_CLI_V8_FLAGS;
  const file = join(dist, name);
  let source;
  try {
    // ASCII (the build sees to it): Latin-1 reads it as a plain copy, UTF-8 decoding costs more.
    source = readFileSync(file, 'latin1');
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
  const cacheFile = join(dist, cache);
  let cachedData;
  try {
    // The build's runs that write the cache read it too: each adds what it compiled to the one before.
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build without one): V8 compiles from the source.
  }
  // Node's built-ins come with a code cache that V8 takes only under the flags the process started with:
  // those the run will need are loaded before the flags change (node:crypto alone ~5 ms less; cli-route.ts).
  const vm = process.getBuiltinModule('node:vm');
  for (const builtin of route.builtinsToLoadFirst(process.argv)) process.getBuiltinModule(builtin);
  // V8 takes a code cache only under the flags it was made with, and main() sets
  // the first one (src/core/heap-growth.ts); set them before compiling. The build checks
  // that the cache is taken, so a change there shows up at `npm run build`.
  // One action is a short run. The young generation keeps its first size (V8 grows it to 16 MB,
  // all garbage here: bench/README.md, "Peak RSS (branch rss)"), and functions run four times
  // V8's budget of calls and loops before they are optimized: by default its optimizing compiler
  // (TurboFan, on a background thread that the process waits for at exit) took 15-20 ms of a
  // 10-page rotate's CPU for functions hot only for a moment, and more than it saved on longer
  // runs too (bench/README.md, "Start-up"). The flags are src/core/v8-flags.ts's, set as it sets them
  // (without loading node:v8 and Node's streams with it).
  route.setV8Flags(v8Flags);
  // The file is the function Node's module loader would wrap it in (scripts/build.mjs, COMMONJS_WRAPPER), compiled
  // as it is read: wrapping it here made a 620 KB string that V8 copied whole. It has no import(): the build makes
  // them require().
  const script = new vm.Script(source, { filename: file, cachedData });
  const mod = { exports: {} };
  // node:module's createRequire, without loading node:module (and the ES module loader and source maps it requires).
  script.runInThisContext()(mod.exports, module.constructor.createRequire(file), mod, file, dist);
  // Whether there was a cache, not the cache: its half a megabyte need not live as long as the run.
  return { cli: mod.exports, script, cacheFile, hadCache: cachedData !== undefined, v8Flags, route };
}

/** For the build (scripts/build.mjs): writes the code cache after a run, or checks that V8 took it. */
function codeCacheStep(loaded) {
  const mode = process.env.PDFSVC_CODE_CACHE;
  if (mode === 'write') {
    // V8 stamps a cache with the flags in force when it is made and takes it only under the same ones; a run
    // may have changed one for itself once its input was seen (src/core/heap-growth.ts): the load's go back.
    loaded.route.setV8Flags(loaded.v8Flags);
    const partial = `${loaded.cacheFile}.${process.pid}`;
    writeFileSync(partial, loaded.script.createCachedData());
    renameSync(partial, loaded.cacheFile);
  } else if (mode === 'check' && (!loaded.hadCache || loaded.script.cachedDataRejected)) {
    process.stderr.write(`pdfsvc: V8 did not take the code cache ${loaded.cacheFile}\n`);
    process.exitCode = 1;
  }
}

function fail(err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist')) {
    process.stderr.write('pdfsvc: not built yet: run `npm install` (or `npm run build`) in the package folder\n');
  } else {
    process.stderr.write(`pdfsvc: ${err && err.stack ? err.stack : err}\n`);
  }
  process.exitCode = 1;
}

/** The one-file CLI in dist/ that runs this command line, if any, its action's code cache, and dist/cli-route.cjs (which knows; a few KB to load). */
function oneFileCli() {
  try {
    const route = require(join(dist, 'cli-route.cjs'));
    const found = route.oneFileCliFor(process.argv);
    return found === undefined ? undefined : { ...found, route };
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

let loaded;
try {
  const found = oneFileCli();
  loaded = found === undefined ? undefined : loadOneFileCli(found);
} catch (err) {
  fail(err);
}
if (loaded) {
  loaded.cli
    .main(process.argv)
    .then(() => {
      codeCacheStep(loaded);
      // Nothing left to wait for (no write in flight, no worker, no timer): exit now rather than let Node
      // tear down the heap and the environment first, which process.exit() skips (~0.7 ms of a 10-page
      // rotate). Anything still pending (output on a pipe, say) gets the ordinary end.
      if (process.getActiveResourcesInfo().length === 0) process.exit();
    })
    .catch(fail);
} else if (process.exitCode === undefined) {
  import('../dist/cli.js').then((cli) => cli.main(process.argv)).catch(fail);
}
