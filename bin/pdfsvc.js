#!/usr/bin/env node
// The built CLI lives in dist/ (made by `npm install` / `npm run build`), in two
// forms: dist/cli-action.cjs runs one action (`pdfsvc rotate …`), and is loaded
// here with the V8 code cache the build made for it; dist/cli.js runs every
// command. dist/cli-route.cjs says which one a command line needs. This file is CommonJS (bin/package.json): an ES module entry costs
// Node its module loader before any of our code runs. bench/README.md,
// "Start-up", has the measurements.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');

/** dist/cli-action.cjs's exports and its compiled script, or undefined when it is not built. */
function loadActionCli() {
  const file = join(dist, 'cli-action.cjs');
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
  const cacheFile = `${file}.cache`;
  let cachedData;
  if (process.env.PDFSVC_CODE_CACHE !== 'write') {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache (a build without one): V8 compiles from the source.
    }
  }
  // V8 takes a code cache only under the flags it was made with, and main() sets
  // this one (src/core/heap-growth.ts); set it before compiling. The build checks
  // that the cache is taken, so a change there shows up at `npm run build`.
  require('node:v8').setFlagsFromString('--heap-growing-percent=100');
  // One action is a short run: at V8's default budget, optimizing compilers (on
  // other threads, counted in CPU time) took a fifth of an images-shape run for
  // code that had little left to run. Four times the budget optimizes only what
  // stays hot (bench/README.md, "images: page actions, watermarks, splits").
  require('node:v8').setFlagsFromString('--interrupt-budget=270000');
  const vm = require('node:vm');
  const Module = require('node:module');
  // The file has no import(): the build makes them require().
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dist);
  return { cli: mod.exports, script, cacheFile, cachedData };
}

/** For the build (scripts/build.mjs): writes the code cache after a run, or checks that V8 took it. */
function codeCacheStep(loaded) {
  const mode = process.env.PDFSVC_CODE_CACHE;
  if (mode === 'write') {
    const partial = `${loaded.cacheFile}.${process.pid}`;
    writeFileSync(partial, loaded.script.createCachedData());
    renameSync(partial, loaded.cacheFile);
  } else if (mode === 'check' && (loaded.cachedData === undefined || loaded.script.cachedDataRejected)) {
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

/** Whether dist/cli-action.cjs runs this command line (dist/cli-route.cjs knows; a few hundred bytes to load). */
function runsInActionCli() {
  try {
    return require(join(dist, 'cli-route.cjs')).runsInActionCli(process.argv);
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND') return false;
    throw err;
  }
}

let loaded;
try {
  loaded = runsInActionCli() ? loadActionCli() : undefined;
} catch (err) {
  fail(err);
}
if (loaded) {
  loaded.cli
    .main(process.argv)
    .then(() => codeCacheStep(loaded))
    .catch(fail);
} else if (process.exitCode === undefined) {
  import('../dist/cli.js').then((cli) => cli.main(process.argv)).catch(fail);
}
