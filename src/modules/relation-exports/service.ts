import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Prisma, RelationExport, RelationExportBatch } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, MissingError, NotFoundError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { readSettings } from '../../core/settings.ts';
import type { Db } from '../../db/client.ts';
import type { JobContext } from '../../jobs/definitions.ts';
import { groupParent, parentId, projectParent, requireParentAccess, resolveParent, type Parent, type ParentInput, type ParentKind } from '../parents/parent.ts';
import { exportDir, exportFilePath, NdjsonGzipWriter } from './files.ts';
import { fileExtension, isBatchable, isRelationOf, relationSource, relationsOf, type Relation, type RelationSource } from './relations.ts';

export type { Relation } from './relations.ts';

export const EXPORT_QUEUE = 'relation-export';

/** GitLab's ExportStatus: 0 started, 1 finished, -1 failed. */
export const ExportStatus = { STARTED: 0, FINISHED: 1, FAILED: -1 } as const;

/** GitLab's `project_portable` / `group_portable` validators. */
function checkRelation(kind: ParentKind, relation: string): Relation {
  if (!isRelationOf(kind, relation)) throw new ParamError('relation is not portable');
  return relation;
}

/**
 * Who exports, as GitLab's `before` of the export routes: a project's Maintainers (admin_project),
 * a group's Owners (admin_group).
 */
const EXPORT_LEVEL: Record<ParentKind, number> = { project: AccessLevel.MAINTAINER, group: AccessLevel.OWNER };

/**
 * GitLab's `before` of the export routes: the instance setting `bulk_import_enabled` off is a plain
 * 404; then the project or group (404 when invisible) and the role that exports it (403).
 */
async function requirePortable(ctx: Context, input: ParentInput, kind: ParentKind): Promise<Parent> {
  if (!(await readSettings(ctx.db)).bulkImportEnabled) throw new NotFoundError();
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const portable = await resolveParent(ctx, input, [kind]);
  await requireParentAccess(ctx, portable, EXPORT_LEVEL[kind]);
  return portable;
}

/** The portable's column of an export row. */
const portableColumn = (portable: Parent) => (portable.kind === 'project' ? { projectId: portable.project.id } : { groupId: portable.group.id });

/** The unique key of one user's export of one relation of the portable. */
function exportKey(portable: Parent, userId: number, relation: string): Prisma.RelationExportWhereUniqueInput {
  return portable.kind === 'project'
    ? { projectId_userId_relation: { projectId: portable.project.id, userId, relation } }
    : { groupId_userId_relation: { groupId: portable.group.id, userId, relation } };
}

const portableDir = (dataDir: string, portable: Parent, userId: number) => exportDir(dataDir, { kind: portable.kind, id: parentId(portable) }, userId);

export type ExportWithBatches = RelationExport & { batches: RelationExportBatch[] };

/**
 * Starts (or restarts) the viewer's export of every relation of a project or a group: each
 * relation's status goes back to started and one background job per relation writes its files.
 * The jobs are enqueued in the transaction that resets the statuses, so a status never says
 * started without a job to finish it.
 */
export async function startExport(ctx: Context, input: ParentInput, kind: ParentKind, batched: boolean): Promise<ExportWithBatches[]> {
  const portable = await requirePortable(ctx, input, kind);
  const userId = ctx.viewer.user!.id;
  return ctx.db.$transaction(async (tx) => {
    const exports: ExportWithBatches[] = [];
    for (const relation of relationsOf(kind)) {
      const fields = { status: ExportStatus.STARTED, error: null, batched: batched && isBatchable(relation), batchesCount: 0, totalObjectsCount: 0 };
      const row = await tx.relationExport.upsert({
        where: exportKey(portable, userId, relation),
        create: { ...portableColumn(portable), userId, relation, ...fields },
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

/** The viewer's exports of the project or group (one relation, or all), with their batches. */
export async function exportStatuses(ctx: Context, input: ParentInput, kind: ParentKind, relation?: string | null): Promise<ExportWithBatches[]> {
  const portable = await requirePortable(ctx, input, kind);
  if (relation != null) checkRelation(kind, relation);
  return ctx.db.relationExport.findMany({
    where: { ...portableColumn(portable), userId: ctx.viewer.user!.id, ...(relation != null && { relation }) },
    include: { batches: { orderBy: { batchNumber: 'asc' } } },
    orderBy: { id: 'asc' },
  });
}

export type ExportFile = { portable: ParentKind; portableId: number; relation: Relation; batchNumber: number | null; fileName: string; size: number };

/**
 * The file of a finished export (or of one batch), with GitLab's answers when there is none, in
 * GitLab's order: no export, then for a batch request "not batched", no batch, no batch file; for
 * a whole-file request "is batched", no file.
 */
export async function exportFile(
  ctx: Context,
  input: ParentInput,
  kind: ParentKind,
  request: { relation: string; batched?: boolean | null; batchNumber?: number | null },
): Promise<ExportFile> {
  // GitLab's `before` (setting, portable, role) runs ahead of its parameter checks.
  const portable = await requirePortable(ctx, input, kind);
  if (!request.relation) throw new ParamError('relation is missing');
  const relation = checkRelation(kind, request.relation);
  if ((request.batched == null) !== (request.batchNumber == null)) throw new ParamError('batched, batch_number provide all or none of parameters');
  const userId = ctx.viewer.user!.id;
  const found = await ctx.db.relationExport.findUnique({ where: exportKey(portable, userId, relation) });
  if (!found) throw new MissingError('Export not found');
  const dir = portableDir(ctx.deps.config.dataDir, portable, userId);
  const extension = fileExtension(relation);
  const described = { portable: kind, portableId: parentId(portable), relation, fileName: `${relation}.${extension}` };
  if (request.batched) {
    const batch = await ctx.db.relationExportBatch.findUnique({ where: { exportId_batchNumber: { exportId: found.id, batchNumber: request.batchNumber! } } });
    if (!found.batched) throw new BadRequestError('Export is not batched');
    if (!batch) throw new MissingError('Batch not found');
    const size = batch.status === ExportStatus.FINISHED ? await fileSize(exportFilePath(dir, relation, extension, batch.batchNumber)) : null;
    if (size === null) throw new MissingError('Batch file not found');
    return { ...described, batchNumber: batch.batchNumber, size };
  }
  if (found.batched) throw new BadRequestError('Export is batched');
  const size = found.status === ExportStatus.FINISHED ? await fileSize(exportFilePath(dir, relation, extension)) : null;
  if (size === null) throw new MissingError('Export file not found');
  return { ...described, batchNumber: null, size };
}

const fileSize = (file: string) =>
  fsp.stat(file).then(
    (s) => s.size,
    () => null,
  );

/** Opens the file an operation described, checking the viewer again (REST streams it after the operation ran). */
export async function openExportFile(ctx: Context, file: ExportFile): Promise<fs.ReadStream> {
  const input = file.portable === 'project' ? { projectId: file.portableId } : { groupId: file.portableId };
  const checked = await exportFile(ctx, input, file.portable, {
    relation: file.relation,
    batched: file.batchNumber === null ? null : true,
    batchNumber: file.batchNumber,
  });
  const dir = exportDir(ctx.deps.config.dataDir, { kind: checked.portable, id: checked.portableId }, ctx.viewer.user!.id);
  return fs.createReadStream(exportFilePath(dir, checked.relation, fileExtension(checked.relation), checked.batchNumber ?? undefined));
}

// ------------------------------------------------------------------------------------------------
// Writing the files (background jobs)

type ExportJob = { exportId: number; startedAt: string };

/** The job of one relation: writes its file(s), then records finished (or failed, with the reason). */
export async function runRelationExport(data: ExportJob, job: JobContext): Promise<void> {
  const { db, config, git } = job.deps;
  const row = await db.relationExport.findUnique({ where: { id: data.exportId }, include: { project: { include: { namespace: true } }, group: true } });
  // A restarted export superseded this job: its own job writes the files.
  if (!row || row.createdAt.toISOString() !== data.startedAt) return;
  const portable = row.project ? projectParent(row.project) : groupParent(row.group!);
  if (!isRelationOf(portable.kind, row.relation)) return;
  const relation = row.relation;
  const dir = portableDir(config.dataDir, portable, row.userId);
  const update = (fields: Prisma.RelationExportUpdateInput) => db.relationExport.updateMany({ where: { id: row.id, createdAt: row.createdAt }, data: fields });
  try {
    let total: number;
    let batches = 0;
    if (relation === 'repository_bundle') {
      const target = exportFilePath(dir, relation, fileExtension(relation));
      await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
      const temporary = `${target}.${randomUUID()}.tmp`;
      const written = await git.createBundle(parentId(portable), temporary);
      // An empty repository exports an empty file: there is nothing to fetch.
      if (written) await fsp.rename(temporary, target);
      else await fsp.writeFile(target, '');
      total = written ? 1 : 0;
    } else if (row.batched) {
      const source = relationSource(db, portable, relation, config.externalUrl);
      ({ total, batches } = await writeBatches(db, row, source, dir, config.relationExportBatchSize));
    } else {
      const writer = new NdjsonGzipWriter(exportFilePath(dir, relation, fileExtension(relation)));
      try {
        for await (const object of relationSource(db, portable, relation, config.externalUrl).records()) await writer.write(object);
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
 * Writes a relation in batches of at most `batchSize` objects (the instance's), one file each; each batch's
 * row says started, then finished with its object count, so a reader can fetch finished batches
 * while later ones are written.
 */
async function writeBatches(db: Db, row: RelationExport, source: RelationSource, dir: string, batchSize: number) {
  const relation = row.relation as Relation;
  const expected = Math.max(1, Math.ceil((await source.count()) / batchSize));
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
    for await (const object of source.records()) {
      if (writer && (writer as NdjsonGzipWriter).count >= batchSize) await finish();
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
