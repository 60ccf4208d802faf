/**
 * Repository files read throughput: GET file (JSON) and GET raw for a 1 KB and a 1 MB file, in
 * requests per second through the whole HTTP stack, beside `git cat-file blob` on the same blobs
 * as the floor (one process per read, as a naive server would do it).
 *
 *   npx tsx bench/files.ts        # 5 s per case, 10 connections
 *   npx tsx bench/files.ts 10     # 10 s per case
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { createAppServer } from '../src/http-server.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = 10;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0' });
const runtime = await startRuntime(config);
const server = createAppServer(buildApp(runtime.deps)).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;

try {
  const root = await runtime.deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(runtime.deps.db, runtime.deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const headers = { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' };
  const call = async (method: string, url: string, body?: object) => {
    const res = await fetch(`${base}${url}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const project = await call('POST', '/projects', { name: 'bench', initialize_with_readme: true });
  const files = { '1 KB': randomBytes(512).toString('hex'), '1 MB': randomBytes(512 * 1024).toString('hex') };
  for (const [name, content] of Object.entries(files)) {
    await call('POST', `/projects/${project.id}/repository/files/${encodeURIComponent(`bench/${name}.txt`)}`, {
      branch: 'main',
      content,
      commit_message: name,
    });
  }
  const repo = runtime.deps.git.pathFor(project.id);

  const rows: string[][] = [];
  for (const name of Object.keys(files)) {
    const file = `/projects/${project.id}/repository/files/${encodeURIComponent(`bench/${name}.txt`)}`;
    for (const [label, url] of [
      ['GET file (JSON)', `${file}?ref=main`],
      ['GET raw', `${file}/raw?ref=main`],
    ]) {
      const result = await autocannon({ url: `${base}${url}`, headers, connections, duration: seconds });
      if (result.non2xx) throw new Error(`${label} ${name}: ${result.non2xx} non-2xx answers`);
      rows.push([name, label, result.requests.average.toFixed(0), `${result.latency.p50} ms`, `${result.latency.p99} ms`]);
    }
    const oid = spawnSync('git', ['-C', repo, 'rev-parse', `main:bench/${name}.txt`])
      .stdout.toString()
      .trim();
    let reads = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      spawnSync('git', ['-C', repo, 'cat-file', 'blob', oid], { maxBuffer: 8 * 1024 * 1024 });
      reads++;
    }
    const elapsed = (performance.now() - started) / 1000;
    rows.push([name, 'git cat-file blob (floor, sequential)', (reads / elapsed).toFixed(0), `${((elapsed / reads) * 1000).toFixed(1)} ms`, '']);
  }
  console.log(`\n${connections} connections, ${seconds} s per case, Node ${process.version}, ${os.cpus().length} CPUs\n`);
  console.log('| file | case | req/s | p50 | p99 |\n|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
} finally {
  server.close();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
