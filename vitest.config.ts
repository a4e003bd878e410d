import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Builds the page (src/web → dist/web) that GET / serves: test/support/web-build.ts.
    globalSetup: ['test/support/web-build.ts'],
  },
});
