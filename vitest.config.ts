import { defineConfig } from 'vitest/config';

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import LongestFirst from './test/helpers/sequencer.ts';

const require = createRequire(import.meta.url);

/**
 * Everything a run writes (its PostgreSQL cluster, every test's DATA_DIR and repositories) is thrown
 * away after it: on a RAM-backed file system, where the machine has one, writing it costs no disk
 * I/O. Workers, servers and git processes the tests start inherit TMPDIR.
 */
function preferRamDisk(dir = '/dev/shm') {
  if (process.env.TMPDIR) return;
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    process.env.TMPDIR = dir;
  } catch {
    // No RAM disk here: os.tmpdir() as it is.
  }
}
preferRamDisk();
const DIST = fileURLToPath(new URL('dist/', import.meta.url));

export default defineConfig({
  // Pothos loads graphql through require(); point our imports at the same copy so there is one realm.
  resolve: {
    alias: [
      { find: 'graphql', replacement: require.resolve('graphql') },
      // Tests import the sources (`../src/app.ts`) and run the compiled modules the server runs
      // (dist/, which the global setup keeps current), loaded by node itself: no per-file
      // transform, and a worker imports the app in a third of the time.
      { find: /^(?:\.\.\/)+src\/(.+)\.ts$/, replacement: `${DIST}$1.js` },
    ],
  },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Prisma's query plans shared by the test apps of a worker (see the file).
    setupFiles: ['test/helpers/shared-query-plans.ts'],
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
    // V8 optimises a function once it has spent a budget of 66 K bytecode ticks; most of the suite's
    // code runs briefly, and TurboFan was 15 % of the run's CPU (perf, all processes). With four and
    // a half times the budget only what stays hot is optimised: over four or five runs each on a
    // 2-core machine, 82.9 → 80.6 s on average and 4 % less user CPU (run-to-run spread ±3 s; 2×
    // the budget gave 79.2 s, 15× 81.9 s, where the interpreter costs more than TurboFan saved).
    execArgv: ['--interrupt-budget=300000'],
    sequence: { sequencer: LongestFirst },
    server: { deps: { external: [/\/dist\//] } },
    // Test files compiled once and kept (node_modules/.experimental-vitest-cache, keyed by content
    // and configuration, gone with the next `npm ci`): later runs skip 2 s of transforms and the
    // main process spends 3.6 s of CPU instead of 5.1 s.
    experimental: { fsModuleCache: true },
  },
});
