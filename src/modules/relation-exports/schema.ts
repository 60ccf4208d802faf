import { builder, gid } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { parentOf } from '../parents/parent.ts';
import { parentFields, projectInputFields, type ParentRow } from '../parents/parent-fields.ts';
import { importRelation, type RelationImportResult } from './import.ts';
import { exportFile, exportStatuses, startExport, type ExportFile, type ExportWithBatches } from './service.ts';

const ExportBatchRef = builder.objectRef<ExportWithBatches['batches'][number]>('RelationExportBatch').implement({
  description: 'One batch of a batched relation export.',
  fields: (t) => ({
    status: t.exposeInt('status', { description: '0 started, 1 finished, -1 failed.' }),
    batchNumber: t.exposeInt('batchNumber'),
    objectsCount: t.exposeInt('objectsCount'),
    error: t.exposeString('error', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

const ExportStatusRef = builder.objectRef<ExportWithBatches>('RelationExportStatus').implement({
  description: "The state of one relation of the viewer's export of a project or a group (GitLab's BulkImports::ExportStatus).",
  fields: (t) => ({
    relation: t.exposeString('relation'),
    status: t.exposeInt('status', { description: '0 started, 1 finished, -1 failed.' }),
    error: t.exposeString('error', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    batched: t.exposeBoolean('batched'),
    batchesCount: t.exposeInt('batchesCount'),
    totalObjectsCount: t.exposeInt('totalObjectsCount'),
    batches: t.field({ type: [ExportBatchRef], nullable: false, resolve: (e) => e.batches }),
  }),
});

const ExportFileRef = builder.objectRef<ExportFile>('RelationExportFile').implement({
  description: 'A finished export file; its bytes are served by `GET /projects/:id/export_relations/download` (or `/groups/:id/…`).',
  fields: (t) => ({
    relation: t.exposeString('relation', { nullable: false }),
    batchNumber: t.exposeInt('batchNumber', { nullable: true }),
    fileName: t.exposeString('fileName', { nullable: false }),
    size: t.exposeInt('size', { nullable: false, description: 'Bytes.' }),
  }),
});

parentFields((t, kind) => ({
  relationExportStatuses: t.field({
    type: [ExportStatusRef],
    nullable: false,
    description: `Your relation exports of this ${kind} (${kind === 'project' ? 'Maintainer' : 'Owner'}; the instance setting bulk_import_enabled must be on).`,
    args: { relation: t.arg.string({ description: 'Only this top-level relation.' }) },
    resolve: (row, { relation }, ctx) => exportStatuses(ctx, portableInput(row), kind, relation),
  }),
  relationExportFile: t.field({
    type: ExportFileRef,
    description: 'The file of one finished relation export, or of one of its batches.',
    args: { relation: t.arg.string({ required: true }), batched: t.arg.boolean(), batchNumber: t.arg.int() },
    resolve: (row, args, ctx) => exportFile(ctx, portableInput(row), kind, args),
  }),
}));

/** The input naming the project or group a Project or Group field is on. */
const portableInput = (row: ParentRow) => {
  const portable = parentOf(row);
  return portable.kind === 'project' ? { projectId: portable.project.id } : { groupId: portable.group.id };
};

const BATCHED = 'Write each relation in batches of at most 1,000 objects (RELATION_EXPORT_BATCH_SIZE).';

const ExportInput = mutationInput('ProjectRelationsExportInput', (t) => ({
  ...projectInputFields(t),
  batched: t.boolean({ description: BATCHED }),
}));

const GroupExportInput = mutationInput('GroupRelationsExportInput', (t) => ({
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
  batched: t.boolean({ description: BATCHED }),
}));

type ExportPayloadShape = { statuses: ExportWithBatches[] | null; errors: string[]; clientMutationId?: string | null };

const exportPayload = (name: string) =>
  builder.objectRef<ExportPayloadShape>(name).implement({
    fields: (t) => ({
      statuses: t.field({ type: [ExportStatusRef], nullable: true, description: 'The relations now being exported.', resolve: (p) => p.statuses }),
      errors: t.exposeStringList('errors', { nullable: false, description: 'Errors encountered during the mutation.' }),
      clientMutationId: t.string({ nullable: true, resolve: (p) => p.clientMutationId ?? null }),
    }),
  });

const ExportPayload = exportPayload('ProjectRelationsExportPayload');
const GroupExportPayload = exportPayload('GroupRelationsExportPayload');

const RelationImportRef = builder.objectRef<RelationImportResult>('RelationImport').implement({
  description: 'A relation file imported into a project.',
  fields: (t) => ({
    id: t.id({ resolve: (r) => gid('Projects::ImportExport::RelationImportTracker', r.id) }),
    databaseId: t.exposeInt('id'),
    projectPath: t.exposeString('projectPath'),
    relation: t.exposeString('relation'),
    status: t.exposeString('status', { description: 'finished or failed.' }),
    objectsCount: t.exposeInt('objectsCount'),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

const ImportInput = mutationInput('ProjectImportRelationInput', (t) => ({
  ...projectInputFields(t),
  relation: t.string({ required: true, description: 'self, labels, milestones, releases or repository_bundle.' }),
  file: t.field({ type: 'Upload', required: true, description: 'The relation file an export wrote.' }),
}));

builder.mutationFields((t) => ({
  projectRelationsExport: t.field({
    type: ExportPayload,
    description: 'Starts an export of every top-level relation of a project, each as a background job.',
    args: { input: t.arg({ type: ExportInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('statuses', () => startExport(ctx, input, 'project', input.batched ?? false), input),
  }),
  groupRelationsExport: t.field({
    type: GroupExportPayload,
    description: 'Starts an export of every top-level relation of a group (Owner), each as a background job.',
    args: { input: t.arg({ type: GroupExportInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('statuses', () => startExport(ctx, input, 'group', input.batched ?? false), input),
  }),
  projectImportRelation: t.field({
    type: payloadType('ProjectImportRelationPayload', 'relationImport', RelationImportRef),
    description: 'Imports one relation file into a project; importing the same file again creates nothing new.',
    args: { input: t.arg({ type: ImportInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('relationImport', () => importRelation(ctx, input, input.relation, input.file), input),
  }),
}));
