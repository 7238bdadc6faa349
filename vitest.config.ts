import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/corpus/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only add contention with qpdf/poppler child processes.
    maxWorkers: 2,
  },
});
