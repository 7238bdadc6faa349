#!/usr/bin/env node
// The built CLI lives in dist/ (made by `npm install` / `npm run build`).
import('../dist/cli.js')
  .then((cli) => cli.main(process.argv))
  .catch((err) => {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist')) {
      process.stderr.write('pdfsvc: not built yet: run `npm install` (or `npm run build`) in the package folder\n');
    } else {
      process.stderr.write(`pdfsvc: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  });
