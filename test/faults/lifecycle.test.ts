// One DATA_DIR through a server's worst days, in order: killed with -9 under concurrent writers,
// its database paused, its postmaster killed, SIGTERM under load. Every acknowledged write must
// survive, the repository must stay sound, and no request may hang or be cut.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, isAlive, postgresProcesses, sleep, startServer, waitReady, type ServerProcess } from './server-process.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-faults-'));
// Short database timeouts so a stalled database shows within seconds.
const ENV = { DB_CONNECT_TIMEOUT_MS: '2000', DB_STATEMENT_TIMEOUT_MS: '3000', SHUTDOWN_GRACE_MS: '10000' };
const WRITERS = 8;

let server: ServerProcess;
let projectId: number;
/** Writes the server acknowledged: file path → content, and milestone titles. */
const acknowledged = { files: new Map<string, string>(), milestones: new Set<string>() };

/** Every answer writers got, by status: shows what the acknowledged writes are out of. */
const statuses = new Map<number, number>();

async function until(condition: () => boolean, limitMs: number) {
  const started = Date.now();
  while (!condition() && Date.now() - started < limitMs) await sleep(50);
}

const filesBase = () => `/api/v4/projects/${projectId}/repository/files`;

/** One writer: commits files to its own branch and creates milestones, until `stop()` says so. */
async function writer(
  port: number,
  id: number,
  until: () => boolean,
  agent?: http.Agent,
  log?: (entry: { started: number; ended: number; ok: boolean; status?: number; error?: string }) => void,
) {
  for (let n = 0; !until(); n++) {
    const started = Date.now();
    const file = `w${id}/f${n}-${started}.txt`;
    const content = `writer ${id} write ${n}`;
    const write =
      n % 2 === 1
        ? call(port, 'POST', `/api/v4/projects/${projectId}/milestones`, { body: { title: `m-${id}-${n}-${started}` }, agent }).then((a) => ({
            a,
            title: `m-${id}-${n}-${started}`,
          }))
        : call(port, 'POST', `${filesBase()}/${encodeURIComponent(file)}`, { body: { branch: `b${id}`, content, commit_message: `w${id} ${n}` }, agent }).then(
            (a) => ({ a, title: null }),
          );
    try {
      const { a, title } = await write;
      log?.({ started, ended: Date.now(), ok: true, status: a.status });
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (a.status !== 201) continue;
      if (title) acknowledged.milestones.add(title);
      else acknowledged.files.set(`${id}:${file}`, content);
    } catch (error) {
      log?.({ started, ended: Date.now(), ok: false, error: (error as Error).message });
      if (!agent) await sleep(20);
    }
  }
}

async function verifyAcknowledged(port: number) {
  const missing: string[] = [];
  for (const [key, content] of acknowledged.files) {
    const [id, file] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const raw = await call(port, 'GET', `${filesBase()}/${encodeURIComponent(file)}/raw?ref=b${id}`);
    if (raw.status !== 200 || raw.body !== content) missing.push(`${file}@b${id}: ${raw.status}`);
  }
  const listed = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await call(port, 'GET', `/api/v4/projects/${projectId}/milestones?per_page=100&page=${page}`);
    const rows = JSON.parse(res.body) as { title: string }[];
    for (const m of rows) listed.add(m.title);
    if (rows.length < 100) break;
  }
  for (const title of acknowledged.milestones) if (!listed.has(title)) missing.push(`milestone ${title}`);
  return missing;
}

function fsck() {
  const repo = path.join(dataDir, 'repositories', `${projectId}.git`);
  return execFileSync('git', ['fsck', '--full', '--no-dangling', '--strict'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  server = await startServer(dataDir, ENV);
  await waitReady(server);
  const group = JSON.parse((await call(server.port, 'POST', '/api/v4/groups', { body: { name: 'Faults', path: 'faults' } })).body);
  const project = await call(server.port, 'POST', '/api/v4/projects', { body: { name: 'App', namespace_id: group.id, initialize_with_readme: true } });
  expect(project.status).toBe(201);
  projectId = JSON.parse(project.body).id;
  for (let i = 0; i < WRITERS; i++) {
    expect((await call(server.port, 'POST', `/api/v4/projects/${projectId}/repository/branches`, { body: { branch: `b${i}`, ref: 'main' } })).status).toBe(201);
  }
});

afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const pg = postgresProcesses(dataDir);
  if (pg) for (const pid of pg.all) process.kill(pid, 'SIGCONT');
  if (pg) process.kill(pg.postmaster, 'SIGQUIT');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('fault injection on a real server process', () => {
  it('restarts after kill -9 under concurrent writers with the same DATA_DIR: fsck clean, every acknowledged write there', async () => {
    let stop = false;
    const writers = Array.from({ length: WRITERS }, (_, i) => writer(server.port, i, () => stop));
    // Kill once writes are flowing (on a loaded machine the first ones take a while).
    await until(() => acknowledged.files.size >= 8 && acknowledged.milestones.size >= 8, 90_000);
    await sleep(500);
    server.child.kill('SIGKILL');
    await server.exited;
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.files.size).toBeGreaterThan(5);
    expect(acknowledged.milestones.size).toBeGreaterThan(5);
    // The embedded postmaster outlives its parent: the next start has to deal with it.
    const orphan = postgresProcesses(dataDir);
    expect(orphan).not.toBeNull();

    const started = Date.now();
    server = await startServer(dataDir, ENV, server.port);
    await waitReady(server);
    const restartMs = Date.now() - started;
    console.log(
      `restart after kill -9: ready in ${restartMs} ms (${acknowledged.files.size} files and ${acknowledged.milestones.size} milestones acknowledged; answers ${JSON.stringify(Object.fromEntries(statuses))})`,
    );
    expect(server.output()).toContain('a previous run left');
    expect(isAlive(orphan!.postmaster)).toBe(false);
    expect(await verifyAcknowledged(server.port)).toEqual([]);
    expect(fsck()).toBe('');
  });

  it('answers 503 with Retry-After while the database is paused (SIGSTOP), readiness 503 within 2 s, and recovers', async () => {
    const pg = postgresProcesses(dataDir)!;
    expect((await call(server.port, 'GET', '/api/v4/projects')).status).toBe(200);
    for (const pid of pg.all) process.kill(pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const answers = await Promise.all([
        call(server.port, 'GET', '/api/v4/projects', { timeoutMs: 20_000 }),
        // Anonymous, on a route that looks the project up (milestones authenticate first: 401 without the database).
        call(server.port, 'GET', `/api/v4/projects/${projectId}/releases`, { token: null, timeoutMs: 20_000 }),
        call(server.port, 'POST', '/api/graphql', { body: { query: '{ projects { count } }' }, timeoutMs: 20_000 }),
      ]);
      const stalledMs = Date.now() - started;
      console.log(
        `stalled database: 503s after ${stalledMs} ms (DB_STATEMENT_TIMEOUT_MS=${ENV.DB_STATEMENT_TIMEOUT_MS}, DB_CONNECT_TIMEOUT_MS=${ENV.DB_CONNECT_TIMEOUT_MS})`,
      );
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.headers['retry-after']).toBe('5');
      }
      const readyStarted = Date.now();
      const ready = await call(server.port, 'GET', '/-/readiness', { token: null, timeoutMs: 5_000 });
      expect(ready.status).toBe(503);
      expect(Date.now() - readyStarted).toBeLessThan(2_000);
      expect(stalledMs).toBeLessThan(10_000);
    } finally {
      for (const pid of pg.all) process.kill(pid, 'SIGCONT');
    }
    await waitReady(server, 20_000);
    expect((await call(server.port, 'GET', '/api/v4/projects')).status).toBe(200);
  });

  it('restarts the embedded PostgreSQL when its postmaster is killed, and answers again', async () => {
    const before = postgresProcesses(dataDir)!;
    process.kill(before.postmaster, 'SIGKILL');
    const started = Date.now();
    let status = 0;
    // A backend of the killed postmaster can still answer for a moment (on a slow machine, the
    // first request after the kill): done means answering after the restart, not just answering.
    const restarted = () => server.output().includes('embedded PostgreSQL restarted');
    while (Date.now() - started < 30_000 && !(status === 200 && restarted())) {
      status = (await call(server.port, 'GET', '/api/v4/projects', { timeoutMs: 10_000 }).catch(() => ({ status: 0 }))).status;
      // While it restarts, the answer is 503, never 500.
      expect([0, 200, 503]).toContain(status);
      if (status !== 200 || !restarted()) await sleep(100);
    }
    expect(status).toBe(200);
    console.log(`postmaster killed: answering again after ${Date.now() - started} ms`);
    expect(server.output()).toContain('embedded PostgreSQL restarted');
    expect(postgresProcesses(dataDir)!.postmaster).not.toBe(before.postmaster);
    expect(await verifyAcknowledged(server.port)).toEqual([]);
  });

  it('drains on SIGTERM under load: no request in flight is cut, every acknowledged write survives', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: WRITERS });
    const entries: { started: number; ended: number; ok: boolean; status?: number; error?: string }[] = [];
    let stop = false;
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      writer(
        server.port,
        i,
        () => stop,
        agent,
        (e) => entries.push(e),
      ),
    );
    await until(() => entries.length >= WRITERS * 2, 90_000);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    stop = true;
    await Promise.all(writers);
    agent.destroy();
    expect(exit).toEqual({ code: 0, signal: null });
    const inFlight = entries.filter((e) => e.started < signalledAt && e.ended >= signalledAt);
    console.log(`SIGTERM under load: ${inFlight.length} requests in flight, ${entries.filter((e) => e.ok).length} answered in all`);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlight.filter((e) => !e.ok || e.status !== 201)).toEqual([]);
    expect(server.output()).toContain('all requests in flight answered');

    server = await startServer(dataDir, ENV, server.port);
    await waitReady(server);
    expect(await verifyAcknowledged(server.port)).toEqual([]);
    expect(fsck()).toBe('');
  });

  it('`npm start` leaves nothing behind when npm itself is signalled', async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    const npm = await startServer(dataDir, ENV, server.port, ['npm', 'start', '--silent']);
    await waitReady(npm);
    npm.child.kill('SIGTERM');
    expect(await npm.exited).toMatchObject({ code: 0 });
    expect(await call(npm.port, 'GET', '/-/health', { token: null }).catch((e: Error) => e.message)).toMatch(/ECONNREFUSED/);
    expect(postgresProcesses(dataDir)).toBeNull();
    server = npm;
  });

  it('exits non-zero when the postmaster dies and restarts are used up (EMBEDDED_PG_MAX_RESTARTS=0)', async () => {
    server = await startServer(dataDir, { ...ENV, EMBEDDED_PG_MAX_RESTARTS: '0' }, server.port);
    await waitReady(server);
    process.kill(postgresProcesses(dataDir)!.postmaster, 'SIGKILL');
    const exit = await Promise.race([server.exited, sleep(20_000).then(() => null)]);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(server.output()).toContain('embedded PostgreSQL is gone');
  });
});
