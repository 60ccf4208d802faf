// npx tsx bench/profile.ts [scenario] [seconds]: CPU profile of the forgegate server under one
// bench scenario at 10 connections, summarised by where the self time goes (package or src folder).
//   scenario: releases (REST list of 100, default) | graphql | project | projects (member of 1,000) | projects10 (of 10) | raw | milestone (create)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { RELEASES_QUERY } from './documents.ts';
import type { Ready } from './server.ts';
import { startCommand } from './starts.ts';

const scenario = process.argv[2] ?? 'releases';
const seconds = Number(process.argv[3] ?? 8);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-profile-'));
const profileFile = path.join(dir, 'serving.cpuprofile');
// As `npm start` runs (its node flags and variables, package.json).
const { env: startEnv, nodeFlags } = startCommand();
const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'bench/server.ts'], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, ...startEnv, BENCH_PROFILE: profileFile },
});
let output = '';
const ready = await new Promise<Ready>((resolve) =>
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
    const line = output.split('\n').find((l) => l.startsWith('READY '));
    if (line) resolve(JSON.parse(line.slice(6)));
  }),
);
const targets: Record<string, { path: string; method?: string; body?: string; token?: string }> = {
  releases: { path: `/api/v4/projects/${ready.projectId}/releases?per_page=100` },
  project: { path: `/api/v4/projects/${ready.projectId}` },
  projects: { path: '/api/v4/projects?per_page=10', token: ready.memberOf1000 },
  projects10: { path: '/api/v4/projects?per_page=10', token: ready.memberOf10 },
  raw: { path: `/api/v4/projects/${ready.projectId}/repository/files/small.txt/raw?ref=main` },
  graphql: {
    path: '/api/graphql',
    method: 'POST',
    body: JSON.stringify({ query: RELEASES_QUERY, variables: { fullPath: ready.projectPath } }),
  },
  milestone: { path: `/api/v4/projects/${ready.projectId}/milestones`, method: 'POST' },
};
const t = targets[scenario];
// A create needs a new title per request (a taken one is a 400): autocannon asks for each body.
const setupRequest = scenario === 'milestone' ? (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ title: randomUUID() }) }) : undefined;
const load = {
  url: `${ready.base}${t.path}`,
  method: t.method ?? 'GET',
  ...(t.body && { body: t.body }),
  ...(setupRequest && { requests: [{ setupRequest }] }),
};
const headers = { 'PRIVATE-TOKEN': t.token ?? ready.token, 'content-type': 'application/json' };
// The server's own CPU (all threads) over the profiled window, to set beside V8's samples.
const cpuNow = async () => {
  const { cpu } = (await (await fetch(`${ready.stats}/`)).json()) as { cpu: { user: number; system: number } };
  return cpu.user + cpu.system;
};
const cpuBefore = await cpuNow();
await autocannon({ ...load, headers, connections: 10, duration: 2 }); // warm-up, in the profile too
const result = await autocannon({ ...load, headers, connections: 10, duration: seconds });
const cpuSeconds = (await cpuNow()) - cpuBefore;
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
type Node = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
/**
 * V8 samples the main thread on a wall clock: a sample inside a system call counts whether the
 * thread runs or waits. A write to a socket wakes its reader (PostgreSQL's backend for a query, the
 * load generator for an answer), which the kernel often runs at once on the writer's core, so these
 * leaves are mostly time off the CPU: `perf record` on the server (on-CPU samples) put the kernel
 * under 5 % of the GET /projects list where V8 put writev at 40 %.
 */
const SYSTEM_CALLS = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'close',
  'open',
  'openFileHandle',
  'read',
  'fstat',
]);
const category = (n: Node) => {
  const { url, functionName } = n.callFrame;
  if (!url && SYSTEM_CALLS.has(functionName)) return `(system call, mostly off-CPU) ${functionName}`;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1] === '.prisma' || pkg[1].startsWith('@prisma') ? '@prisma/*' : pkg[1];
  const src = url.match(/\/(src\/[^/]+|bench)\//);
  if (src) return src[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url;
};
const totals = new Map<string, number>();
let all = 0;
for (const [id, us] of self) {
  const c = category(byId.get(id)!);
  if (c === '(idle)') continue;
  totals.set(c, (totals.get(c) ?? 0) + us);
  all += us;
}
const blocked = [...totals].filter(([c]) => c.startsWith('(system call')).reduce((sum, [, us]) => sum + us, 0);
console.log(
  `${scenario}: ${result.requests.total} requests in ${seconds} s (+2 s warm-up), main thread busy ${(all / 1e6).toFixed(1)} s ` +
    `(${(blocked / 1e6).toFixed(1)} s of it in system calls), server CPU ${(cpuSeconds / 1e6).toFixed(1)} s (all threads)`,
);
for (const [c, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * us) / all).toFixed(1).padStart(5)} %  ${c}`);
const functions = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') continue;
  const key = `${functionName || '(anonymous)'} ${url ? url.replace(/^.*node_modules\//, '').replace(/^.*\/(src|bench)\//, '$1/') : ''}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
console.log('\ntop functions (self time):');
for (const [f, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${((100 * us) / all).toFixed(1).padStart(5)} %  ${f}`);
fs.rmSync(dir, { recursive: true, force: true });
