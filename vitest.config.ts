import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // An action's own folder may hold its tests (src/actions/<action>/*.test.ts).
    include: ['test/**/*.test.ts', 'src/actions/*/*.test.ts'],
    exclude: ['test/corpus/**'],
    // This run's own XDG directories: nothing a test does reaches the user's
    // keys or embedded database, or another run's (README, "Two runs at once").
    globalSetup: ['test/helpers/run-home.ts'],
    // The harness's waits, not bounds of pdfsvc's (those are in the tests, in CPU time where they are about
    // cost): with a second npm test beside this one, tests that take seconds alone took over a minute.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Two cores: more workers only add contention with qpdf/poppler child processes.
    maxWorkers: 2,
  },
});
