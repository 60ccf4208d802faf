import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A new directory under the temp dir (a RAM disk during the suite: vitest.config.ts), removed when
 * the running test finishes, passed or failed: runs of the suite leave nothing behind.
 */
export function testTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
