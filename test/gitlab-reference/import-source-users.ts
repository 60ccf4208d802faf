// GitLab's GraphQL reference for import placeholders (user contribution mapping): ImportSourceUser,
// its statuses and sorts, the namespace's list and the owner's mutations. Written from
// docs.gitlab.com/api/graphql/reference and gitlab-org/gitlab app/graphql/types/import/*.rb and
// app/graphql/mutations/import/source_users/*.rb.
import { gitlabConnection, PAGING } from './core.ts';
import type { ReferenceType } from './types.ts';

const SOURCE_USER_PAYLOAD = { clientMutationId: 'String', errors: '[String!]!', importSourceUser: 'ImportSourceUser' };
const SOURCE_USER_INPUT = { clientMutationId: 'String', id: 'ImportSourceUserID!' };
const ANSWERS =
  "the assignee's accept and decline, which GitLab answers on web routes (/import/source_users/:id/accept, /decline) and forgegate also as mutations";
const CSV = "GitLab's placeholder reassignment CSV (REST GET/POST /groups/:id/placeholder_reassignments) as GraphQL";

/** The owner's mutations that take one source user and answer it. */
const ONE_SOURCE_USER = ['CancelReassignment', 'KeepAsPlaceholder', 'ResendNotification', 'UndoKeepAsPlaceholder'];

const LIST_ARGS = { ...PAGING, search: 'String', sort: 'SourceUserSort', statuses: '[ImportSourceUserStatus!]' };

export const types: ReferenceType[] = [
  {
    name: 'ImportSourceUser',
    fields: {
      createdAt: 'Time!',
      id: 'ImportSourceUserID!',
      importType: 'ImportSource!',
      namespace: 'Namespace',
      placeholderUser: 'UserCore',
      reassignToUser: 'UserCore',
      reassignedByUser: 'UserCore',
      reassignmentError: 'String',
      sourceHostname: 'String!',
      sourceName: 'String',
      sourceUserIdentifier: 'String!',
      sourceUsername: 'String',
      status: 'ImportSourceUserStatus!',
    },
    kept: { importType: "String! where GitLab has the ImportSource enum: forgegate's one importer is direct transfer, always gitlab_migration" },
  },
  {
    name: 'ImportSourceUserStatus',
    values: ['AWAITING_APPROVAL', 'COMPLETED', 'FAILED', 'KEEP_AS_PLACEHOLDER', 'PENDING_REASSIGNMENT', 'REASSIGNMENT_IN_PROGRESS', 'REJECTED'],
  },
  { name: 'SourceUserSort', values: ['ID_ASC', 'ID_DESC', 'SOURCE_NAME_ASC', 'SOURCE_NAME_DESC', 'STATUS_ASC', 'STATUS_DESC'] },
  { name: 'ImportSourceUserReassignInput', fields: { ...SOURCE_USER_INPUT, assigneeUserId: 'UserID!' } },
  { name: 'ImportSourceUserReassignPayload', fields: SOURCE_USER_PAYLOAD },
  ...ONE_SOURCE_USER.flatMap((name) => [
    { name: `ImportSourceUser${name}Input`, fields: SOURCE_USER_INPUT },
    { name: `ImportSourceUser${name}Payload`, fields: SOURCE_USER_PAYLOAD },
  ]),
  { name: 'ImportSourceUserKeepAllAsPlaceholderInput', fields: { clientMutationId: 'String', namespaceId: 'NamespaceID!' } },
  {
    name: 'ImportSourceUserKeepAllAsPlaceholderPayload',
    fields: { clientMutationId: 'String', errors: '[String!]!', updatedImportSourceUserCount: 'Int' },
  },
  ...['AcceptReassignment', 'RejectReassignment'].flatMap((name) => [
    { name: `ImportSourceUser${name}Input`, notGitLab: ANSWERS },
    { name: `ImportSourceUser${name}Payload`, notGitLab: ANSWERS },
  ]),
  { name: 'ImportSourceUsersReassignFromCsvInput', notGitLab: CSV },
  { name: 'ImportSourceUsersReassignFromCsvPayload', notGitLab: CSV },
  { name: 'PlaceholderReassignmentsCsv', notGitLab: CSV },
  ...gitlabConnection('ImportSourceUser'),
];

const mutation = (name: string) => ({
  type: `${name[0]!.toUpperCase()}${name.slice(1)}Payload`,
  args: { input: `${name[0]!.toUpperCase()}${name.slice(1)}Input!` },
});

/** This area's fields of the types every area adds to; see users.ts `sharedParts`. */
export const sharedParts: ReferenceType[] = [
  {
    name: 'Query',
    fields: { namespace: { type: 'Namespace', args: { fullPath: 'ID!' } } },
    kept: { importSourceUserReassignmentRequest: ANSWERS },
  },
  { name: 'Namespace', fields: { importSourceUsers: { type: 'ImportSourceUserConnection', args: LIST_ARGS } } },
  {
    name: 'Group',
    // A Group is a Namespace in GitLab: it has the namespace's list.
    fields: { importSourceUsers: { type: 'ImportSourceUserConnection', args: LIST_ARGS } },
    kept: { placeholderReassignmentsCsv: CSV },
  },
  {
    name: 'Mutation',
    fields: Object.fromEntries(
      ['importSourceUserReassign', 'importSourceUserKeepAllAsPlaceholder', ...ONE_SOURCE_USER.map((n) => `importSourceUser${n}`)].map((n) => [n, mutation(n)]),
    ),
    kept: { importSourceUserAcceptReassignment: ANSWERS, importSourceUserRejectReassignment: ANSWERS, importSourceUsersReassignFromCsv: CSV },
  },
];
