import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The explorer page is built once before the tests, as `npm run build` builds it for `npm start`.
    globalSetup: ['test/helpers/build-explorer.ts'],
    // At least two test files at a time. Vitest runs one per core less one, so one on a 2-core
    // machine, where much of the suite waits on the servers and CLIs it starts: two took 6.3 min
    // instead of 9-11 (three were no faster, and slowed the reloads of test/reload.test.ts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
