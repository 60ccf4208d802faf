import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../core/context.ts';
import { MissingError } from '../../core/errors.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found } from '../../rest/shape.ts';
import { projectInput, sourceInput } from '../../rest/sources.ts';
import type { ParentKind } from '../parents/parent.ts';
import { isRelationOf } from './relations.ts';
import { openExportFile, type ExportFile } from './service.ts';

type FileData = { databaseId?: number | null; relationExportFile?: { relation: string; batchNumber?: number | null; fileName: string; size: number } | null };

/** The file the operation described (the viewer was checked there, and is checked again on open). */
function describedFile(kind: ParentKind, portable: FileData): ExportFile {
  const file = expected(portable.relationExportFile, 'export file');
  if (!isRelationOf(kind, file.relation)) throw new Error(`unknown relation ${file.relation}`);
  return {
    portable: kind,
    portableId: expected(portable.databaseId, `${kind} id`),
    relation: file.relation,
    batchNumber: file.batchNumber ?? null,
    fileName: file.fileName,
    size: file.size,
  };
}

/** Streams an export file as an attachment named after its relation. */
async function sendExportFile(res: Response, file: ExportFile, ctx: Context) {
  const stream = await openExportFile(ctx, file);
  // GitLab quotes the name; ours are relation names, nothing to escape.
  res.type(file.relation === 'repository_bundle' ? 'application/octet-stream' : 'application/gzip');
  res.set({ 'Content-Disposition': `attachment; filename="${file.fileName}"`, 'Content-Length': String(file.size) });
  await pipeline(stream, res).catch((error: Error) => ctx.deps.log.warn({ err: error, requestId: ctx.requestId }, 'export download ended early'));
}

/** GitLab's ExportStatus entities: `batches` only on batched exports; one object when a relation is asked for. */
function statusAnswer<T extends { batched: boolean | null; batches: unknown }>(rows: T[], relation: string | undefined) {
  const statuses = rows.map(({ batches, ...status }) => (status.batched ? { ...status, batches } : status));
  if (relation === undefined) return statuses;
  // A relation never exported for this user: GitLab's 404, as its download route answers.
  if (!statuses[0]) throw new MissingError('Export not found');
  return statuses[0];
}

const BATCHED = param.bool({ description: 'Write each relation in batches of at most 1,000 objects (RELATION_EXPORT_BATCH_SIZE).' });
const STATUS_RELATION = param.string({ description: 'Only this relation: the answer is then one object.' });
const DOWNLOAD_PARAMS = { id: param.ref(), relation: param.string({ description: 'Required.' }), batched: param.bool(), batch_number: param.int() };

export const routes = defineRoutes([
  route({
    method: 'POST',
    path: '/projects/:id/export_relations',
    operation: 'ProjectRelationsExport',
    status: 202,
    params: { id: param.ref(), batched: BATCHED },
    variables: (v) => ({ input: { ...projectInput(v.id), batched: v.batched ?? false } }),
    result: () => ({ message: '202 Accepted' }),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/export_relations/status',
    operation: 'ProjectRelationExportStatuses',
    params: { id: param.ref(), relation: STATUS_RELATION },
    variables: (v) => ({ ...v.id, relation: v.relation }),
    result: (data, v) => statusAnswer(found(data.project, 'Project').relationExportStatuses, v.relation),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/export_relations/download',
    operation: 'ProjectRelationExportFile',
    params: DOWNLOAD_PARAMS,
    variables: (v) => ({ ...v.id, relation: v.relation ?? '', batched: v.batched, batchNumber: v.batch_number }),
    result: (data) => describedFile('project', found(data.project, 'Project')),
    respond: sendExportFile,
  }),
  // The group's export routes (GitLab's lib/api/group_export.rb): the same engine, a group's relations, for its Owners.
  route({
    method: 'POST',
    path: '/groups/:id/export_relations',
    operation: 'GroupRelationsExport',
    status: 202,
    params: { id: param.ref(), batched: BATCHED },
    variables: (v) => ({ input: { ...sourceInput('Group', v.id), batched: v.batched ?? false } }),
    result: () => ({ message: '202 Accepted' }),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/export_relations/status',
    operation: 'GroupRelationExportStatuses',
    params: { id: param.ref(), relation: STATUS_RELATION },
    variables: (v) => ({ ...v.id, relation: v.relation }),
    result: (data, v) => statusAnswer(found(data.group, 'Group').relationExportStatuses, v.relation),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/export_relations/download',
    operation: 'GroupRelationExportFile',
    params: DOWNLOAD_PARAMS,
    variables: (v) => ({ ...v.id, relation: v.relation ?? '', batched: v.batched, batchNumber: v.batch_number }),
    result: (data) => describedFile('group', found(data.group, 'Group')),
    respond: sendExportFile,
  }),
  route({
    method: 'POST',
    path: '/projects/import-relation',
    operation: 'ProjectImportRelation',
    status: 201,
    params: {
      path: param.string({ required: true, description: 'Full path of the project to import into.' }),
      relation: param.string({ required: true, documented: { enum: ['self', 'labels', 'milestones', 'releases', 'repository_bundle', 'project_members'] } }),
      file: param.file({ required: true, description: 'The relation file (multipart).' }),
    },
    variables: (v) => ({ input: { projectPath: v.path, relation: v.relation, file: v.file } }),
    result: (data) => {
      const { objects_count: _count, ...tracker } = expected(data.projectImportRelation?.relationImport, 'relation import');
      return tracker;
    },
  }),
]);
