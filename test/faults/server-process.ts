// A real forgegate server process (what `npm start` runs: bin/forgegate-server) on a loopback
// port, with its own DATA_DIR and embedded PostgreSQL, for tests that kill, pause and signal it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const ROOT_TOKEN = 'glpat-faults-0123456789abcdef';

export type ServerProcess = {
  child: ChildProcess;
  port: number;
  /** Everything the process wrote to stdout and stderr. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/** Starts the server's launcher (bin/forgegate-server), or `command` (e.g. `npm start`) with the same environment. */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  port?: number,
  command = [path.join(ROOT, 'bin/forgegate-server')],
): Promise<ServerProcess> {
  port ??= await freePort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|TEST_DATABASE_URL|PORT|DATA_DIR)$/.test(k)));
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: {
      ...clean,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      INITIAL_ROOT_TOKEN: ROOT_TOKEN,
      JOB_WORKERS_IN_SERVER: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, port, output: () => output, exited };
}

export type Answer = { status: number; body: string; headers: http.IncomingHttpHeaders };

export function call(
  port: number,
  method: string,
  urlPath: string,
  opts: { body?: unknown; token?: string | null; agent?: http.Agent; timeoutMs?: number } = {},
): Promise<Answer> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: opts.agent ?? false,
        headers: {
          ...(payload && { 'Content-Type': 'application/json' }),
          ...(opts.token !== null && { 'PRIVATE-TOKEN': opts.token ?? ROOT_TOKEN }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls until `/-/readiness` answers 200; returns the milliseconds it took. */
export async function waitReady(server: ServerProcess, limitMs = 90_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (server.child.exitCode !== null) throw new Error(`server exited (${server.child.exitCode}):\n${server.output()}`);
    const answer = await call(server.port, 'GET', '/-/readiness', { token: null, timeoutMs: 2_000 }).catch(() => null);
    if (answer?.status === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server not ready within ${limitMs} ms:\n${server.output()}`);
}

/** The postmaster of a DATA_DIR and every process it started (backends, checkpointer, ...). */
export function postgresProcesses(dataDir: string): { postmaster: number; all: number[] } | null {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!isAlive(postmaster)) return null;
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid (after the parenthesised command name).
        return Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return { postmaster, all: [postmaster, ...children] };
}

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
