// npx tsx bench/exports.ts [records]: exports a project holding `records` objects (default 10,000:
// 40% releases with a link each, by three authors; 40% labels; 20% milestones) the way the
// relation-export jobs do, unbatched and batched, against a throwaway embedded PostgreSQL (or
// DATABASE_URL). Prints the time of each export and the process's peak RSS, next to floors
// measured in the same run: reading the same rows page by page with nothing else (the database's
// share), and the RSS before exporting.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/server.ts';
import { createUserRecord } from '../src/modules/users/service.ts';
import { EXPORT_QUEUE, RELATIONS, runRelationExport } from '../src/modules/relation-exports/service.ts';
import type { JobContext } from '../src/jobs/definitions.ts';

const records = Number(process.argv[2] ?? 10_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const runtime = await startRuntime(config, { jobMaintenance: false });
const { deps } = runtime;
const { db } = deps;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
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
  const chunk = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
  for (let i = 0; i < labels; i += 5000) await db.label.createMany({ data: chunk(Math.min(5000, labels - i), (j) => ({ projectId: project.id, name: `label-${i + j}`, color: '#336699', description: 'x'.repeat(80) })) });
  for (let i = 0; i < milestones; i += 5000) await db.milestone.createMany({ data: chunk(Math.min(5000, milestones - i), (j) => ({ projectId: project.id, iid: i + j + 1, title: `m-${i + j}`, description: 'y'.repeat(80) })) });
  for (let i = 0; i < releases; i += 2000) {
    const n = Math.min(2000, releases - i);
    await db.release.createMany({ data: chunk(n, (j) => ({ projectId: project.id, tag: `v${i + j}`, description: 'z'.repeat(200), authorId: authors[(i + j) % 3].id, releasedAt: new Date() })) });
  }
  const ids = await db.release.findMany({ where: { projectId: project.id }, select: { id: true } });
  for (let i = 0; i < ids.length; i += 5000) {
    await db.releaseLink.createMany({ data: ids.slice(i, i + 5000).map((r) => ({ releaseId: r.id, name: 'bin', url: `https://example.com/${r.id}` })) });
  }
  console.log(`project: ${labels} labels, ${milestones} milestones, ${releases} releases with ${ids.length} links (${records} records)`);

  // Floor: the same rows, page by page, with nothing else done to them.
  global.gc?.();
  let started = performance.now();
  for (const model of ['label', 'milestone'] as const) {
    let after = 0;
    for (;;) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const rows: { id: number }[] = await (db[model] as any).findMany({ where: { projectId: project.id, id: { gt: after } }, orderBy: { id: 'asc' }, take: 500 });
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
    }
  }
  let after = 0;
  for (;;) {
    const rows = await db.release.findMany({ where: { projectId: project.id, id: { gt: after } }, orderBy: { id: 'asc' }, take: 500, include: { links: true, milestones: true, author: true } });
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
  }
  console.log(`floor: read every row in pages of 500   ${(performance.now() - started).toFixed(0).padStart(6)} ms`);

  const job: JobContext = { id: 'bench', queue: EXPORT_QUEUE, attempt: 1, retryLimit: 0, deps, log: deps.log };
  const baseline = process.memoryUsage().rss;
  console.log(`RSS before exporting                    ${mb(baseline).padStart(9)}`);
  for (const batched of [false, true]) {
    peak = process.memoryUsage().rss;
    started = performance.now();
    for (const relation of RELATIONS) {
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
        `${ms.toFixed(0).padStart(6)} ms   peak RSS ${mb(peak)} (+${mb(peak - baseline)})`,
    );
  }
} finally {
  clearInterval(sampler);
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
