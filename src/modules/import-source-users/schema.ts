import type { ImportSourceUser, ImportSourceUserStatus, Namespace } from '../../generated/prisma/client.ts';
import { builder } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadClientMutationIdField, payloadErrorsField, payloadType, type Types } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/index.ts';
import { NamespaceRef } from '../namespaces/index.ts';
import { UserRef } from '../users/index.ts';
import {
  answerReassignmentRequest,
  cancelReassignment,
  findReassignmentRequest,
  keepAllAsPlaceholder,
  keepAsPlaceholder,
  listSourceUsers,
  placeholderCsv,
  reassignSourceUser,
  resendReassignmentRequest,
  SOURCE_USER_SORTS,
  undoKeepAsPlaceholder,
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
    id: t.field({
      type: 'ImportSourceUserID',
      nullable: false,
      description: 'Global ID of the mapping of a user on source instance to a user on destination instance.',
      resolve: (u) => u.id,
    }),
    sourceHostname: t.exposeString('sourceHostname', { nullable: false }),
    importType: t.exposeString('importType', { nullable: false }),
    sourceUserIdentifier: t.exposeString('sourceUserIdentifier', { nullable: false }),
    sourceName: t.exposeString('sourceName', { nullable: true }),
    sourceUsername: t.exposeString('sourceUsername', { nullable: true }),
    status: t.expose('status', { type: ImportSourceUserStatusEnum, nullable: false }),
    reassignmentError: t.exposeString('reassignmentError', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false, description: 'Timestamp of when the source user was created.' }),
    namespace: t.field({
      type: NamespaceRef,
      nullable: true,
      description: 'Namespace the contributions were imported to.',
      resolve: (u, _a, ctx) => ctx.loaders.namespace.load(u.namespaceId),
    }),
    placeholderUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.placeholderUserId, (id) => ctx.loaders.user.load(id)) }),
    reassignToUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignToUserId, (id) => ctx.loaders.user.load(id)) }),
    reassignedByUser: t.field({ type: UserRef, nullable: true, resolve: (u, _a, ctx) => userOrNull(u.reassignedByUserId, (id) => ctx.loaders.user.load(id)) }),
  }),
});

const SourceUserSortEnum = builder.enumType('SourceUserSort', {
  description: 'Values for sorting the mapping of users on source instance to users on destination instance.',
  values: Object.fromEntries(SOURCE_USER_SORTS.map((s) => [s.toUpperCase(), { value: s }])) as {
    [K in (typeof SOURCE_USER_SORTS)[number] as Uppercase<K>]: { value: K };
  },
});

const PlaceholderCsvRef = builder.objectRef<PlaceholderCsv>('PlaceholderReassignmentsCsv').implement({
  description: 'The CSV of placeholder users awaiting reassignment; REST serves it as a download.',
  fields: (t) => ({
    fileName: t.exposeString('fileName', { nullable: false }),
    content: t.exposeString('content', { nullable: false }),
  }),
});

/** GitLab's `ImportSourceUserConnection`, for the lists of namespaces and groups. */
const ImportSourceUserConnection = builder.connectionObject(
  { type: ImportSourceUserRef, name: 'ImportSourceUserConnection' },
  { name: 'ImportSourceUserEdge' },
);

/** GitLab's `Namespace.importSourceUsers`, which a Group has as a namespace too (Owner only). */
const importSourceUsersField = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Namespace>) =>
  t.connection(
    {
      type: ImportSourceUserRef,
      description: 'Import source users of the namespace. This field can only be resolved for one namespace in any single request.',
      args: {
        statuses: t.arg({
          type: [ImportSourceUserStatusEnum],
          description: 'Filter mapping of users on source instance to users on destination instance by status.',
        }),
        search: t.arg.string({ description: 'Query to search mappings by name or username of users on source instance.' }),
        sort: t.arg({
          type: SourceUserSortEnum,
          defaultValue: 'source_name_asc',
          description: 'Sort mapping of users on source instance to users on destination instance by the criteria.',
        }),
      },
      resolve: async (namespace, args, ctx) => pagedConnection(args, await listSourceUsers(ctx, namespace, args)),
    },
    ImportSourceUserConnection,
  );

builder.objectFields(NamespaceRef, (t) => ({ importSourceUsers: importSourceUsersField(t) }));

builder.objectFields(GroupRef, (t) => ({
  importSourceUsers: importSourceUsersField(t as unknown as PothosSchemaTypes.ObjectFieldBuilder<Types, Namespace>),
  placeholderReassignmentsCsv: t.field({
    type: PlaceholderCsvRef,
    description: 'The CSV to fill in and upload with importSourceUsersReassignFromCsv (Owner only).',
    resolve: (group, _a, ctx) => placeholderCsv(ctx, { groupId: (group as Namespace).id }),
  }),
}));

const ReassignInput = mutationInput('ImportSourceUserReassignInput', (t) => ({
  id: t.field({
    type: 'ImportSourceUserID',
    required: true,
    description: 'Global ID of the mapping of a user on source instance to a user on destination instance.',
  }),
  assigneeUserId: t.field({ type: 'UserID', required: true, description: 'Global ID of the assignee user.' }),
}));

const SourceUserInput = (name: string) =>
  mutationInput(name, (t) => ({
    id: t.field({
      type: 'ImportSourceUserID',
      required: true,
      description: 'Global ID of the mapping of a user on source instance to a user on destination instance.',
    }),
  }));

const KeepAllInput = mutationInput('ImportSourceUserKeepAllAsPlaceholderInput', (t) => ({
  namespaceId: t.field({ type: 'NamespaceID', required: true, description: 'Global ID of the namespace.' }),
}));

type CountPayload = { updatedImportSourceUserCount: number | null; errors: string[]; clientMutationId?: string | null };

const KeepAllPayload = builder.objectRef<CountPayload>('ImportSourceUserKeepAllAsPlaceholderPayload').implement({
  fields: (t) => ({
    updatedImportSourceUserCount: t.exposeInt('updatedImportSourceUserCount', {
      nullable: true,
      description: 'Number of successfully updated mappings of users on source instance to their destination users.',
    }),
    errors: payloadErrorsField(t),
    clientMutationId: payloadClientMutationIdField(t),
  }),
});

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
  importSourceUserKeepAsPlaceholder: [keepAsPlaceholder, 'Keeps the contributions of a source user awaiting reassignment with its placeholder user.'],
  importSourceUserUndoKeepAsPlaceholder: [undoKeepAsPlaceholder, 'Makes a source user kept as a placeholder reassignable again.'],
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
        resolve: (_r, { input }, ctx) => asPayload('importSourceUser', () => run(ctx, input.id), input),
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
    resolve: (_r, { input }, ctx) => asPayload('importSourceUser', () => reassignSourceUser(ctx, input.id, input.assigneeUserId), input),
  }),
  importSourceUserKeepAllAsPlaceholder: t.field({
    type: KeepAllPayload,
    description: 'Keeps the contributions of every source user of the group still awaiting reassignment with their placeholder users (Owner only).',
    args: { input: t.arg({ type: KeepAllInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('updatedImportSourceUserCount', () => keepAllAsPlaceholder(ctx, input.namespaceId), input),
  }),
  importSourceUsersReassignFromCsv: t.field({
    type: CsvPayload,
    description: 'Uploads a completed placeholder reassignment CSV; each user it names is asked to accept, and the uploader gets a summary by e-mail.',
    args: { input: t.arg({ type: CsvInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('message', () => uploadReassignmentCsv(ctx, input, input.file), input),
  }),
}));
