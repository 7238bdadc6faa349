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
const { join } = process.getBuiltinModule('node:path');

const dist = join(__dirname, '..', 'dist');

/**
 * A one-file CLI compiled with its code cache, and its exports, or undefined when it is not built. `found`:
 * oneFileCli()'s. dist/cli-route.cjs compiles it (src/cli/code-cache.ts, which loads fontkit the same way).
 */
function loadOneFileCli({ file: name, cache, route }) {
  const file = join(dist, name);
  // Node's built-ins come with a code cache that V8 takes only under the flags the process started with:
  // those the run will need are loaded before the flags change (node:crypto alone ~5 ms less; cli-route.ts).
  for (const builtin of route.builtinsToLoadFirst(process.argv)) process.getBuiltinModule(builtin);
  // V8 takes a code cache only under the flags it was made with, and main() sets
  // the first one (src/core/heap-growth.ts); they are set before compiling, and kept. The build checks
  // that the cache is taken, so a change there shows up at `npm run build`.
  // One action is a short run. The young generation keeps its first size (V8 grows it to 16 MB,
  // all garbage here: bench/README.md, "Peak RSS (branch rss)"), and functions run four times
  // V8's budget of calls and loops before they are optimized: by default its optimizing compiler
  // (TurboFan, on a background thread that the process waits for at exit) took 15-20 ms of a
  // 10-page rotate's CPU for functions hot only for a moment, and more than it saved on longer
  // runs too (bench/README.md, "Start-up"). The flags are src/core/v8-flags.ts's, set as it sets them
  // (without loading node:v8 and Node's streams with it).
  const compiled = route.compileWithCache(file, join(dist, cache), route.ONE_FILE_CLI_V8_FLAGS, { keepFlags: true });
  if (compiled === undefined) return undefined;
  // node:module's createRequire, without loading node:module (and the ES module loader and source maps it requires).
  // The file has no import(): the build makes them require().
  const cli = route.runCommonJs(compiled, module.constructor.createRequire(file), dist);
  return { cli, compiled, route };
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
      // For the build (scripts/build.mjs): writes the code cache after a run, or checks that V8 took it.
      loaded.route.codeCacheStep(loaded.compiled, loaded.route.ONE_FILE_CLI_V8_FLAGS);
      // Nothing left to wait for (no write in flight, no worker, no timer): exit now rather than let Node
      // tear down the heap and the environment first, which process.exit() skips (~0.7 ms of a 10-page
      // rotate). Anything still pending (output on a pipe, say) gets the ordinary end.
      if (process.getActiveResourcesInfo().length === 0) process.exit();
    })
    .catch(fail);
} else if (process.exitCode === undefined) {
  import('../dist/cli.js').then((cli) => cli.main(process.argv)).catch(fail);
}
