// npx tsx bench/commits.ts: against a throwaway embedded PostgreSQL and a repository of 2,000
// commits (made with git fast-import), times, one request at a time:
//   - GET /repository/commits?per_page=100&with_stats=true, next to a floor of the three git calls
//     the page needs (the count for X-Total, `git log` of 100 commits, `git show --numstat` of them);
//   - GET /repository/tree?recursive=true&per_page=100 on a tree of 1,000 files, next to
//     `git ls-tree -r -t` of the same tree;
//   - POST /repository/commits with 10 create actions, next to the same commit made with the
//     plumbing writer (`commitChanges`) directly.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { createAppServer } from '../src/http-server.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { runGit } from '../src/git/run.ts';
import { commitChanges } from '../src/git/writer.ts';
import { startRuntime } from '../src/server.ts';

const COMMITS = 2000;
const FILES = 1000;
const ROUNDS = 30;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', EXTERNAL_URL: 'http://bench.test', JOB_WORKERS_IN_SERVER: 'false' });
const runtime = await startRuntime(config, {});
const { deps } = runtime;
const server = createAppServer(buildApp(deps)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Milliseconds per run of `task`, over ROUNDS sequential runs (after one warm-up). */
async function perRun(task: (i: number) => Promise<unknown>): Promise<number> {
  await task(-1);
  const started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) await task(i);
  return Number(process.hrtime.bigint() - started) / 1e6 / ROUNDS;
}

try {
  const root = await deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(deps.db, deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
  const call = async (method: string, p: string, body?: object) => {
    const res = await fetch(`${base}/api/v4${p}`, { method, headers, body: body && JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const group = await call('POST', '/groups', { name: 'Bench', path: 'bench' });
  const project = await call('POST', '/projects', { name: 'app', namespace_id: group.id, initialize_with_readme: false });
  const dir = deps.git.pathFor(project.id);

  // History: COMMITS commits each changing one of 50 files; the last one holds FILES files in 20 directories.
  const lines: string[] = [];
  for (let i = 1; i <= COMMITS; i++) {
    const text = `line ${i}\n`;
    const message = `c${String(i).padStart(7, '0')}`;
    lines.push(`commit refs/heads/main`, `committer Bench <b@example.com> ${1_700_000_000 + i} +0000`, `data ${message.length}`, message);
    lines.push(`M 100644 inline f${i % 50}.txt`, `data ${Buffer.byteLength(text)}`, text.slice(0, -1));
    if (i === COMMITS) {
      for (let f = 0; f < FILES; f++) lines.push(`M 100644 inline d${f % 20}/file${f}.txt`, `data 1`, 'x');
    }
  }
  execFileSync('git', ['-C', dir, 'fast-import', '--quiet'], { input: lines.join('\n') + '\n' });
  execFileSync('git', ['-C', dir, 'symbolic-ref', 'HEAD', 'refs/heads/main']);

  const list = await perRun((i) => call('GET', `/projects/${project.id}/repository/commits?per_page=100&with_stats=true&page=${(i + 2) % 20 || 1}`));
  const listFloor = await perRun(async (i) => {
    const page = (i + 2) % 20 || 1;
    await runGit(dir, ['rev-list', '--count', 'main']);
    const shas = (await runGit(dir, ['log', '--format=%H', `--skip=${(page - 1) * 100}`, '--max-count=100', 'main'])).split('\n').filter(Boolean);
    await runGit(dir, ['show', '--no-walk=unsorted', '--numstat', '--format=%x01%H', ...shas]);
  });
  const tree = await perRun(() => call('GET', `/projects/${project.id}/repository/tree?recursive=true&per_page=100&page=5`));
  const treeFloor = await perRun(() => runGit(dir, ['ls-tree', '-r', '-t', 'main']));
  const actions = (i: number) => Array.from({ length: 10 }, (_, n) => ({ action: 'create', file_path: `w${i}/new${n}.txt`, content: `${i} ${n}\n` }));
  const write = await perRun((i) =>
    call('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: `write ${i}`, actions: actions(i + 1000) }),
  );
  const writeFloor = await perRun(async (i) => {
    const parent = (await runGit(dir, ['rev-parse', 'main'])).trim();
    const who = { name: 'Bench', email: 'b@example.com', date: new Date() };
    const changes = actions(i + 5000).map((a) => ({ path: a.file_path, content: Buffer.from(a.content), mode: 0o100644 }));
    await commitChanges(dir, { branch: 'main', parent, expectedTip: parent, changes, message: `floor ${i}`, author: who, committer: who });
  });
  console.log(
    `GET commits (100, with_stats)   ${list.toFixed(1)} ms/request   floor (git rev-list --count + git log + git show --numstat) ${listFloor.toFixed(1)} ms`,
  );
  console.log(`GET tree (recursive, 100 of ${FILES + 20})   ${tree.toFixed(1)} ms/request   floor (git ls-tree -r -t) ${treeFloor.toFixed(1)} ms`);
  console.log(`POST commits (10 actions)       ${write.toFixed(1)} ms/request   floor (plumbing commit) ${writeFloor.toFixed(1)} ms`);
} finally {
  server.close();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
