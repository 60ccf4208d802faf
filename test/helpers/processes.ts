import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A forgegate process the test started: its output is kept for the failure message. */
export type Proc = { child: ChildProcess; output: () => string; fullOutput: () => string; exited: Promise<number | null>; name: string };

/**
 * A server on a port the system picks (PORT=0: no race with other test runs for a port chosen in
 * advance); `listeningBase` reads its base URL from its "forgegate is listening" line.
 */
export const startServerOnFreePort = (name: string, env: Record<string, string>) => startServer(name, { ...env, PORT: '0', LOG_LEVEL: 'info' });

export async function listeningBase(proc: Proc, ms: number): Promise<string> {
  let base = '';
  await waitUntil(
    async () => {
      const line = proc
        .fullOutput()
        .split('\n')
        .find((l) => l.includes('"forgegate is listening"'));
      if (line) base = JSON.parse(line).url;
      return base !== '';
    },
    `${proc.name} to listen`,
    ms,
    [proc],
  );
  return base;
}

function start(name: string, [command, ...args]: [string, ...string[]], env: Record<string, string>): Proc {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output.slice(-4000), fullOutput: () => output, exited, name };
}

/** `npm start` without npm: the bundled server through its launcher (the global setup keeps dist/ current). */
export const startServer = (name: string, env: Record<string, string>) => start(name, [path.join(ROOT, 'bin/forgegate-server')], env);

/** `npx forgegate worker`. */
export const startWorkerProcess = (name: string, env: Record<string, string>) => start(name, [process.execPath, 'bin/forgegate.mjs', 'worker'], env);

export async function waitUntil(check: () => Promise<boolean>, what: string, ms: number, procs: Proc[] = []): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    for (const p of procs) {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited (${p.child.exitCode}) while waiting for ${what}:\n${p.output()}`);
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}:\n${procs.map((p) => `--- ${p.name}\n${p.output()}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops a process with `signal` and waits for it to exit. */
export async function stop(proc: Proc, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
  proc.child.kill(signal);
  return proc.exited;
}
