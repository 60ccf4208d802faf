// Scale-out as an installation does it: two server processes and one worker process on one
// PostgreSQL database and one shared DATA_DIR (repositories, secrets), all started together.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/app.ts';
import { listeningBase, startServerOnFreePort, startWorkerProcess, stop, waitUntil, type Proc } from './helpers/processes.ts';

const TOKEN = 'glpat-scale-out-root-token-0123456789';

type Server = { name: string; base: string; proc: Proc };

async function call(server: Server, method: string, p: string, body?: unknown) {
  const res = await fetch(`${server.base}/api/v4${p}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('scale-out: two servers and a worker process on one database', () => {
  let dataDir: string;
  let databaseUrl: string;
  let a: Server;
  let b: Server;
  let worker: Proc | undefined;
  const procs: Proc[] = [];

  const workerEnv = () => ({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    JOB_HEARTBEAT_SECONDS: '5',
    JOB_POLL_INTERVAL_SECONDS: '1',
    JOB_WORKER_TAG: 'scale-out',
  });
  const processes = async () => (await call(a, 'GET', '/jobqueue/process_metrics')).body.processes as { pid: number }[];
  const jobs = async (server: Server) => (await call(server, 'GET', '/jobqueue/job_stats')).body.jobs;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase({ empty: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-scale-'));
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, EXTERNAL_URL: 'http://gitlab.test', INITIAL_ROOT_TOKEN: TOKEN, JOB_WORKERS_IN_SERVER: 'false' };
    // All at once, on a new database and an empty DATA_DIR: migrations, the job tables, the
    // secrets file and the root user must each come out exactly once.
    const [pa, pb] = [startServerOnFreePort('server-a', env), startServerOnFreePort('server-b', env)];
    procs.push(pa, pb);
    a = { name: 'server-a', base: await listeningBase(pa, 120_000), proc: pa };
    b = { name: 'server-b', base: await listeningBase(pb, 120_000), proc: pb };
    for (const s of [a, b]) await waitUntil(async () => (await fetch(`${s.base}/-/readiness`)).status === 200, `${s.name} readiness`, 120_000, [pa, pb]);
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) await stop(p, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('both servers accept the same root token (one secrets file, one root)', async () => {
    for (const s of [a, b]) expect((await call(s, 'GET', '/user')).body).toMatchObject({ username: 'root', is_admin: true });
    expect((await call(a, 'GET', '/users?username=root')).body).toHaveLength(1);
  });

  let project: { id: number; path_with_namespace: string };

  it('concurrent writes through both servers lose nothing and conflict cleanly', async () => {
    const group = await call(a, 'POST', '/groups', { name: 'Scale', path: 'scale' });
    expect(group.status).toBe(201);
    const created = await call(b, 'POST', '/projects', { name: 'App', namespace_id: group.body.id, initialize_with_readme: true });
    expect(created.status).toBe(201);
    project = created.body;
    const servers = [a, b];

    // File commits on one branch: each is a commit with compare-and-swap on main.
    const commits = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(servers[i % 2]!, 'POST', `/projects/${project.id}/repository/files/f${i}.txt`, {
          branch: 'main',
          content: `file ${i}`,
          commit_message: `add f${i}`,
        }),
      ),
    );
    const committed = commits.flatMap((r, i) => (r.status === 201 ? [i] : []));
    for (const r of commits) {
      if (r.status !== 201) expect(r).toEqual({ status: 400, body: { message: 'Could not update refs/heads/main. Please refresh and try again.' } });
    }
    expect(committed.length).toBeGreaterThan(0);
    for (let i = 0; i < 12; i++) {
      const raw = await fetch(`${(i % 2 ? b : a).base}/api/v4/projects/${project.id}/repository/files/f${i}.txt/raw?ref=main`, {
        headers: { 'PRIVATE-TOKEN': TOKEN },
      });
      expect(raw.status, `f${i}`).toBe(committed.includes(i) ? 200 : 404);
      if (committed.includes(i)) expect(await raw.text()).toBe(`file ${i}`);
    }
    // The branch holds exactly the commits that were answered 201, one after another.
    const repo = path.join(dataDir, 'repositories', `${project.id}.git`);
    const log = execFileSync('git', ['-C', repo, 'log', '--format=%s', 'main'], { encoding: 'utf8' }).trim().split('\n');
    expect(log.filter((s) => s.startsWith('add f')).sort()).toEqual(committed.map((i) => `add f${i}`).sort());
    execFileSync('git', ['-C', repo, 'fsck', '--no-dangling']);

    // Milestones: distinct titles all land with distinct iids; one title sent to both servers lands once.
    const milestones = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(servers[i % 2]!, 'POST', `/projects/${project.id}/milestones`, { title: `M${i}` })),
    );
    expect(milestones.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(milestones.map((r) => r.body.iid)).size).toBe(8);
    const same = await Promise.all(servers.map((s) => call(s, 'POST', `/projects/${project.id}/milestones`, { title: 'Shared' })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 400]);
    expect((await call(a, 'GET', `/projects/${project.id}/milestones?per_page=100`)).body).toHaveLength(9);

    // Releases (each creates its tag): distinct tags all land; one tag sent to both lands once.
    const releases = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(servers[i % 2]!, 'POST', `/projects/${project.id}/releases`, { tag_name: `v${i}.0`, ref: 'main', name: `R${i}` }),
      ),
    );
    expect(releases.map((r) => r.status)).toEqual(Array(6).fill(201));
    const twice = await Promise.all(servers.map((s) => call(s, 'POST', `/projects/${project.id}/releases`, { tag_name: 'v9.9', ref: 'main' })));
    expect(twice.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(twice.find((r) => r.status === 409)!.body).toEqual({ message: 'Release already exists' });
    expect((await call(b, 'GET', `/projects/${project.id}/releases?per_page=100`)).body).toHaveLength(7);
  });

  it('jobs enqueued through either server wait for a worker, then run exactly once', async () => {
    const group = (await call(a, 'GET', '/groups/scale')).body;
    const projects = [project];
    for (let i = 0; i < 3; i++)
      projects.push((await call([a, b][i % 2]!, 'POST', '/projects', { name: `P${i}`, namespace_id: group.id, initialize_with_readme: true })).body);
    // Housekeeping for every project through alternating servers; for one of them through both at once.
    for (const [i, p] of projects.slice(1).entries()) expect((await call([a, b][i % 2]!, 'POST', `/projects/${p.id}/housekeeping`)).status).toBe(201);
    const race = await Promise.all([a, b].map((s) => call(s, 'POST', `/projects/${project.id}/housekeeping`)));
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);

    // No worker yet: the jobs wait, and both servers see the same backlog.
    await new Promise((r) => setTimeout(r, 1100));
    for (const s of [a, b]) {
      const queue = (await call(s, 'GET', '/sidekiq/queue_metrics')).body.queues['repository-housekeeping'];
      expect(queue.backlog).toBe(4);
      expect(queue.latency).toBeGreaterThanOrEqual(1);
    }
    expect(await jobs(b)).toEqual({ processed: 0, failed: 0, enqueued: 4, dead: 0 });

    worker = startWorkerProcess('worker', workerEnv());
    procs.push(worker);
    await waitUntil(async () => (await jobs(a)).processed >= 4, 'the worker to run the jobs', 120_000, [worker]);
    // Give a duplicate run every chance to show up before counting.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await jobs(a)).toEqual({ processed: 4, failed: 0, enqueued: 0, dead: 0 });
    // Each repository was packed: every reachable object is in a pack (recent unreachable ones,
    // left by the commits that lost their race, stay loose for gc's grace period).
    for (const p of projects) {
      const repo = path.join(dataDir, 'repositories', `${p.id}.git`);
      const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
      const reachable = new Set(
        git('rev-list', '--objects', '--all')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(0, 40)),
      );
      const packDir = path.join(repo, 'objects', 'pack');
      const indexes = fs.readdirSync(packDir).filter((f) => f.endsWith('.idx'));
      expect(indexes.length, p.path_with_namespace).toBeGreaterThan(0);
      const packed = new Set(
        indexes.flatMap((idx) =>
          execFileSync('git', ['show-index'], { input: fs.readFileSync(path.join(packDir, idx)), encoding: 'utf8' })
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split(' ')[1]!),
        ),
      );
      for (const oid of reachable) expect(packed.has(oid), `${p.path_with_namespace} ${oid}`).toBe(true);
    }
    const ps = await processes();
    expect(ps.map((p) => p.pid)).toEqual([worker.child.pid]);
  });

  it('a flag set through one server is seen by the other within a second', async () => {
    // Warm server B's flag cache first, so only the notification can tell it.
    expect((await call(b, 'GET', '/features')).body).toEqual([]);
    expect((await call(a, 'POST', '/features/epic_highlight_color', { value: 'true' })).status).toBe(201);
    const set = Date.now();
    await waitUntil(
      async () => (await call(b, 'GET', '/features')).body.some((f: { name: string; state: string }) => f.name === 'epic_highlight_color' && f.state === 'on'),
      'server B to see the flag',
      1000,
    );
    expect(Date.now() - set).toBeLessThan(1000);
    expect((await call(b, 'DELETE', '/features/epic_highlight_color')).status).toBe(204);
    await waitUntil(async () => (await call(a, 'GET', '/features')).body.length === 0, 'server A to see the removal', 1000);
  });

  it('a stopping worker process leaves the metrics at once', async () => {
    expect(await stop(worker!, 'SIGTERM')).toBe(0);
    expect(await processes()).toEqual([]);
  });
});
