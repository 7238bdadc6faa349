import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // An action's own folder may hold its tests (src/actions/<action>/*.test.ts).
    include: ['test/**/*.test.ts', 'src/actions/*/*.test.ts'],
    exclude: ['test/corpus/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers only add contention with qpdf/poppler child processes.
    maxWorkers: 2,
  },
});
