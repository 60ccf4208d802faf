// The in-process setup the single-area benches share: a throwaway DATA_DIR (embedded PostgreSQL
// unless DATABASE_URL is set), the real app on an ephemeral port, a counter of SQL statements and
// an `api`-scoped token for root with a JSON POST helper.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { createAppServer } from '../src/http-server.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { QueryCounter } from '../src/db/client.ts';
import { startRuntime } from '../src/server.ts';

export async function startBenchApp(env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', EXTERNAL_URL: 'http://bench.test', ...env });
  const queryCounter = new QueryCounter();
  const runtime = await startRuntime(config, { queryCounter });
  const { deps } = runtime;
  const server = createAppServer(buildApp(deps)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
  const post = async (p: string, body: object) => (await fetch(`${base}/api/v4${p}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  return {
    deps,
    queryCounter,
    base,
    root,
    headers,
    post,
    async close() {
      server.close();
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
