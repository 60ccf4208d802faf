// Bench servers (bench/server.ts) side by side, loaded in turns, one after the other, round after
// round. On these VMs the same code measured minutes apart moved by 10-20 % (bench/RESULTS.md);
// taken in turns, all servers see the same machine, and the medians of the rounds tell a change of
// 5 % from noise. Used by bench/compare.ts (two revisions) and bench/flags.ts (node flags).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { RELEASES_QUERY } from './documents.ts';

export type BenchServer = { child: ChildProcess; base: string; stats: string; token: string; memberOf10: string; projectId: number; projectPath: string };

/** bench/server.ts in `cwd` under node `nodeFlags` and the variables `env`; resolves once it has seeded its data. */
export function startBenchServer(cwd: string, launch: { env: Record<string, string>; nodeFlags: string[] }): Promise<BenchServer> {
  const child = spawn(process.execPath, [...launch.nodeFlags, '--import', 'tsx', 'bench/server.ts'], {
    cwd,
    env: { ...process.env, ...launch.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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

export async function stopBenchServers(servers: BenchServer[]) {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once('exit', resolve) : resolve(null)))));
}

/** rest: the 100-release list; graphql: the same list; project: GET /projects/:id; projects: GET /projects as a member of 10; raw: 1 KB. */
export const scenarios = {
  rest: (s: BenchServer) => ({ path: `/api/v4/projects/${s.projectId}/releases?per_page=100` }),
  graphql: (s: BenchServer) => ({
    path: '/api/graphql',
    method: 'POST' as const,
    body: JSON.stringify({ query: RELEASES_QUERY, variables: { fullPath: s.projectPath } }),
  }),
  project: (s: BenchServer) => ({ path: `/api/v4/projects/${s.projectId}` }),
  projects: (s: BenchServer) => ({ path: '/api/v4/projects', token: s.memberOf10 }),
  raw: (s: BenchServer) => ({ path: `/api/v4/projects/${s.projectId}/repository/files/small.txt/raw?ref=main` }),
};
export type Scenario = keyof typeof scenarios;

export function scenarioNames(named: string[]): Scenario[] {
  const chosen = named.length ? named : ['rest', 'graphql'];
  for (const name of chosen) if (!(name in scenarios)) throw new Error(`unknown scenario ${name}`);
  return chosen as Scenario[];
}

const cpuMicros = async (s: BenchServer) => {
  const { cpu } = (await (await fetch(`${s.stats}/`)).json()) as { cpu: { user: number; system: number } };
  return cpu.user + cpu.system;
};

const rss = (s: BenchServer) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) * 1024;

/** CPU ms per request of `s` under `name` at 10 connections for `seconds`, and its peak RSS meanwhile. */
async function load(s: BenchServer, name: Scenario, seconds: number) {
  const {
    path: urlPath,
    method = 'GET',
    body,
    token = s.token,
  } = scenarios[name](s) as { path: string; method?: 'GET' | 'POST'; body?: string; token?: string };
  let peakRss = rss(s);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rss(s))), 100);
  try {
    const before = await cpuMicros(s);
    const result = await autocannon({
      url: `${s.base}${urlPath}`,
      method,
      body,
      headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
      connections: 10,
      duration: seconds,
    });
    if (result.non2xx || result.errors) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { cpuMs: ((await cpuMicros(s)) - before) / 1000 / result.requests.total, peakRss };
  } finally {
    clearInterval(sampler);
  }
}

export type Figures = { cpuMs: number[]; peakRss: number[] };

/** After a warm-up of each server, `rounds` rounds: each scenario on each server in turn. Figures per scenario, per server. */
export async function inTurns(servers: BenchServer[], names: Scenario[], rounds: number, seconds: number): Promise<Map<Scenario, Figures[]>> {
  // Warm-up: graphql-jit compiles, V8 optimizes (bench/index.ts measured ~6 s before CPU settles).
  for (const name of names) for (const s of servers) await load(s, name, 6);
  const figures = new Map(names.map((name) => [name, servers.map((): Figures => ({ cpuMs: [], peakRss: [] }))]));
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      for (const [i, s] of servers.entries()) {
        const { cpuMs, peakRss } = await load(s, name, seconds);
        figures.get(name)![i]!.cpuMs.push(cpuMs);
        figures.get(name)![i]!.peakRss.push(peakRss);
      }
    }
  }
  return figures;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
