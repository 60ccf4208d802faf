import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Viewer } from '../src/auth/viewer.ts';
import { createContext } from '../src/core/context.ts';
import type { ProjectWithNamespace } from '../src/auth/policy.ts';
import { listReleases, RELEASE_SORTS } from '../src/modules/releases/service.ts';
import { selectList } from '../src/db/rows.ts';
import { COLUMNS, TABLES, type ModelName } from '../src/generated/columns.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';
import { inZone } from './helpers/zone.ts';

let t: TestApp;
let releaseIds: number[];
let projectId: number;

beforeAll(async () => {
  t = await createTestApp();
  const { project, group } = await seedProject(t);
  projectId = project.id;
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1', due_date: '2026-12-31', start_date: '2026-01-02' }).expect(201);
  await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'G1' }).expect(201);
  for (const [tag, milestones, links] of [
    ['v1', ['M1', 'G1'], 3],
    ['v2', ['M1'], 0],
    ['v3', [], 2],
  ] as const) {
    const assets = {
      links: Array.from({ length: links }, (_, i) => ({
        name: `l${i}`,
        url: `https://example.com/${tag}/${i}`,
        direct_asset_path: i ? `/p${i}` : undefined,
        link_type: i ? 'package' : undefined,
      })),
    };
    await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: tag, ref: 'main', milestones, assets }).expect(201);
  }
  releaseIds = (await t.db.release.findMany({ where: { projectId: project.id }, orderBy: { id: 'asc' } })).map((r) => r.id);
});
afterAll(() => t.close());

describe("the releases area's loaders", () => {
  // Their statements run over the pool, not Prisma: the rows must be Prisma's, field for field
  // (values and types: dates as UTC Dates, enums as their values), in a zone other than UTC too.
  it("read the links, milestones and evidences Prisma reads, in Prisma's order, in one statement each", async () => {
    await inZone('Asia/Kolkata', async () => {
      const ctx = createContext(t.deps, Viewer.anonymous());
      const ids = [...releaseIds, 2 ** 31 - 1];
      t.queryCounter.reset();
      const { links: linkLoader, milestones: milestoneLoader, evidences: evidenceLoader } = ctx.loaders.releases;
      const [links, milestones, evidences] = await Promise.all([linkLoader.loadMany(ids), milestoneLoader.loadMany(ids), evidenceLoader.loadMany(ids)]);
      expect(t.queryCounter.count).toBe(3);

      // Links without their timestamps, which no answer shows (LinkRow).
      const prismaLinks = await t.db.releaseLink.findMany({
        where: { releaseId: { in: ids } },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        omit: { createdAt: true, updatedAt: true },
      });
      expect(links).toStrictEqual(ids.map((id) => prismaLinks.filter((l) => l.releaseId === id)));
      expect(links.flat()).toHaveLength(5);

      const prismaMilestones = await t.db.releaseMilestone.findMany({
        where: { releaseId: { in: ids } },
        include: { milestone: true },
        orderBy: { milestoneId: 'asc' },
      });
      expect(milestones).toStrictEqual(
        ids.map((id) => prismaMilestones.filter((rm) => rm.releaseId === id).map((rm) => ({ ...rm.milestone, releaseId: rm.releaseId }))),
      );
      expect(milestones.flat()).toHaveLength(3);
      expect(milestones.flat().find((m) => !(m instanceof Error) && m.dueDate)).toMatchObject({ dueDate: new Date('2026-12-31T00:00:00Z') });

      // Their summaries are JSON documents, read as objects.
      const prismaEvidences = await t.db.releaseEvidence.findMany({ where: { releaseId: { in: ids } }, orderBy: { id: 'desc' } });
      expect(evidences).toStrictEqual(ids.map((id) => prismaEvidences.filter((e) => e.releaseId === id)));
      expect(evidences.flat()).toHaveLength(3);
      expect(evidences.flat().every((e) => !(e instanceof Error) && typeof e.summary === 'object')).toBe(true);
    });
  });

  it("lists a project's releases as Prisma's findMany pages them, for every sort and updated_before/after", async () => {
    // Two releases released at the same instant: the id breaks the tie, in the sort's direction.
    for (const tag of ['t1', 't2']) {
      await t.api('post', `/projects/${projectId}/releases`).send({ tag_name: tag, ref: 'main', released_at: '2026-01-01T00:00:00Z' }).expect(201);
    }
    await inZone('America/Los_Angeles', async () => {
      const ctx = createContext(t.deps, Viewer.anonymous());
      const project = (await ctx.loaders.project.load(projectId)) as ProjectWithNamespace;
      const byUpdate = await t.db.release.findMany({ where: { projectId }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] });
      const middle = byUpdate[2].updatedAt;
      const filters = [{}, { updatedBefore: middle }, { updatedAfter: middle }, { updatedAfter: new Date(0), updatedBefore: new Date(middle.getTime() + 1) }];
      const fields = { CREATED_DESC: 'createdAt', CREATED_ASC: 'createdAt', RELEASED_AT_DESC: 'releasedAt', RELEASED_AT_ASC: 'releasedAt' } as const;
      let compared = 0;
      for (const sort of RELEASE_SORTS) {
        const direction: 'asc' | 'desc' = sort.endsWith('_ASC') ? 'asc' : 'desc';
        for (const filter of filters) {
          const updatedAt = { ...(filter.updatedBefore && { lt: filter.updatedBefore }), ...(filter.updatedAfter && { gt: filter.updatedAfter }) };
          const where = { projectId, ...(Object.keys(updatedAt).length && { updatedAt }) };
          const orderBy = [{ [fields[sort]]: direction }, { id: direction }];
          const listing = listReleases(ctx, project, { sort, ...filter });
          for (const page of [
            { offset: 0, limit: 100 },
            { offset: 1, limit: 2 },
          ]) {
            expect(await listing.fetch(page)).toStrictEqual(await t.db.release.findMany({ where, orderBy, skip: page.offset, take: page.limit }));
          }
          expect(await listing.count()).toBe(await t.db.release.count({ where }));
          compared += 1;
        }
      }
      expect(compared).toBe(16);
      // The filters do filter (the control for the comparisons above).
      expect(await listReleases(ctx, project, { updatedBefore: middle }).count()).toBe(2);
      expect(await listReleases(ctx, project).count()).toBe(5);
    });
  });
});

/** Rows in an order of their values whatever the order of their properties. */
const byValues = (rows: object[]) => {
  const key = (row: object) =>
    Object.entries(row)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, value]) => JSON.stringify(value))
      .join('\0');
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));
};

describe('the column maps generated from the Prisma schema', () => {
  // Every statement of a store selects a model through them (selectList): over the pool, each
  // model's rows must be Prisma's, field for field, in a zone other than UTC too.
  it("read every model's rows as Prisma's findMany does", async () => {
    const delegates = t.db as unknown as Record<string, { findMany(): Promise<object[]> }>;
    await inZone('Asia/Kolkata', async () => {
      const read: string[] = [];
      for (const model of Object.keys(COLUMNS) as ModelName[]) {
        const rows = await t.deps.sql.rows(`SELECT ${selectList(model, 't')} FROM ${TABLES[model]} t`, []);
        const prisma = await delegates[model[0]!.toLowerCase() + model.slice(1)]!.findMany();
        expect(byValues(rows), model).toStrictEqual(byValues(prisma));
        if (rows.length) read.push(model);
      }
      // The comparisons above compare rows (the control): the seed made some of most kinds.
      expect(read.length, read.join(', ')).toBeGreaterThanOrEqual(12);
    });
  });
});
