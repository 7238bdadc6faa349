import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/corpus/**'],
    // This run's own XDG directories: nothing a test does reaches the user's
    // keys or embedded database, or another run's (README, "Two runs at once").
    globalSetup: ['test/helpers/run-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only add contention with qpdf/poppler child processes.
    maxWorkers: 2,
  },
});
