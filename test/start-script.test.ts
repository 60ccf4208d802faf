import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/app.ts';
import { waitUntil } from './helpers/processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('npm start', () => {
  // The node flags of bin/forgegate-server, which npm start runs: what each still pays is in
  // docs/operations.md (measured by bench/flags.ts). No TypeScript loader at run time (issue #12).
  it('runs the bundled server through its launcher with a 64 MB young generation semi-space, old generation growth held to half, no pretenuring, and serves', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-start-'));
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: await createTestDatabase(),
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    npm.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    let serverPid = 0;
    try {
      let base = '';
      await waitUntil(
        async () => {
          const line = output.split('\n').find((l) => l.includes('"forgegate is listening"'));
          if (line) ({ url: base, pid: serverPid } = JSON.parse(line));
          return base !== '';
        },
        'npm start to listen',
        60_000,
      );
      expect((await fetch(`${base}/-/health`)).status).toBe(200);
      // What the bundled server loads on demand, each from a chunk of its own: the REST facade's
      // compiler (graphql-jit), Yoga with the query limits, and the GraphiQL page.
      const projects = await fetch(`${base}/api/v4/projects`);
      expect([projects.status, await projects.json()]).toEqual([200, []]);
      const graphql = await fetch(`${base}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
      const aliased = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: currentUser { id }`).join(' ')} }`;
      const refused = await fetch(`${base}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: aliased }),
      });
      expect((await refused.json()).errors?.[0]?.message).toMatch(/Aliases limit of 30 exceeded/);
      const page = await fetch(`${base}/api/graphql`, { headers: { accept: 'text/html' } });
      expect([page.status, (await page.text()).includes('forgegate GraphiQL')]).toEqual([200, true]);
      // Node and exactly these arguments: no --import/--loader, so no TypeScript loader is registered.
      const argv = fs.readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(argv.slice(1)).toEqual([
        '--max-semi-space-size=64',
        '--heap-growing-percent=50',
        '--no-allocation-site-pretenuring',
        'bin/../dist/bundle/main.js',
      ]);
      const environ = fs.readFileSync(`/proc/${serverPid}/environ`, 'utf8').split('\0');
      expect(environ.filter((v) => v.startsWith('NODE_OPTIONS=') && v !== 'NODE_OPTIONS=')).toEqual([]);
      // glibc's allocator capped at two arenas, as the launcher sets it (docs/operations.md).
      expect(environ.filter((v) => v.startsWith('MALLOC_'))).toEqual(['MALLOC_ARENA_MAX=2']);
    } finally {
      if (serverPid) process.kill(serverPid, 'SIGTERM');
      npm.kill('SIGTERM');
      await new Promise((resolve) => npm.once('exit', resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
