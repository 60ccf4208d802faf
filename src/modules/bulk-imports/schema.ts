// GitLab serves direct transfer over REST only (its frontend's `bulkImportSourceGroups` is a
// client-side resolver, not a server field): these types carry forgegate's REST routes, and are
// declared `notGitLab` in test/gitlab-reference/bulk-imports.ts.
import type { BulkImport, BulkImportEntity, BulkImportFailure } from '../../generated/prisma/client.ts';
import { builder } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { cancelBulkImport, createBulkImport, findBulkImport, findEntity, listBulkImports, listEntities, STATUS_NAMES } from './service.ts';

const statusName = (status: number) => STATUS_NAMES[status] ?? 'created';

const BulkImportFailureRef = builder.objectRef<BulkImportFailure>('BulkImportFailure').implement({
  description: 'Why a relation of a migrated entity failed.',
  fields: (t) => ({
    relation: t.exposeString('relation', { nullable: false }),
    step: t.exposeString('pipelineStep', { nullable: false }),
    exceptionClass: t.exposeString('exceptionClass', { nullable: false }),
    exceptionMessage: t.exposeString('exceptionMessage', { nullable: false }),
    correlationIdValue: t.exposeString('correlationIdValue', { nullable: true }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    sourceTitle: t.exposeString('sourceTitle', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
  }),
});

const BulkImportRef = builder.objectRef<BulkImport>('BulkImport').implement({
  description: 'A migration from a source GitLab instance (direct transfer). The access token is never readable.',
  fields: (t) => ({
    id: t.exposeInt('id', { nullable: false }),
    status: t.string({ nullable: false, resolve: (b) => statusName(b.status) }),
    sourceType: t.exposeString('sourceType', { nullable: false }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: false }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    hasFailures: t.exposeBoolean('hasFailures', { nullable: false }),
  }),
});

const BulkImportEntityRef = builder.objectRef<BulkImportEntity>('BulkImportEntity').implement({
  description: 'A group or project of a migration.',
  fields: (t) => ({
    id: t.exposeInt('id', { nullable: false }),
    bulkImportId: t.exposeInt('bulkImportId', { nullable: false }),
    status: t.string({ nullable: false, resolve: (e) => statusName(e.status) }),
    entityType: t.string({ nullable: false, resolve: (e) => (e.sourceType === 'group_entity' ? 'group' : 'project') }),
    sourceFullPath: t.exposeString('sourceFullPath', { nullable: false }),
    destinationFullPath: t.string({
      nullable: false,
      resolve: (e) => (e.destinationNamespace ? `${e.destinationNamespace}/${e.destinationSlug}` : e.destinationSlug),
    }),
    destinationName: t.exposeString('destinationName', { nullable: false }),
    destinationSlug: t.exposeString('destinationSlug', { nullable: false }),
    destinationNamespace: t.exposeString('destinationNamespace', { nullable: false }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    namespaceId: t.exposeInt('namespaceId', { nullable: true }),
    projectId: t.exposeInt('projectId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    migrateProjects: t.exposeBoolean('migrateProjects', { nullable: false }),
    migrateMemberships: t.exposeBoolean('migrateMemberships', { nullable: false }),
    hasFailures: t.exposeBoolean('hasFailures', { nullable: false }),
    failures: t.field({ type: [BulkImportFailureRef], nullable: false, resolve: (e, _a, ctx) => ctx.loaders.bulkImportFailures.load(e.id) }),
  }),
});

builder.queryFields((t) => ({
  bulkImports: t.connection({
    type: BulkImportRef,
    description: "The viewer's migrations, oldest first.",
    args: { status: t.arg.string() },
    resolve: (_r, args, ctx) => pagedConnection(args, listBulkImports(ctx, args.status)),
  }),
  bulkImport: t.field({
    type: BulkImportRef,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, { id }, ctx) => findBulkImport(ctx, id),
  }),
  bulkImportEntities: t.connection({
    type: BulkImportEntityRef,
    description: "Entities of the viewer's migrations (of one when `bulkImportId` is given), oldest first.",
    args: { bulkImportId: t.arg.int(), status: t.arg.string() },
    resolve: async (_r, args, ctx) => pagedConnection(args, await listEntities(ctx, args.bulkImportId ?? null, args.status)),
  }),
  bulkImportEntity: t.field({
    type: BulkImportEntityRef,
    nullable: true,
    args: { bulkImportId: t.arg.int({ required: true }), id: t.arg.int({ required: true }) },
    resolve: (_r, { bulkImportId, id }, ctx) => findEntity(ctx, bulkImportId, id),
  }),
}));

const EntityInput = builder.inputType('BulkImportEntityInput', {
  fields: (t) => ({
    sourceType: t.string({ required: true, description: '`group_entity` or `project_entity`.' }),
    sourceFullPath: t.string({ required: true }),
    destinationSlug: t.string(),
    destinationName: t.string({ description: 'Deprecated: `destinationSlug`.' }),
    destinationNamespace: t.string({ required: true }),
    migrateProjects: t.boolean(),
    migrateMemberships: t.boolean(),
  }),
});

const CreateInput = mutationInput('BulkImportCreateInput', (t) => ({
  url: t.string({ required: true, description: 'Base URL of the source instance.' }),
  accessToken: t.string({ required: true, description: 'A personal access token on the source with the `api` scope.' }),
  entities: t.field({ type: [EntityInput], required: true }),
}));

const CancelInput = mutationInput('BulkImportCancelInput', (t) => ({ id: t.int({ required: true }) }));

builder.mutationFields((t) => ({
  bulkImportCreate: t.field({
    type: payloadType('BulkImportCreatePayload', 'bulkImport', BulkImportRef),
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('bulkImport', () => createBulkImport(ctx, input), input),
  }),
  bulkImportCancel: t.field({
    type: payloadType('BulkImportCancelPayload', 'bulkImport', BulkImportRef),
    args: { input: t.arg({ type: CancelInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('bulkImport', () => cancelBulkImport(ctx, input.id), input),
  }),
}));
