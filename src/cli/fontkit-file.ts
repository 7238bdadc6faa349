/**
 * fontkit in dist/cli-watermark.cjs (the build puts this module in
 * `@cantoo/fontkit`'s place there): dist/cli-fontkit.cjs, fontkit and the
 * packages it uses in one file, compiled with the V8 code cache beside it,
 * as bin/pdfsvc.js compiles the one-file CLIs (code-cache.ts). From
 * node_modules, a watermark beyond Latin-1 spent more on loading fontkit than
 * on drawing: resolving a dozen packages, compiling them, decoding its
 * Unicode tables with JavaScript's base64 and inflate, and loading a Brotli
 * decoder whose dictionary is JavaScript source (bench/README.md, "fontkit in
 * one file"). Only a text that needs fontkit loads this.
 */
import { join } from 'node:path';
import { ONE_FILE_CLI_V8_FLAGS } from '../core/v8-flags.js';
import { codeCacheStep, compileWithCache, runCommonJs } from './code-cache.js';

/** dist/, where the one-file CLI runs from: its CommonJS wrapper's own argument (bin/pdfsvc.js passes it). */
declare const __dirname: string;

const file = join(__dirname, 'cli-fontkit.cjs');
// V8 takes the cache only under the flags it was made with, bin/pdfsvc.js's: the run may have changed some since.
const compiled = compileWithCache(file, `${file}.cache`, ONE_FILE_CLI_V8_FLAGS);
if (compiled === undefined) throw new Error(`pdfsvc: ${file} is missing: run \`npm run build\` in the package folder`);
const fontkit = (runCommonJs(compiled, require, __dirname) as { default: unknown }).default;

// The build's runs write the cache at the end of the run, so that the functions the run compiled are in it (each
// adding to the one before), and check that V8 takes it, as the bin does for the CLI's.
if (process.env.PDFSVC_CODE_CACHE === 'write') process.once('exit', () => codeCacheStep(compiled, ONE_FILE_CLI_V8_FLAGS));
else codeCacheStep(compiled, ONE_FILE_CLI_V8_FLAGS);

export default fontkit;
