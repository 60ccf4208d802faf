import type { ImportSourceUser, ImportSourceUserStatus, Namespace } from '../../generated/prisma/client.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/schema.ts';
import { UploadScalar } from '../relation-exports/schema.ts';
import { UserRef } from '../users/schema.ts';
import { listSourceUsers, placeholderCsv, reassignSourceUser, uploadReassignmentCsv, type PlaceholderCsv } from './service.ts';

const STATUSES = [
  'pending_reassignment',
  'awaiting_approval',
  'reassignment_in_progress',
  'rejected',
  'failed',
  'completed',
  'keep_as_placeholder',
] as const satisfies readonly ImportSourceUserStatus[];

export const ImportSourceUserStatusEnum = builder.enumType('ImportSourceUserStatus', {
  values: Object.fromEntries(STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as { [K in (typeof STATUSES)[number] as Uppercase<K>]: { value: K } },
});

const userOrNull = (id: number | null, load: (id: number) => Promise<unknown>) => (id === null ? null : load(id));

export const ImportSourceUserRef = builder.objectRef<ImportSourceUser>('ImportSourceUser').implement({
  description: 'A contributor of imported data: who they were on the source, and whom their contributions belong to here.',
  fields: (t) => ({
    id: t.id({ resolve: (u) => gid('Import::SourceUser', u.id) }),
    sourceHostname: t.exposeString('sourceHostname'),
    importType: t.exposeString('importType'),
    sourceUserIdentifier: t.exposeString('sourceUserIdentifier'),
    sourceName: t.exposeString('sourceName', { nullable: true }),
    sourceUsername: t.exposeString('sourceUsername', { nullable: true }),
    status: t.expose('status', { type: ImportSourceUserStatusEnum }),
    reassignmentError: t.exposeString('reassignmentError', { nullable: true }),
    placeholderUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.placeholderUserId, (id) => ctx.loaders.user.load(id)) as never }),
    reassignToUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignToUserId, (id) => ctx.loaders.user.load(id)) as never }),
    reassignedByUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignedByUserId, (id) => ctx.loaders.user.load(id)) as never }),
  }),
});

const PlaceholderCsvRef = builder.objectRef<PlaceholderCsv>('PlaceholderReassignmentsCsv').implement({
  description: 'The CSV of placeholder users awaiting reassignment; REST serves it as a download.',
  fields: (t) => ({
    fileName: t.exposeString('fileName', { nullable: false }),
    content: t.exposeString('content', { nullable: false }),
  }),
});

builder.objectFields(GroupRef, (t) => ({
  importSourceUsers: t.connection({
    type: ImportSourceUserRef,
    description: 'Contributors of data imported into the group, with their reassignment status (Owner only).',
    args: {
      statuses: t.arg({ type: [ImportSourceUserStatusEnum] }),
      search: t.arg.string({ description: 'Part of the source name or username.' }),
    },
    resolve: async (group, args, ctx) => pagedConnection(args, await listSourceUsers(ctx, group as Namespace, args)),
  }),
  placeholderReassignmentsCsv: t.field({
    type: PlaceholderCsvRef,
    description: 'The CSV to fill in and upload with importSourceUsersReassignFromCsv (Owner only).',
    resolve: (group, _a, ctx) => placeholderCsv(ctx, { groupId: (group as Namespace).id }),
  }),
}));

const ReassignInput = mutationInput('ImportSourceUserReassignInput', (t) => ({
  id: t.id({ required: true, description: 'Global ID of the import source user.' }),
  assigneeUserId: t.id({ required: true, description: 'Global ID of the user to reassign the contributions to.' }),
}));

const CsvInput = mutationInput('ImportSourceUsersReassignFromCsvInput', (t) => ({
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
  file: t.field({ type: UploadScalar, required: true, description: 'The completed CSV.' }),
}));

type MessagePayload = { message: string | null; errors: string[]; clientMutationId?: string | null };

const CsvPayload = builder.objectRef<MessagePayload>('ImportSourceUsersReassignFromCsvPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message', { nullable: true }),
    errors: t.exposeStringList('errors', { nullable: false, description: 'Errors encountered during the mutation.' }),
    clientMutationId: t.string({ nullable: true, resolve: (p) => p.clientMutationId ?? null }),
  }),
});

builder.mutationFields((t) => ({
  importSourceUserReassign: t.field({
    type: payloadType('ImportSourceUserReassignPayload', 'importSourceUser', ImportSourceUserRef),
    description: "Reassigns a placeholder's contributions to a user; a background job moves them.",
    args: { input: t.arg({ type: ReassignInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload(ctx, 'importSourceUser', () => reassignSourceUser(ctx, String(input.id), String(input.assigneeUserId)), input),
  }),
  importSourceUsersReassignFromCsv: t.field({
    type: CsvPayload,
    description: 'Uploads a completed placeholder reassignment CSV; a background job reassigns and mails the result.',
    args: { input: t.arg({ type: CsvInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload(ctx, 'message', () => uploadReassignmentCsv(ctx, input, input.file), input),
  }),
}));
