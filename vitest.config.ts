import { defineConfig } from 'vitest/config';

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export default defineConfig({
  // Pothos loads graphql through require(); point our imports at the same copy so there is one realm.
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // Process-level fault injection runs on its own: `npm run test:faults`.
    exclude: ['test/faults/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each test file builds its own app on its own database, so files need no module isolation;
    // sharing the loaded modules per worker saves importing the whole app once per file.
    isolate: false,
    // Tests wait on PostgreSQL, git processes and sockets more than on the CPU: three files at a
    // time on two cores took the suite from 154 s to 97 s (four: no better).
    maxWorkers: 3,
  },
});
