// npx tsx bench/flags.ts [scenario ...]: what each variable and node flag of `npm start`
// (bin/forgegate-server) still pays, on the node that runs this script (another node:
// `/path/to/node --import tsx bench/flags.ts`). Bench servers run side by side, loaded in turns
// (bench/turns.ts): one with all of them, one without each. CPU ms per request and peak RSS at 10
// connections, medians over the rounds, each beside the server with all of them. Scenarios as in
// bench/compare.ts; ROUNDS (6) and ROUND_SECONDS (3).
import { fileURLToPath } from 'node:url';
import { startCommand } from './starts.ts';
import { inTurns, median, scenarioNames, startBenchServer, stopBenchServers, type BenchServer } from './turns.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 6);
const SECONDS = Number(process.env.ROUND_SECONDS ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const chosen = scenarioNames(process.argv.slice(2));

const all = startCommand();
const variants = [
  { name: 'all', ...all },
  ...Object.keys(all.env).map((key) => ({
    name: `without ${key}`,
    env: Object.fromEntries(Object.entries(all.env).filter(([k]) => k !== key)),
    nodeFlags: all.nodeFlags,
  })),
  ...all.nodeFlags.map((flag) => ({ name: `without ${flag}`, env: all.env, nodeFlags: all.nodeFlags.filter((f) => f !== flag) })),
];

const servers: BenchServer[] = [];
try {
  for (const v of variants) servers.push(await startBenchServer(ROOT, v));
  const figures = await inTurns(servers, chosen, ROUNDS, SECONDS);
  console.log(`node ${process.version}; ${ROUNDS} rounds of ${SECONDS} s at 10 connections; medians, and their ratio to "all"\n`);
  console.log(`| variant | ${chosen.map((n) => `${n}: CPU ms/request | ${n}: peak RSS MB`).join(' | ')} |`);
  console.log(`|---|${chosen.map(() => '---|---|').join('')}`);
  for (const [i, v] of variants.entries()) {
    const cells = chosen.map((name) => {
      const [base, mine] = [figures.get(name)![0]!, figures.get(name)![i]!];
      const cpu = median(mine.cpuMs);
      const rss = median(mine.peakRss);
      return `${cpu.toFixed(2)} (${(cpu / median(base.cpuMs)).toFixed(2)}) | ${Math.round(rss / 2 ** 20)} (${(rss / median(base.peakRss)).toFixed(2)})`;
    });
    console.log(`| ${v.name} | ${cells.join(' | ')} |`);
  }
} finally {
  await stopBenchServers(servers);
}
