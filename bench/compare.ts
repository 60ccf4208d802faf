// npx tsx bench/compare.ts <revision> [scenario ...]: CPU per request of a revision (A) against this
// checkout's working tree (B), their bench servers run side by side and loaded in turns
// (bench/turns.ts). Scenarios: rest, graphql, project, projects, raw (bench/turns.ts); rest and
// graphql by default. ROUNDS (8) and ROUND_SECONDS (3) set the rounds and their length.
// The revision is checked out in a temporary worktree that shares this checkout's node_modules
// and generated clients (src/generated), and is removed afterwards.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCommand } from './starts.ts';
import { inTurns, median, scenarioNames, startBenchServer, stopBenchServers, type BenchServer } from './turns.ts';

const [revision, ...named] = process.argv.slice(2);
if (!revision) throw new Error('usage: npx tsx bench/compare.ts <revision> [rest|graphql|project|projects|raw ...]');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const SECONDS = Number(process.env.ROUND_SECONDS ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const chosen = scenarioNames(named);

const worktree = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-compare-'));
execFileSync('git', ['worktree', 'add', '--detach', worktree, revision], { cwd: ROOT, stdio: 'ignore' });
const servers: BenchServer[] = [];
try {
  fs.cpSync(path.join(ROOT, 'src/generated'), path.join(worktree, 'src/generated'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  // Each as npm start runs at that revision: its node flags and allocator settings.
  servers.push(await startBenchServer(worktree, startCommand(worktree)), await startBenchServer(ROOT, startCommand(ROOT)));
  const figures = await inTurns(servers, chosen, ROUNDS, SECONDS);
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  console.log(`CPU ms/request at 10 connections, ${ROUNDS} rounds of ${SECONDS} s; A = ${revision}, B = working tree`);
  for (const [name, [a, b]] of figures) {
    console.log(
      `${name.padEnd(8)} A ${list(a!.cpuMs)}\n${''.padEnd(8)} B ${list(b!.cpuMs)}\n${''.padEnd(8)} median A ${median(a!.cpuMs).toFixed(2)}, B ${median(b!.cpuMs).toFixed(2)}: B/A ${(median(b!.cpuMs) / median(a!.cpuMs)).toFixed(3)}`,
    );
  }
} finally {
  await stopBenchServers(servers);
  execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
}
