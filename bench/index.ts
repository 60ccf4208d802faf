// npm run bench [-- seconds [name]]: every hot route of issue #12 (or those whose name contains
// `name`, e.g. `releases`; `migration` runs bench/migration.ts alone), forgegate beside its floor
// (bench/floor/server.ts: raw pg, es-git, node:http, same bytes), in one run. Both servers run in
// their own process; load comes from this one (autocannon). For each scenario: byte equality
// first, then SQL statements per request, then req/s, CPU ms per request and RSS at 1 and 10
// connections, and the ratio of CPU per request to the floor's.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { RELEASES_QUERY } from './documents.ts';
import type { Ready } from './server.ts';
import { measureStarts, startCommand, underLoad } from './starts.ts';

const seconds = Number(process.argv[2] ?? 5);
const only = process.argv[3];
const WARM_UP_SECONDS = 6;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function start<R>(name: string, args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; ready: R }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const line = output.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve({ child, ready: JSON.parse(line.slice(6)) });
    });
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}):\n${output.slice(-3000)}`)));
  });
}

type Stats = { cpu: { user: number; system: number }; sql: number; rss: number };
const stats = async (url: string): Promise<Stats> => (await fetch(url)).json() as Promise<Stats>;

/** bench/migration.ts (issue 41): a group of 10,000 records migrated with POST /bulk_imports, beside its floor. */
async function migration() {
  const { runMigrationBench } = await import('./migration.ts');
  console.log('\nbench/migration.ts: a group of 10,000 records migrated between two servers, beside one export and one import in-process');
  for (const line of await runMigrationBench()) console.log(line);
}
if (only === 'migration') {
  await migration();
  process.exit(0);
}

const started = performance.now();
// Before the scenarios' servers: nothing else runs while the starts are timed.
const starts = await measureStarts();
// The node flags and allocator settings of `npm start` (package.json).
const { env: startEnv, nodeFlags } = startCommand();
const app = await start<Ready>('forgegate', [...nodeFlags, '--import', 'tsx', 'bench/server.ts'], {
  ...startEnv,
  BENCH_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
});
const seeded = app.ready;
const floor = await start<{ base: string }>('floor', ['--import', 'tsx', 'bench/floor/server.ts'], {
  DATABASE_URL: seeded.databaseUrl,
  REPOSITORIES: seeded.repositories,
  DIGEST_KEY: seeded.digestKey,
  EXTERNAL_URL: 'http://bench.test',
});
const servers = {
  forgegate: { base: seeded.base, stats: `${seeded.stats}/` },
  floor: { base: floor.ready.base, stats: `${floor.ready.base}/__stats` },
};

type Scenario = { name: string; method: 'GET' | 'POST'; path: string; token: string; body?: () => string; mask?: (s: string) => string };
const json = { 'content-type': 'application/json' };
const scenarios: Scenario[] = [
  { name: '100 releases, REST', method: 'GET', path: `/api/v4/projects/${seeded.projectId}/releases?per_page=100`, token: seeded.token },
  {
    name: '100 releases, GraphQL',
    method: 'POST',
    path: '/api/graphql',
    token: seeded.token,
    body: () => JSON.stringify({ query: RELEASES_QUERY, variables: { fullPath: seeded.projectPath } }),
  },
  { name: 'GET /projects/:id', method: 'GET', path: `/api/v4/projects/${seeded.projectId}`, token: seeded.token },
  // A private project read by its members: the permission check reads their memberships.
  { name: 'GET /projects/:id, member of 1,000', method: 'GET', path: `/api/v4/projects/${seeded.memberProjectId}`, token: seeded.memberOf1000 },
  { name: 'GET /projects/:id, member of 10', method: 'GET', path: `/api/v4/projects/${seeded.memberProjectId}`, token: seeded.memberOf10 },
  // A page of 10 as the member of 10 gets: the two differ in memberships only.
  { name: 'GET /projects, member of 1,000', method: 'GET', path: '/api/v4/projects?per_page=10', token: seeded.memberOf1000 },
  { name: 'GET /projects, member of 10', method: 'GET', path: '/api/v4/projects', token: seeded.memberOf10 },
  { name: 'raw file 1 KB', method: 'GET', path: `/api/v4/projects/${seeded.projectId}/repository/files/small.txt/raw?ref=main`, token: seeded.token },
  { name: 'raw file 1 MB', method: 'GET', path: `/api/v4/projects/${seeded.projectId}/repository/files/large.txt/raw?ref=main`, token: seeded.token },
  {
    name: 'milestone create',
    method: 'POST',
    path: `/api/v4/projects/${seeded.projectId}/milestones`,
    token: seeded.token,
    body: () => JSON.stringify({ title: randomUUID() }),
    // Each create is a new row: ids, titles and times differ, the rest must not.
    mask: (s) =>
      s
        .replace(/"(id|iid)":\d+/g, '"$1":0')
        .replace(/"title":"[^"]*"/, '"title":""')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T')
        .replace(/milestones\/\d+/, 'milestones/0'),
  },
];

const call = async (base: string, s: Scenario) => {
  const res = await fetch(`${base}${s.path}`, { method: s.method, headers: { 'PRIVATE-TOKEN': s.token, ...json }, body: s.body?.() });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

type Figures = { rps1: number; rps10: number; cpuMs: number; sql: number; rss: number; peakRss: number };

async function measure(server: { base: string; stats: string }, s: Scenario): Promise<Figures> {
  // SQL statements per request, 20 sequential requests.
  const before = await stats(server.stats);
  for (let i = 0; i < 20; i++) await call(server.base, s);
  const sql = ((await stats(server.stats)).sql - before.sql) / 20;
  const figures = { sql, rps1: 0, rps10: 0, cpuMs: 0, rss: 0, peakRss: 0 };
  const load = (connections: number, duration: number) =>
    autocannon({
      url: server.base,
      connections,
      duration,
      requests: [
        {
          method: s.method,
          path: s.path,
          headers: { 'PRIVATE-TOKEN': s.token, ...json },
          ...(s.body && { setupRequest: (req) => ({ ...req, body: s.body!() }) }),
        },
      ],
    });
  // Both servers serve the scenario unmeasured first. V8 was still optimising the server's code
  // 5 s into a scenario (--trace-opt), and its CPU per request kept falling for ~6 s (GET /projects
  // as a member of 10: 2.50, 1.89, 1.70, 1.65, 1.51 ms in successive 3 s windows), so the measured
  // runs read a server that was half warm, and how far depended on the run.
  await load(10, WARM_UP_SECONDS);
  for (const connections of [1, 10]) {
    const a = await stats(server.stats);
    let peak = a.rss;
    const sampler = setInterval(() => void stats(server.stats).then((x) => (peak = Math.max(peak, x.rss))), 250);
    const result = await load(connections, seconds);
    clearInterval(sampler);
    const b = await stats(server.stats);
    if (result.non2xx || result.errors) throw new Error(`${s.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const cpuMs = (b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system) / 1000 / result.requests.total;
    if (connections === 1) figures.rps1 = result.requests.average;
    else {
      figures.rps10 = result.requests.average;
      figures.cpuMs = cpuMs; // at 10 connections, the loaded case
      figures.rss = b.rss;
      figures.peakRss = Math.max(peak, b.rss);
    }
  }
  return figures;
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)}`;
const rows: string[] = [];
try {
  const idle = await stats(servers.forgegate.stats);
  for (const s of scenarios) {
    if (only && !s.name.includes(only)) continue;
    const [a, b] = [await call(servers.forgegate.base, s), await call(servers.floor.base, s)];
    const mask = s.mask ?? ((x: string) => x);
    const same = a.status === b.status && (s.mask ? mask(a.bytes.toString()) === mask(b.bytes.toString()) : a.bytes.equals(b.bytes));
    if (!same) {
      const x = mask(a.bytes.toString());
      const y = mask(b.bytes.toString());
      let at = 0;
      while (at < x.length && x[at] === y[at]) at++;
      console.error(
        `${s.name}: the floor answers different bytes (status ${a.status}/${b.status}), first difference at ${at}:\n  forgegate …${x.slice(Math.max(0, at - 80), at + 80)}\n  floor     …${y.slice(Math.max(0, at - 80), at + 80)}`,
      );
      rows.push(`| ${s.name} | floor differs: not timed | | | | | | | |`);
      continue;
    }
    const f = await measure(servers.forgegate, s);
    const g = await measure(servers.floor, s);
    rows.push(
      `| ${s.name} | ${a.bytes.length} | ${f.rps1.toFixed(0)} / ${g.rps1.toFixed(0)} | ${f.rps10.toFixed(0)} / ${g.rps10.toFixed(0)} | ${f.cpuMs.toFixed(2)} / ${g.cpuMs.toFixed(2)} | **${(f.cpuMs / g.cpuMs).toFixed(2)}×** | ${f.sql} / ${g.sql} | ${mb(f.rss)} (peak ${mb(f.peakRss)}) / ${mb(g.rss)} |`,
    );
    console.error(`done: ${s.name}`);
  }
  console.log(
    `\nforgegate / floor, ${seconds} s per case, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  // The list at 10 connections again, served by `npm start`'s process: its RSS, idle and at peak.
  const list = scenarios[0]!;
  const loaded = await underLoad({
    dataDir: path.dirname(seeded.repositories),
    databaseUrl: seeded.databaseUrl,
    path: list.path,
    token: list.token,
    connections: 10,
    seconds,
  });
  const warm = [...starts.warmMs].sort((a, b) => a - b);
  console.log(
    `npm start (dist/bundle/main.js, spawn to listening): cold ${Math.round(starts.coldMs)} ms, warm median ${Math.round(warm[warm.length >> 1]!)} ms (${starts.warmMs.map(Math.round).join(', ')}); idle RSS ${mb(starts.idleRss)} MB`,
  );
  console.log(
    `npm start serving "${list.name}" at 10 connections (warm-up, then ${seconds} s measured): idle RSS ${mb(loaded.idleRss)} MB, peak ${mb(loaded.peakRss)} MB (${(loaded.peakRss / loaded.idleRss).toFixed(2)}× idle), ${loaded.cpuMs.toFixed(2)} CPU ms/request, ${loaded.rps.toFixed(0)} req/s`,
  );
  console.log(
    `scenario server (bench/server.ts, seeds in-process): start ${Math.round(seeded.startupMs)} ms, RSS after seeding ${mb(idle.rss)} MB; bench took ${Math.round((performance.now() - started) / 1000)} s\n`,
  );
  console.log('| scenario | bytes | req/s, 1 conn | req/s, 10 conn | CPU ms/request (10 conn) | CPU ratio | SQL/request | RSS MB (10 conn) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  app.child.kill('SIGTERM');
  floor.child.kill('SIGTERM');
}
// After the scenarios' servers are gone: the migration's two servers have the machine to themselves.
if (!only) await migration();
