// Several processes starting together on one new DATA_DIR (scale-out) must end up with one set of
// secrets: a token issued through one of them is checked by the others with the same digest key.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testTempDir } from './helpers/temp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The compiled module the servers run (dist/, kept current by the global setup).
const SECRETS_MODULE = pathToFileURL(path.join(ROOT, 'dist/secrets.js')).href;
const PROCESSES = 8;
const ROUNDS = 3;
/** New DATA_DIRs per round, which every process loads in the same order: one race each. */
const DATA_DIRS = 40;

function loadTogether(root: string, startAt: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/fixtures/probes/secrets.mjs', SECRETS_MODULE, root, String(DATA_DIRS), String(startAt)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    // 'close', not 'exit': a process can exit before its stdout is read to the end.
    child.on('close', (code) => (code === 0 ? resolve(output.trim()) : reject(new Error(`probe exited with ${code}`))));
  });
}

describe('secrets', () => {
  // The race is a window of microseconds, hit when a process is preempted inside it: eight
  // processes on two cores go through the same 40 new DATA_DIRs at once, three times (120 races).
  // Before the fix, each run of this test failed (ten rounds of one DATA_DIR caught it about
  // once in ten rounds).
  it('are the same for every process starting together on a new DATA_DIR, and the same as on disk', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const root = testTempDir('forgegate-secrets-');
      const startAt = Date.now() + 300;
      const seen = (await Promise.all(Array.from({ length: PROCESSES }, () => loadTogether(root, startAt)))).map((out) => JSON.parse(out) as unknown[]);
      for (let i = 0; i < DATA_DIRS; i++) {
        const onDisk = JSON.parse(fs.readFileSync(path.join(root, String(i), 'secrets.json'), 'utf8'));
        expect(onDisk.tokenDigestKey).toMatch(/^[0-9a-f]{64}$/);
        for (const secrets of seen) expect(secrets[i], `DATA_DIR ${i} of round ${round}`).toEqual(onDisk);
      }
    }
  }, 60_000);
});
