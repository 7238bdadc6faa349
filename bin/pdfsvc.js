#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// A one-shot command keeps little alive between its steps: a young generation
// that stays at its first size (V8 grows it to 3 x 16 MB) cuts peak memory on
// a large document by 15-20 MB, at no cost in time we could measure
// (bench/real.mjs). The server keeps V8's defaults.
if (process.argv.slice(2).find((arg) => !arg.startsWith('-')) !== 'serve') setFlagsFromString('--semi-space-growth-factor=1');

// The built CLI lives in dist/ (made by `npm install` / `npm run build`).
import('../dist/cli.js').then((cli) => cli.main(process.argv)).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist')) {
    process.stderr.write('pdfsvc: not built yet: run `npm install` (or `npm run build`) in the package folder\n');
  } else {
    process.stderr.write(`pdfsvc: ${err && err.stack ? err.stack : err}\n`);
  }
  process.exitCode = 1;
});
