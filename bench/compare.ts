// npx tsx bench/compare.ts <revision> [scenario ...]: CPU per request of a revision (A) against this
// checkout's working tree (B), their bench servers (bench/server.ts) run side by side and loaded in
// turns, A then B, round after round. On these VMs the same code measured minutes apart moved by
// 10-20 % (bench/RESULTS.md); taken in turns, both sides see the same machine, and the medians of
// the rounds tell a change of 5 % from noise. Scenarios: rest (the 100-release list), graphql (the
// same list), project (GET /projects/:id), projects (GET /projects as a member of 10), raw (1 KB);
// rest and graphql by default. ROUNDS (8) and ROUND_SECONDS (3) set the rounds and their length.
// The revision is checked out in a temporary worktree that shares this checkout's node_modules
// and generated clients (src/generated), and is removed afterwards.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { RELEASES_QUERY } from './documents.ts';
import { startCommand } from './starts.ts';

const [revision, ...named] = process.argv.slice(2);
if (!revision) throw new Error('usage: npx tsx bench/compare.ts <revision> [rest|graphql|project|projects|raw ...]');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const SECONDS = Number(process.env.ROUND_SECONDS ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Server = { child: ChildProcess; base: string; stats: string; token: string; memberOf10: string; projectId: number; projectPath: string };

function start(cwd: string): Promise<Server> {
  // As npm start runs at that revision: its node flags and allocator settings (its package.json).
  const { env, nodeFlags } = startCommand(cwd);
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'bench/server.ts'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const line = output.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve({ child, ...JSON.parse(line.slice(6)) });
    });
    child.on('exit', (code) => reject(new Error(`bench server in ${cwd} exited (${code})`)));
  });
}

const scenarios = {
  rest: (s: Server) => ({ path: `/api/v4/projects/${s.projectId}/releases?per_page=100` }),
  graphql: (s: Server) => ({ path: '/api/graphql', method: 'POST' as const, body: JSON.stringify({ query: RELEASES_QUERY, variables: { fullPath: s.projectPath } }) }),
  project: (s: Server) => ({ path: `/api/v4/projects/${s.projectId}` }),
  projects: (s: Server) => ({ path: '/api/v4/projects', token: s.memberOf10 }),
  raw: (s: Server) => ({ path: `/api/v4/projects/${s.projectId}/repository/files/small.txt/raw?ref=main` }),
};
type Name = keyof typeof scenarios;
const chosen = (named.length ? named : ['rest', 'graphql']) as Name[];
for (const name of chosen) if (!(name in scenarios)) throw new Error(`unknown scenario ${name}`);

const cpuMicros = async (s: Server) => {
  const { cpu } = (await (await fetch(`${s.stats}/`)).json()) as { cpu: { user: number; system: number } };
  return cpu.user + cpu.system;
};

/** CPU ms per request of `s` under `name` at 10 connections for `seconds`. */
async function load(s: Server, name: Name, seconds: number) {
  const { path: urlPath, method = 'GET', body, token = s.token } = scenarios[name](s) as { path: string; method?: 'GET' | 'POST'; body?: string; token?: string };
  const before = await cpuMicros(s);
  const result = await autocannon({ url: `${s.base}${urlPath}`, method, body, headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' }, connections: 10, duration: seconds });
  if (result.non2xx || result.errors) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return ((await cpuMicros(s)) - before) / 1000 / result.requests.total;
}

const worktree = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-compare-'));
execFileSync('git', ['worktree', 'add', '--detach', worktree, revision], { cwd: ROOT, stdio: 'ignore' });
const servers: Server[] = [];
try {
  fs.cpSync(path.join(ROOT, 'src/generated'), path.join(worktree, 'src/generated'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  servers.push(await start(worktree), await start(ROOT));
  // Warm-up: graphql-jit compiles, V8 optimizes (bench/index.ts measured ~6 s before CPU settles).
  for (const name of chosen) for (const s of servers) await load(s, name, 6);
  const figures = new Map(chosen.map((name) => [name, [[], []] as number[][]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of chosen) for (const [i, s] of servers.entries()) figures.get(name)![i]!.push(await load(s, name, SECONDS));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  console.log(`CPU ms/request at 10 connections, ${ROUNDS} rounds of ${SECONDS} s; A = ${revision}, B = working tree`);
  for (const [name, [a, b]] of figures) {
    console.log(`${name.padEnd(8)} A ${list(a!)}\n${''.padEnd(8)} B ${list(b!)}\n${''.padEnd(8)} median A ${median(a!).toFixed(2)}, B ${median(b!).toFixed(2)}: B/A ${(median(b!) / median(a!)).toFixed(3)}`);
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once('exit', resolve) : resolve(null)))));
  execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
}
