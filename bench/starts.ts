// `npm start` itself, for `npm run bench`: the bundled server through its launcher
// (bin/forgegate-server: node flags and environment). Its starts are timed from spawn to the "listening" line (as a supervisor waits for
// it), on a new DATA_DIR (cold: initdb, migrations, root user) and then on the same one (warm). The
// scenarios' server (bench/server.ts) seeds data in-process first, so its RSS is not an idle
// server's: `underLoad` serves the seeded data from `npm start`'s process and reads its own RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const LAUNCHER = 'bin/forgegate-server';

/**
 * The variables and node flags that `npm start` runs the server with: the `exec node` line of
 * bin/forgegate-server (this checkout's, or the one in `root`), or of package.json's start script
 * at revisions before the launcher (e.g. 8d4917b). The benches' own servers run with the same.
 */
export function startCommand(root = ROOT): { env: Record<string, string>; nodeFlags: string[] } {
  const launcher = path.join(root, LAUNCHER);
  const line: string = fs.existsSync(launcher)
    ? fs
        .readFileSync(launcher, 'utf8')
        .split('\n')
        .find((l) => /\bexec node /.test(l))!
    : JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const words = line.split(/\s+/).filter((w) => w !== 'exec');
  const node = words.indexOf('node');
  const env = Object.fromEntries(words.slice(0, node).map((w) => w.split('=') as [string, string]));
  return { env, nodeFlags: words.slice(node + 1).filter((w) => w.startsWith('--')) };
}

/** /proc/<pid>: resident memory in bytes, CPU (user + system) in ms. */
function usage(pid: number): { rss: number; cpuMs: number } {
  const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rss, cpuMs: (ticks * 1000) / 100 };
}

type Server = { child: ChildProcess; url: string; ms: number; stop: () => Promise<void> };

/** Spawns `npm start`'s command (the launcher); resolves once it logs that it listens, with the time that took. */
async function serve(env: Record<string, string>): Promise<Server> {
  const started = performance.now();
  const child = spawn(path.join(ROOT, LAUNCHER), [], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        output += c.toString();
        const line = output.split('\n').find((l) => l.includes('"forgegate is listening"'));
        if (line) resolve(JSON.parse(line).url);
      });
      child.on('exit', (code) => reject(new Error(`the server exited (${code}) while starting:\n${output.slice(-3000)}`)));
    });
    return { child, url, ms: performance.now() - started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cold start, then `warmRuns` warm ones; idle RSS is read 5 s after the last warm start answered a request. */
export async function measureStarts(warmRuns = 5): Promise<{ coldMs: number; warmMs: number[]; idleRss: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-start-'));
  try {
    const times: number[] = [];
    let idleRss = 0;
    for (let run = 0; run <= warmRuns; run++) {
      const server = await serve({ DATA_DIR: dataDir });
      try {
        times.push(server.ms);
        const res = await fetch(`${server.url}/api/v4/projects`);
        if (res.status !== 200) throw new Error(`GET /api/v4/projects answered ${res.status} after the start`);
        if (run === warmRuns) {
          await settle(5_000);
          idleRss = usage(server.child.pid!).rss;
        }
      } finally {
        await server.stop();
      }
    }
    return { coldMs: times[0]!, warmMs: times.slice(1), idleRss };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `npm start`'s process serving the seeded data (its DATA_DIR, the scenarios' database): its RSS
 * idle, then its peak under `connections` clients of one GET over a warm-up and a measured run of
 * `seconds` each, and its CPU per request in the measured one.
 */
export async function underLoad(opts: { dataDir: string; databaseUrl: string; path: string; token: string; connections: number; seconds: number }) {
  const server = await serve({ DATA_DIR: opts.dataDir, DATABASE_URL: opts.databaseUrl });
  try {
    const headers = { 'PRIVATE-TOKEN': opts.token };
    if ((await fetch(`${server.url}${opts.path}`, { headers })).status !== 200) throw new Error(`${opts.path} does not answer 200`);
    await settle(3_000);
    const idle = usage(server.child.pid!);
    let peak = idle.rss;
    const sampler = setInterval(() => (peak = Math.max(peak, usage(server.child.pid!).rss)), 100);
    const load = async () => {
      const result = await autocannon({
        url: server.url,
        connections: opts.connections,
        duration: opts.seconds,
        requests: [{ method: 'GET', path: opts.path, headers }],
      });
      if (result.non2xx || result.errors) throw new Error(`${opts.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return result;
    };
    try {
      await load();
      // The warm-up's last requests, which the load generator gave up on, finish outside the measure.
      await settle(1_000);
      const before = usage(server.child.pid!);
      const result = await load();
      const after = usage(server.child.pid!);
      return {
        idleRss: idle.rss,
        peakRss: Math.max(peak, after.rss),
        cpuMs: (after.cpuMs - before.cpuMs) / result.requests.total,
        rps: result.requests.average,
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await server.stop();
  }
}
