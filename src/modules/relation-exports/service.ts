import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Prisma, RelationExport, RelationExportBatch } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, MissingError, NotFoundError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { readSettings } from '../../core/settings.ts';
import type { Db } from '../../db/client.ts';
import type { JobContext } from '../../jobs/definitions.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';
import { exportDir, exportFilePath, NdjsonGzipWriter } from './files.ts';
import { labelRecord, milestoneRecord, releaseRecord } from './gitlab-format.ts';

/**
 * The project's top-level relations a relation export writes, one file (or batches of files) each:
 * the project's own attributes (`self`), labels, milestones, releases with their links, and the
 * repository as a git bundle. A relation the product gains is added here, with its reader below
 * and its importer in import.ts.
 */
export const RELATIONS = ['self', 'labels', 'milestones', 'releases', 'repository_bundle'] as const;
export type Relation = (typeof RELATIONS)[number];

/** Relations written as NDJSON (batchable); the others are files of their own format. */
const NDJSON_RELATIONS = ['self', 'labels', 'milestones', 'releases'] as const;
type NdjsonRelation = (typeof NDJSON_RELATIONS)[number];
const isNdjson = (relation: Relation): relation is NdjsonRelation => (NDJSON_RELATIONS as readonly string[]).includes(relation);

export const fileExtension = (relation: Relation) => (isNdjson(relation) ? 'ndjson.gz' : 'bundle');

/** Objects per batch of a batched export (GitLab's BulkImports batch size). */
export const EXPORT_BATCH_SIZE = 1000;
/** Rows read per query while exporting: what bounds the export's memory. */
const PAGE_SIZE = 500;

export const EXPORT_QUEUE = 'relation-export';

/** GitLab's ExportStatus: 0 started, 1 finished, -1 failed. */
export const ExportStatus = { STARTED: 0, FINISHED: 1, FAILED: -1 } as const;

export const isRelation = (value: string): value is Relation => (RELATIONS as readonly string[]).includes(value);

/** GitLab's `project_portable` validator. */
export function checkRelation(relation: string): Relation {
  if (!isRelation(relation)) throw new ParamError('relation is not portable');
  return relation;
}

/**
 * GitLab's `before` of the export routes: the instance setting `bulk_import_enabled` off is a plain
 * 404; then the project (404 when invisible) and Maintainer or above (403).
 */
async function requireExportableProject(ctx: Context, input: ParentInput): Promise<ProjectWithNamespace> {
  if (!(await readSettings(ctx.db)).bulkImportEnabled) throw new NotFoundError();
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const project = await resolveProject(ctx, input);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  return project;
}

export type ExportWithBatches = RelationExport & { batches: RelationExportBatch[] };

/**
 * Starts (or restarts) the viewer's export of every relation: each relation's status goes back to
 * started and one background job per relation writes its files. The jobs are enqueued in the
 * transaction that resets the statuses, so a status never says started without a job to finish it.
 */
export async function startExport(ctx: Context, input: ParentInput, batched: boolean): Promise<ExportWithBatches[]> {
  const project = await requireExportableProject(ctx, input);
  const userId = ctx.viewer.user!.id;
  return ctx.db.$transaction(async (tx) => {
    const exports: ExportWithBatches[] = [];
    for (const relation of RELATIONS) {
      const fields = { status: ExportStatus.STARTED, error: null, batched: batched && isNdjson(relation), batchesCount: 0, totalObjectsCount: 0 };
      const row = await tx.relationExport.upsert({
        where: { projectId_userId_relation: { projectId: project.id, userId, relation } },
        create: { projectId: project.id, userId, relation, ...fields },
        // created_at marks this run: a job of an earlier run finds it changed and stops.
        update: { ...fields, createdAt: new Date() },
      });
      await tx.relationExportBatch.deleteMany({ where: { exportId: row.id } });
      await ctx.deps.jobs.send(EXPORT_QUEUE, { exportId: row.id, startedAt: row.createdAt.toISOString() }, { tx });
      exports.push({ ...row, batches: [] });
    }
    return exports;
  });
}

/** The viewer's exports of the project (one relation, or all), with their batches. */
export async function exportStatuses(ctx: Context, input: ParentInput, relation?: string | null): Promise<ExportWithBatches[]> {
  const project = await requireExportableProject(ctx, input);
  if (relation != null) checkRelation(relation);
  return ctx.db.relationExport.findMany({
    where: { projectId: project.id, userId: ctx.viewer.user!.id, ...(relation != null && { relation }) },
    include: { batches: { orderBy: { batchNumber: 'asc' } } },
    orderBy: { id: 'asc' },
  });
}

export type ExportFile = { projectId: number; relation: Relation; batchNumber: number | null; fileName: string; size: number };

/**
 * The file of a finished export (or of one batch), with GitLab's answers when there is none, in
 * GitLab's order: no export, then for a batch request "not batched", no batch, no batch file; for
 * a whole-file request "is batched", no file.
 */
export async function exportFile(
  ctx: Context,
  input: ParentInput,
  request: { relation: string; batched?: boolean | null; batchNumber?: number | null },
): Promise<ExportFile> {
  // GitLab's `before` (setting, project, role) runs ahead of its parameter checks.
  const project = await requireExportableProject(ctx, input);
  if (!request.relation) throw new ParamError('relation is missing');
  const relation = checkRelation(request.relation);
  if ((request.batched == null) !== (request.batchNumber == null)) throw new ParamError('batched, batch_number provide all or none of parameters');
  const userId = ctx.viewer.user!.id;
  const found = await ctx.db.relationExport.findUnique({ where: { projectId_userId_relation: { projectId: project.id, userId, relation } } });
  if (!found) throw new MissingError('Export not found');
  const dir = exportDir(ctx.deps.config.dataDir, project.id, userId);
  const extension = fileExtension(relation);
  const fileName = `${relation}.${extension}`;
  if (request.batched) {
    const batch = await ctx.db.relationExportBatch.findUnique({ where: { exportId_batchNumber: { exportId: found.id, batchNumber: request.batchNumber! } } });
    if (!found.batched) throw new BadRequestError('Export is not batched');
    if (!batch) throw new MissingError('Batch not found');
    const size = batch.status === ExportStatus.FINISHED ? await fileSize(exportFilePath(dir, relation, extension, batch.batchNumber)) : null;
    if (size === null) throw new MissingError('Batch file not found');
    return { projectId: project.id, relation, batchNumber: batch.batchNumber, fileName, size };
  }
  if (found.batched) throw new BadRequestError('Export is batched');
  const size = found.status === ExportStatus.FINISHED ? await fileSize(exportFilePath(dir, relation, extension)) : null;
  if (size === null) throw new MissingError('Export file not found');
  return { projectId: project.id, relation, batchNumber: null, fileName, size };
}

const fileSize = (file: string) =>
  fsp.stat(file).then(
    (s) => s.size,
    () => null,
  );

/** Opens the file an operation described, checking the viewer again (REST streams it after the operation ran). */
export async function openExportFile(ctx: Context, file: ExportFile): Promise<fs.ReadStream> {
  const checked = await exportFile(
    ctx,
    { projectId: file.projectId },
    {
      relation: file.relation,
      batched: file.batchNumber === null ? null : true,
      batchNumber: file.batchNumber,
    },
  );
  const dir = exportDir(ctx.deps.config.dataDir, checked.projectId, ctx.viewer.user!.id);
  return fs.createReadStream(exportFilePath(dir, checked.relation, fileExtension(checked.relation), checked.batchNumber ?? undefined));
}

// ------------------------------------------------------------------------------------------------
// Writing the files (background jobs)

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Reads rows in id order, one page at a time. */
async function* keyset<T extends { id: number }>(fetch: (afterId: number, take: number) => Promise<T[]>): AsyncGenerator<T> {
  let after = 0;
  for (;;) {
    const rows = await fetch(after, PAGE_SIZE);
    yield* rows;
    if (rows.length < PAGE_SIZE) return;
    after = rows[rows.length - 1].id;
  }
}

function relationObjects(db: Db, project: ProjectWithNamespace, relation: NdjsonRelation, sourceHost: string): AsyncGenerator<object> {
  const page = (after: number, take: number) => ({ where: { projectId: project.id, id: { gt: after } }, orderBy: { id: 'asc' as const }, take });
  switch (relation) {
    case 'self':
      return (async function* () {
        yield {
          name: project.name,
          path: project.path,
          description: project.description,
          visibility: project.visibility,
          default_branch: project.defaultBranch,
          archived: project.archived,
          created_at: iso(project.createdAt),
        };
      })();
    case 'labels':
      return (async function* () {
        for await (const label of keyset((after, take) => db.label.findMany(page(after, take)))) yield labelRecord(label);
      })();
    case 'milestones':
      return (async function* () {
        for await (const m of keyset((after, take) => db.milestone.findMany(page(after, take)))) yield milestoneRecord(m);
      })();
    case 'releases':
      return (async function* () {
        const rows = keyset((after, take) =>
          db.release.findMany({
            ...page(after, take),
            include: {
              author: { select: { id: true, username: true, name: true, email: true } },
              links: { orderBy: { id: 'asc' } },
              milestones: { include: { milestone: true } },
            },
          }),
        );
        for await (const r of rows) yield releaseRecord(r, sourceHost);
      })();
  }
}

async function relationCount(db: Db, projectId: number, relation: NdjsonRelation): Promise<number> {
  const where = { projectId };
  switch (relation) {
    case 'self':
      return 1;
    case 'labels':
      return db.label.count({ where });
    case 'milestones':
      return db.milestone.count({ where });
    case 'releases':
      return db.release.count({ where });
  }
}

type ExportJob = { exportId: number; startedAt: string };

/** The job of one relation: writes its file(s), then records finished (or failed, with the reason). */
export async function runRelationExport(data: ExportJob, job: JobContext): Promise<void> {
  const { db, config, git } = job.deps;
  const row = await db.relationExport.findUnique({ where: { id: data.exportId }, include: { project: { include: { namespace: true } } } });
  // A restarted export superseded this job: its own job writes the files.
  if (!row || row.createdAt.toISOString() !== data.startedAt || !isRelation(row.relation)) return;
  const relation = row.relation;
  const dir = exportDir(config.dataDir, row.projectId, row.userId);
  const update = (fields: Prisma.RelationExportUpdateInput) => db.relationExport.updateMany({ where: { id: row.id, createdAt: row.createdAt }, data: fields });
  try {
    let total: number;
    let batches = 0;
    if (relation === 'repository_bundle') {
      const target = exportFilePath(dir, relation, fileExtension(relation));
      await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
      const temporary = `${target}.${randomUUID()}.tmp`;
      const written = await git.createBundle(row.projectId, temporary);
      // An empty repository exports an empty file: there is nothing to fetch.
      if (written) await fsp.rename(temporary, target);
      else await fsp.writeFile(target, '');
      total = written ? 1 : 0;
    } else if (row.batched) {
      ({ total, batches } = await writeBatches(db, row, relation, dir, config.externalUrl));
    } else {
      const writer = new NdjsonGzipWriter(exportFilePath(dir, relation, fileExtension(relation)));
      try {
        for await (const object of relationObjects(db, row.project, relation, config.externalUrl)) await writer.write(object);
        await writer.close();
      } catch (error) {
        await writer.abort();
        throw error;
      }
      total = writer.count;
    }
    await update({ status: ExportStatus.FINISHED, totalObjectsCount: total, batchesCount: batches, error: null });
  } catch (error) {
    job.log.error({ err: error, exportId: row.id, relation }, 'relation export failed');
    // The status is for the user: the details (paths, SQL) stay in the log.
    await update({ status: ExportStatus.FAILED, error: `The ${relation} relation could not be exported` });
  }
}

/**
 * Writes a relation in batches of at most EXPORT_BATCH_SIZE objects, one file each; each batch's
 * row says started, then finished with its object count, so a reader can fetch finished batches
 * while later ones are written.
 */
async function writeBatches(db: Db, row: RelationExport & { project: ProjectWithNamespace }, relation: NdjsonRelation, dir: string, sourceHost: string) {
  const expected = Math.max(1, Math.ceil((await relationCount(db, row.projectId, relation)) / EXPORT_BATCH_SIZE));
  await db.relationExport.updateMany({ where: { id: row.id, createdAt: row.createdAt }, data: { batchesCount: expected } });
  await fsp.rm(path.join(dir, relation), { recursive: true, force: true });
  let batchNumber = 0;
  let total = 0;
  let writer: NdjsonGzipWriter | null = null;
  let batchId = 0;
  const finish = async () => {
    if (!writer) return;
    await writer.close();
    await db.relationExportBatch.update({ where: { id: batchId }, data: { status: ExportStatus.FINISHED, objectsCount: writer.count } });
    total += writer.count;
    writer = null;
  };
  const open = async () => {
    batchNumber++;
    batchId = (await db.relationExportBatch.create({ data: { exportId: row.id, batchNumber, status: ExportStatus.STARTED } })).id;
    writer = new NdjsonGzipWriter(exportFilePath(dir, relation, fileExtension(relation), batchNumber));
  };
  try {
    for await (const object of relationObjects(db, row.project, relation, sourceHost)) {
      if (writer && (writer as NdjsonGzipWriter).count >= EXPORT_BATCH_SIZE) await finish();
      if (!writer) await open();
      await writer!.write(object);
    }
    if (batchNumber === 0) await open();
    await finish();
  } catch (error) {
    const failed = writer as NdjsonGzipWriter | null;
    if (failed) {
      await failed.abort();
      await db.relationExportBatch.update({
        where: { id: batchId },
        data: { status: ExportStatus.FAILED, error: `Batch ${batchNumber} could not be exported` },
      });
    }
    throw error;
  }
  return { total, batches: batchNumber };
}
