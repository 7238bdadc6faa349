import { defineConfig } from 'vitest/config';

// The real-document tier: runs over ../shared/corpus when it exists.
export default defineConfig({
  test: {
    include: ['test/corpus/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
