import { defineConfig } from 'vitest/config';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// `npm run test:faults`: real server processes killed, paused and signalled, and memory measured
// while archives stream. Files run one at a time: they start servers and databases of their own.
export default defineConfig({
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/faults/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
