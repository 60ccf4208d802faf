import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/app.ts';
import { testTempDir } from './helpers/temp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('migration adapter fixes', () => {
  // The migration engine's workaround used to patch the prototype every adapter shares and run
  // each query in AsyncLocalStorage: async hooks then stayed on for every runtime query.
  it('leave async hooks off and the shared adapter prototype untouched after start', async () => {
    const url = await createTestDatabase({ empty: true });
    const dataDir = testTempDir('forgegate-probe-');
    const run = spawnSync(process.execPath, ['test/fixtures/probes/async-hooks.mjs'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: url, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('PROBE '));
    expect(line, run.stderr + run.stdout).toBeDefined();
    const report = JSON.parse(line!.slice('PROBE '.length));
    expect(report).toEqual({ hooksAfterStart: false, prototypePatched: false, hooksWithStorage: true });
  }, 90_000);
});
