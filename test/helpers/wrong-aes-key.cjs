// Loaded with `node --require` (NODE_OPTIONS, so a server's worker threads
// load it too) into a pdfsvc process a test runs: every AES cipher made to
// encrypt gets its key with one bit flipped, as a fault in pdfsvc's
// encryption would, while deciphers keep theirs. The output check must then
// refuse the output, and the built command line and server show how
// (security-id.test.ts). CommonJS: `--import` does not reach worker threads.
'use strict';
const crypto = require('node:crypto');

const createCipheriv = crypto.createCipheriv;
crypto.createCipheriv = function wrongKey(algorithm, key, iv, options) {
  if (!/^aes-/i.test(algorithm)) return createCipheriv.call(this, algorithm, key, iv, options);
  const flipped = Buffer.from(key);
  flipped[0] ^= 1;
  return createCipheriv.call(this, algorithm, flipped, iv, options);
};
// The bundles import node:crypto as an ES module too.
require('node:module').syncBuiltinESMExports();
