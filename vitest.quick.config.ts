import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The quick tier (npm run test:quick), for the inner loop: tests that run in
// process in a few seconds each, with no server, browser, Docker, database or
// corpus (qpdf and poppler still judge outputs). About 20 s on two idle cores;
// `npm test` runs these and everything else.
// Not mergeConfig: it would append this list to the base's include.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/core/**/*.test.ts',
      'test/system/registry.test.ts',
      'test/system/readme.test.ts',
      'test/cli/completion.test.ts',
      'test/client/multipart.test.ts',
      'test/dashboard/units.test.ts',
      'test/pdf/model/copy.test.ts',
      'test/pdf/watermark/fflate-node.test.ts',
      'test/pdf/watermark/balance.test.ts',
      'test/pdf/writer/writer.test.ts',
      'test/pdf/security/security-recovery.test.ts',
      'test/pdf/reader/signatures.test.ts',
      'test/pdf/reader/page-tree.test.ts',
    ],
  },
});
