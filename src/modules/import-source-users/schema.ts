import type { ImportSourceUser, ImportSourceUserStatus, Namespace } from '../../generated/prisma/client.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/index.ts';
import { UserRef } from '../users/index.ts';
import {
  answerReassignmentRequest,
  cancelReassignment,
  findReassignmentRequest,
  listSourceUsers,
  placeholderCsv,
  reassignSourceUser,
  resendReassignmentRequest,
  uploadReassignmentCsv,
  type PlaceholderCsv,
} from './service.ts';

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

const userOrNull = <T>(id: number | null, load: (id: number) => Promise<T>) => (id === null ? null : load(id));

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
    placeholderUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.placeholderUserId, (id) => ctx.loaders.user.load(id)) }),
    reassignToUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignToUserId, (id) => ctx.loaders.user.load(id)) }),
    reassignedByUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignedByUserId, (id) => ctx.loaders.user.load(id)) }),
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

const SourceUserInput = (name: string) =>
  mutationInput(name, (t) => ({
    id: t.id({ required: true, description: 'Global ID of the import source user.' }),
  }));

const AnswerInput = (name: string) =>
  mutationInput(name, (t) => ({
    id: t.id({ required: true, description: 'Global ID of the import source user (the link e-mailed to the assignee names it).' }),
    reassignmentToken: t.string({ required: true, description: 'The token of the link e-mailed to the assignee.' }),
  }));

const CsvInput = mutationInput('ImportSourceUsersReassignFromCsvInput', (t) => ({
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
  file: t.field({ type: 'Upload', required: true, description: 'The completed CSV.' }),
}));

type MessagePayload = { message: string | null; errors: string[]; clientMutationId?: string | null };

const CsvPayload = builder.objectRef<MessagePayload>('ImportSourceUsersReassignFromCsvPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message', { nullable: true }),
    errors: t.exposeStringList('errors', { nullable: false, description: 'Errors encountered during the mutation.' }),
    clientMutationId: t.string({ nullable: true, resolve: (p) => p.clientMutationId ?? null }),
  }),
});

builder.queryField('importSourceUserReassignmentRequest', (t) =>
  t.field({
    type: ImportSourceUserRef,
    description: 'A reassignment awaiting your approval, as the link e-mailed to you names it (the assignee only).',
    args: { id: t.arg.id({ required: true }), reassignmentToken: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findReassignmentRequest(ctx, String(args.id), args.reassignmentToken),
  }),
);

/** The owner's mutations on one source user: the service function and its description. */
const OWNER_MUTATIONS = {
  importSourceUserCancelReassignment: [
    cancelReassignment,
    "Cancels a reassignment awaiting approval or rejected; the placeholder is reassignable again and the assignee's link stops working.",
  ],
  importSourceUserResendNotification: [
    resendReassignmentRequest,
    'Mails the assignee of a reassignment awaiting approval a new link (the earlier one stops working).',
  ],
} as const;

/** The assignee's answers, GitLab's accept and decline web actions as mutations. */
const ANSWERS = {
  importSourceUserAcceptReassignment: [true, 'Accepts a reassignment of contributions to you; a background job moves them.'],
  importSourceUserRejectReassignment: [false, 'Declines a reassignment of contributions to you; the group owner is told.'],
} as const;

const upperFirst = (name: string) => name[0].toUpperCase() + name.slice(1);

builder.mutationFields((t) => ({
  ...Object.fromEntries(
    Object.entries(OWNER_MUTATIONS).map(([name, [run, description]]) => [
      name,
      t.field({
        type: payloadType(`${upperFirst(name)}Payload`, 'importSourceUser', ImportSourceUserRef),
        description,
        args: { input: t.arg({ type: SourceUserInput(`${upperFirst(name)}Input`), required: true }) },
        resolve: (_r, { input }, ctx) => asPayload('importSourceUser', () => run(ctx, String(input.id)), input),
      }),
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(ANSWERS).map(([name, [accept, description]]) => [
      name,
      t.field({
        type: payloadType(`${upperFirst(name)}Payload`, 'importSourceUser', ImportSourceUserRef),
        description,
        args: { input: t.arg({ type: AnswerInput(`${upperFirst(name)}Input`), required: true }) },
        resolve: (_r, { input }, ctx) =>
          asPayload('importSourceUser', () => answerReassignmentRequest(ctx, String(input.id), input.reassignmentToken, accept), input),
      }),
    ]),
  ),
  importSourceUserReassign: t.field({
    type: payloadType('ImportSourceUserReassignPayload', 'importSourceUser', ImportSourceUserRef),
    description:
      "Asks a user to take over a placeholder's contributions (an e-mail with a link to accept or decline); a background job moves them once accepted.",
    args: { input: t.arg({ type: ReassignInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('importSourceUser', () => reassignSourceUser(ctx, String(input.id), String(input.assigneeUserId)), input),
  }),
  importSourceUsersReassignFromCsv: t.field({
    type: CsvPayload,
    description: 'Uploads a completed placeholder reassignment CSV; each user it names is asked to accept, and the uploader gets a summary by e-mail.',
    args: { input: t.arg({ type: CsvInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('message', () => uploadReassignmentCsv(ctx, input, input.file), input),
  }),
}));
