/**
 * fontkit in dist/cli-watermark.cjs (the build puts this module in
 * `@cantoo/fontkit`'s place there): dist/cli-fontkit.cjs, fontkit and the
 * packages it uses in one file, compiled with the V8 code cache beside it,
 * as bin/pdfsvc.js compiles the one-file CLIs. From node_modules, a
 * watermark beyond Latin-1 spent more on loading fontkit than on drawing:
 * resolving a dozen packages, compiling them, decoding its Unicode tables
 * with JavaScript's base64 and inflate, and loading a Brotli decoder whose
 * dictionary is JavaScript source (bench/README.md, "fontkit in one file").
 * Only a text that needs fontkit loads this.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { ONE_FILE_CLI_V8_FLAGS, underFlags } from '../core/v8-flags.js';

/** dist/, where the one-file CLI runs from: its CommonJS wrapper's own argument (bin/pdfsvc.js passes it). */
declare const __dirname: string;

const file = join(__dirname, 'cli-fontkit.cjs');
const cacheFile = `${file}.cache`;
// ASCII (the build sees to it): Latin-1 reads it as a plain copy.
const source = readFileSync(file, 'latin1');
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // No cache (a build without one): V8 compiles from the source.
}
// V8 takes the cache only under the flags it was made with, bin/pdfsvc.js's: the run may have changed some since.
const script = underFlags(ONE_FILE_CLI_V8_FLAGS, () => new Script(source, { filename: file, cachedData }));
const loaded = { exports: {} as { default: unknown } };
// The file is the function Node's module loader would wrap it in (scripts/build.mjs), as the one-file CLIs are.
script.runInThisContext()(loaded.exports, require, loaded, file, __dirname);

// The build's runs write the cache (each adding to the one before) and check that V8 takes it, as the bin does for the CLI's.
const mode = process.env.PDFSVC_CODE_CACHE;
if (mode === 'write') {
  // At the end of the run, so that the functions the run compiled are in it.
  process.once('exit', () => {
    const partial = `${cacheFile}.${process.pid}`;
    writeFileSync(
      partial,
      underFlags(ONE_FILE_CLI_V8_FLAGS, () => script.createCachedData()),
    );
    renameSync(partial, cacheFile);
  });
} else if (mode === 'check' && (cachedData === undefined || script.cachedDataRejected)) {
  process.stderr.write(`pdfsvc: V8 did not take the code cache ${cacheFile}\n`);
  process.exitCode = 1;
}

export default loaded.exports.default;
