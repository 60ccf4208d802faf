/**
 * Clone time of a ~50 MB repository over HTTP through forgegate (Basic auth, authorization,
 * upload-pack streamed through Express) beside the floor measured in the same run: a local
 * `git clone --no-local` of the same bare repository, which runs the same upload-pack without
 * HTTP. Both clones check out the working tree. The repository reaches forgegate by `git push`,
 * whose time is printed beside a push of the same history to a local bare repository (one run).
 *
 *   npx tsx bench/git-clone.ts        # 3 clones each, the median counts
 *   npx tsx bench/git-clone.ts 5      # 5 clones each
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { createAppServer } from '../src/http-server.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';

const runs = Number(process.argv[2] ?? 3);
const FILES = 48;
const FILE_BYTES = 1024 * 1024;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-clone-'));
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: work,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
/** git as a child process; never spawnSync: the server answering it runs in this process. */
function git(args: string[], cwd = work): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args[0]}: ${err}`))));
  });
}
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dataDir = path.join(work, 'data');
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0' });
const runtime = await startRuntime(config);
const server = createAppServer(buildApp(runtime.deps)).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

try {
  const root = await runtime.deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(runtime.deps.db, runtime.deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  const res = await fetch(`${base}/api/v4/projects`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', visibility: 'private' }),
  });
  const project = await res.json();
  const remote = `http://oauth2:${token}@127.0.0.1:${new URL(base).port}/${project.path_with_namespace}.git`;

  // History: one incompressible 1 MB file and a text change per commit, ~50 MB packed.
  const source = path.join(work, 'source');
  await git(['init', '-q', '-b', 'main', source]);
  for (let i = 0; i < FILES; i++) {
    fs.writeFileSync(path.join(source, `blob-${i}.bin`), randomBytes(FILE_BYTES));
    fs.appendFileSync(path.join(source, 'CHANGELOG.md'), `- change ${i}\n`);
    await git(['add', '-A'], source);
    await git(['commit', '-q', '-m', `change ${i}`], source);
  }
  const pushMs = await timed(() => git(['push', '-q', remote, 'main'], source));
  // The push's floor: the same history into a local bare repository through file://, with the
  // object checks forgegate runs on every push.
  const floorBare = path.join(work, 'floor.git');
  await git(['init', '-q', '--bare', floorBare]);
  const pushFloorMs = await timed(() =>
    git(['push', '-q', '--receive-pack=git -c receive.fsckObjects=true receive-pack', `file://${floorBare}`, 'main'], source),
  );
  const bare = runtime.deps.git.pathFor(project.id);
  const packedBytes = Number(/size-pack: (\d+)/.exec(await git(['count-objects', '-v'], bare))![1]) * 1024;

  const viaForgegate: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < runs; run++) {
    // Alternate the order so neither side always gets the warmer page cache.
    const cases: [number[], string][] = [
      [viaForgegate, remote],
      [floor, bare],
    ];
    if (run % 2) cases.reverse();
    for (const [times, from] of cases) {
      const into = path.join(work, `clone-${run}-${times === floor ? 'local' : 'http'}`);
      times.push(await timed(() => git(['clone', '-q', ...(times === floor ? ['--no-local'] : []), from, into])));
      fs.rmSync(into, { recursive: true, force: true });
    }
  }

  const http = median(viaForgegate);
  const local = median(floor);
  console.log(
    `\n${FILES} commits, packed ${(packedBytes / 1024 / 1024).toFixed(1)} MiB; ${runs} clones each, median; Node ${process.version}, ${os.cpus().length} CPUs\n`,
  );
  console.log('| case | time |\n|---|---|');
  console.log(`| git push of the whole history to forgegate | ${pushMs.toFixed(0)} ms |`);
  console.log(`| git push of it to a local bare repository, file:// (floor) | ${pushFloorMs.toFixed(0)} ms |`);
  console.log(`| git clone over HTTP through forgegate | ${http.toFixed(0)} ms |`);
  console.log(`| git clone --no-local of the same bare repository (floor) | ${local.toFixed(0)} ms |`);
  console.log(`\nratio forgegate / floor: ${(http / local).toFixed(2)}`);
  console.log(`all clones (ms): forgegate ${viaForgegate.map((v) => v.toFixed(0)).join(', ')}; floor ${floor.map((v) => v.toFixed(0)).join(', ')}`);
} finally {
  server.close();
  await runtime.close();
  fs.rmSync(work, { recursive: true, force: true });
}
