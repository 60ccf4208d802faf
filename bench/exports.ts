// npx tsx bench/exports.ts [records]: exports a project holding `records` objects (default 10,000:
// 40% releases with a link each, by three authors; 40% labels; 20% milestones) the way the
// relation-export jobs do, unbatched and batched, against a throwaway embedded PostgreSQL (or
// DATABASE_URL). Prints the time of each export and the process's peak RSS, next to floors
// measured in the same run: reading the same rows page by page with nothing else (the database's
// share, run after the exports), and the memory before exporting. Rows are seeded in SQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';
import { createUserRecord } from '../src/modules/users/service.ts';
import { PROJECT_RELATIONS } from '../src/modules/relation-exports/relations.ts';
import { EXPORT_QUEUE, runRelationExport } from '../src/modules/relation-exports/service.ts';
import type { JobContext } from '../src/jobs/definitions.ts';

const records = Number(process.argv[2] ?? 10_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const runtime = await startRuntime(config, { jobMaintenance: false });
const { deps } = runtime;
const { db } = deps;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
let peak = 0;
let peakHeap = 0;
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  peak = Math.max(peak, usage.rss);
  peakHeap = Math.max(peakHeap, usage.heapUsed);
}, 5);

try {
  const root = await db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const authors = await Promise.all(['alice', 'bob', 'carol'].map((u) => createUserRecord(db, { username: u, name: u, email: `${u}@bench.test` })));
  const group = await db.namespace.create({ data: { kind: 'group', name: 'Bench', path: 'bench', fullPath: 'bench' } });
  await db.namespace.update({ where: { id: group.id }, data: { traversalIds: [group.id] } });
  const project = await db.project.create({ data: { name: 'Big', path: 'big', namespaceId: group.id, creatorId: root.id } });
  await deps.git.init(project.id, 'main');

  const releases = Math.round(records * 0.4);
  const labels = Math.round(records * 0.4);
  const milestones = records - releases - labels;
  // Seeded in SQL, so the rows never pass through this process's heap before the export reads them.
  await db.$executeRaw`INSERT INTO labels (project_id, name, color, description, created_at, updated_at)
    SELECT ${project.id}, 'label-' || g, '#336699', repeat('x', 80), now(), now() FROM generate_series(1, ${labels}::int) g`;
  await db.$executeRaw`INSERT INTO milestones (project_id, iid, title, description, created_at, updated_at)
    SELECT ${project.id}, g, 'm-' || g, repeat('y', 80), now(), now() FROM generate_series(1, ${milestones}::int) g`;
  await db.$executeRaw`INSERT INTO releases (project_id, tag, description, author_id, released_at, created_at, updated_at)
    SELECT ${project.id}, 'v' || g, repeat('z', 200), (ARRAY[${authors[0].id}::int, ${authors[1].id}::int, ${authors[2].id}::int])[g % 3 + 1], now(), now(), now()
    FROM generate_series(1, ${releases}::int) g`;
  const links = await db.$executeRaw`INSERT INTO release_links (release_id, name, url, created_at, updated_at)
    SELECT id, 'bin', 'https://example.com/' || id, now(), now() FROM releases WHERE project_id = ${project.id}`;
  console.log(`project: ${labels} labels, ${milestones} milestones, ${releases} releases with ${links} links (${records} records)`);

  let started = 0;
  const job: JobContext = { id: 'bench', queue: EXPORT_QUEUE, attempt: 1, retryLimit: 0, deps, log: deps.log };
  const baseline = process.memoryUsage().rss;
  const baselineHeap = process.memoryUsage().heapUsed;
  console.log(`before exporting: RSS ${mb(baseline)}, heap used ${mb(baselineHeap)}`);
  for (const batched of [false, true]) {
    peak = process.memoryUsage().rss;
    peakHeap = process.memoryUsage().heapUsed;
    started = performance.now();
    for (const relation of PROJECT_RELATIONS) {
      const row = await db.relationExport.upsert({
        where: { projectId_userId_relation: { projectId: project.id, userId: root.id, relation } },
        create: { projectId: project.id, userId: root.id, relation, batched: batched && relation !== 'repository_bundle' },
        update: { status: 0, batched: batched && relation !== 'repository_bundle', createdAt: new Date() },
      });
      await runRelationExport({ exportId: row.id, startedAt: row.createdAt.toISOString() }, job);
    }
    const ms = performance.now() - started;
    const rows = await db.relationExport.findMany({ where: { projectId: project.id } });
    const failed = rows.filter((r) => r.status !== 1);
    if (failed.length) throw new Error(`export failed: ${JSON.stringify(failed)}`);
    const objects = rows.reduce((sum, r) => sum + r.totalObjectsCount, 0);
    const batches = rows.reduce((sum, r) => sum + r.batchesCount, 0);
    console.log(
      `export ${batched ? 'batched  ' : 'unbatched'} (${objects} objects${batched ? `, ${batches} batches` : ''})`.padEnd(40) +
        `${ms.toFixed(0).padStart(6)} ms   peak RSS ${mb(peak)} (+${mb(peak - baseline)}), peak heap used ${mb(peakHeap)}`,
    );
  }
  // Floor: the same rows, page by page, with nothing else done to them.
  started = performance.now();
  for (const model of ['label', 'milestone'] as const) {
    let after = 0;
    for (;;) {
      const page = { where: { projectId: project.id, id: { gt: after } }, orderBy: { id: 'asc' as const }, take: 500 };
      const rows = model === 'label' ? await db.label.findMany(page) : await db.milestone.findMany(page);
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
    }
  }
  let after = 0;
  for (;;) {
    const rows = await db.release.findMany({
      where: { projectId: project.id, id: { gt: after } },
      orderBy: { id: 'asc' },
      take: 500,
      include: { links: true, milestones: true, author: true },
    });
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
  }
  console.log(`floor: read every row in pages of 500   ${(performance.now() - started).toFixed(0).padStart(6)} ms`);
} finally {
  clearInterval(sampler);
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
