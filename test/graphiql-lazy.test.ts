import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/app.ts';
import { testTempDir } from './helpers/temp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('GraphQL endpoint and GraphiQL bundle', () => {
  // The self-contained GraphiQL page is megabytes of JavaScript held in the heap once loaded.
  it('are loaded when first asked for, not at start', async () => {
    const run = spawnSync(process.execPath, ['--expose-gc', 'test/fixtures/probes/graphiql.mjs'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: await createTestDatabase(),
        DATA_DIR: testTempDir('forgegate-probe-'),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('PROBE '));
    expect(line, run.stderr + run.stdout).toBeDefined();
    const report = JSON.parse(line!.slice('PROBE '.length));
    // The probe watches what loads once the server is up, so a package it sees load was not loaded
    // at start. graphql-yoga arrives with the first /api/graphql request (REST alone never loads
    // it); the positive control is the same check after that request.
    expect(report).toMatchObject({ yogaAfterRest: false, yogaAfterGraphql: true, firstAnswer: { data: { __typename: 'Query' } } });
    // graphql-jit arrives with the first operation the REST facade compiles, not at start.
    expect(report).toMatchObject({ jitAfterHealth: false, jitAfterRest: true });
    expect(report).toMatchObject({ gemojiBeforeAward: false, gemojiAfterAward: true, thumbsup: '👍' });
    expect(report).toMatchObject({ status: 200, titled: true });
    expect(report.pageBytes).toBeGreaterThan(1_000_000);
    // The bundle's module arrives in the heap with the first request for the page (measured: +49 MB
    // for a 9 MB page; +17 MB, the rendering alone, when the module was loaded at start).
    expect(report.growthMb).toBeGreaterThan((3 * report.pageBytes) / 2 ** 20);
  }, 90_000);
});
