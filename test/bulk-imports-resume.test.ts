// A source that stops in the middle of a migration and comes back: the destination's job fails
// its attempts while the source is away (retried by the queue), then resumes where it stopped.
// A migration canceled while its job waits on the source: the job ends without importing more.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

let src: TestApp;
let dst: TestApp;
let proxy: net.Server;
let port = 0;
const sockets = new Set<net.Socket>();

/** A loopback TCP relay to the source that the test can take down and bring back on the same port. */
async function openProxy() {
  const target = new URL(src.base);
  proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  port = (proxy.address() as AddressInfo).port;
}

async function closeProxy() {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
}

const entityOf = async (id: number) => (await dst.api('get', `/bulk_imports/${id}/entities`).expect(200)).body[0];

beforeAll(async () => {
  [src, dst] = await Promise.all([createTestApp(), createTestApp()]);
  await src.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  await dst.api('put', '/application/settings').send({ bulk_import_enabled: true, allow_local_requests_from_web_hooks_and_services: true }).expect(200);
  const group = (await src.api('post', '/groups').send({ name: 'Src', path: 'src' }).expect(201)).body;
  const project = (await src.api('post', '/projects').send({ name: 'P', path: 'p', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
  await src.api('post', `/projects/${project.id}/labels`).send({ name: 'kept', color: '#00ff00' }).expect(201);
  await src.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1' }).expect(201);
  await dst.api('post', '/groups').send({ name: 'Dst', path: 'dst' }).expect(201);
  await openProxy();
});
afterAll(async () => {
  await closeProxy().catch(() => undefined);
  await Promise.all([src?.close(), dst?.close()]);
});

it('resumes after the source went away mid-migration, and finishes', async () => {
  const created = await dst
    .api('post', '/bulk_imports')
    .send({
      configuration: { url: `http://127.0.0.1:${port}`, access_token: src.root.token },
      entities: [{ source_type: 'project_entity', source_full_path: 'src/p', destination_slug: 'p', destination_namespace: 'dst' }],
    })
    .expect(201);
  // First round: the project is created and the export requested; the source writes it.
  await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
  await src.deps.jobs.drain();
  const before = await entityOf(created.body.id);
  expect(before.status).toBe('started');
  expect(before.project_id).toEqual(expect.any(Number));

  await closeProxy();
  // Two attempts while the source is away: each fails and is retried by the queue, none ends the entity.
  await dst.deps.jobs.drain({ maxRuns: 2 }).catch(() => undefined);
  const during = await entityOf(created.body.id);
  expect(during).toMatchObject({ status: 'started', failures: [], project_id: before.project_id });

  await openProxy();
  for (let round = 0; round < 100 && (await entityOf(created.body.id)).status === 'started'; round++) {
    await src.deps.jobs.drain();
    await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
  }
  const after = await entityOf(created.body.id);
  expect(after).toMatchObject({ status: 'finished', failures: [], project_id: before.project_id });
  const labels = (await dst.api('get', '/projects/dst%2Fp/labels').expect(200)).body;
  expect(labels.map((l: { name: string }) => l.name)).toEqual(['kept']);
  // One project, not a second one created by the resumed job.
  expect(await dst.db.project.count({ where: { path: 'p' } })).toBe(1);
});

/**
 * An HTTP relay to the source that holds the first request whose URL contains `held` until the
 * test releases it: `reached` settles when the job is waiting on it.
 */
async function pausedRelay(held: string) {
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const target = new URL(src.base);
  const server = http.createServer(async (req, res) => {
    const body: Buffer[] = [];
    for await (const chunk of req) body.push(chunk as Buffer);
    if (req.url?.includes(held)) {
      reached();
      await gate;
    }
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(Buffer.concat(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, release, waiting, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

it('a migration canceled while its job runs ends canceled, and the job imports nothing more', async () => {
  const relay = await pausedRelay('download?relation=labels');
  // A namespace of its own: the first test's project already holds the source project's name in `dst`.
  await dst.api('post', '/groups').send({ name: 'Other', path: 'other' }).expect(201);
  try {
    const created = await dst
      .api('post', '/bulk_imports')
      .send({
        configuration: { url: relay.url, access_token: src.root.token },
        entities: [{ source_type: 'project_entity', source_full_path: 'src/p', destination_slug: 'p', destination_namespace: 'other' }],
      })
      .expect(201);
    const id = created.body.id;
    // The entity's job is in the queue, and the job-queue metrics show it.
    const queued = await dst.api('get', '/sidekiq/queue_metrics').expect(200);
    expect(queued.body.queues['bulk-import-entity']).toMatchObject({ backlog: 1 });
    // Rounds of both servers' jobs until the entity's job waits on the labels download: the user cancels then.
    let held = false;
    void relay.waiting.then(() => {
      held = true;
    });
    const running = (async () => {
      for (let round = 0; round < 20 && !held; round++) {
        await src.deps.jobs.drain();
        await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
      }
    })();
    await relay.waiting;
    const canceled = await dst.api('post', `/bulk_imports/${id}/cancel`).expect(200);
    expect(canceled.body.status).toBe('canceled');
    relay.release();
    await running;
    await dst.deps.jobs.drain({ maxRuns: 5 }).catch(() => undefined);

    const [entity] = (await dst.api('get', `/bulk_imports/${id}/entities`).expect(200)).body;
    expect(entity).toMatchObject({ status: 'canceled', failures: [] });
    expect((await dst.api('get', `/bulk_imports/${id}`).expect(200)).body.status).toBe('canceled');
    // The labels in flight landed; nothing after them did (milestones, members, releases).
    const trackers = await dst.db.bulkImportTracker.findMany({ where: { entityId: entity.id }, orderBy: { id: 'asc' } });
    expect(trackers.filter((t) => t.status === 2).map((t) => t.relation)).toEqual(['repository_bundle', 'labels']);
    const imported = await dst.db.relationImport.findMany({ where: { projectId: entity.project_id }, select: { relation: true }, orderBy: { id: 'asc' } });
    expect(imported.map((r) => r.relation)).toEqual(['repository_bundle', 'labels']);
    expect((await dst.api('get', '/projects/other%2Fp/milestones').expect(200)).body).toEqual([]);
    // No job of the canceled migration is left waiting.
    const after = await dst.api('get', '/sidekiq/queue_metrics').expect(200);
    expect(after.body.queues['bulk-import-entity']).toMatchObject({ backlog: 0 });
  } finally {
    relay.release();
    await relay.close();
  }
});
