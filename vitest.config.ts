import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The explorer page is built once before the tests, as `npm run build` builds it for `npm start`.
    globalSetup: ['test/helpers/build-explorer.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
