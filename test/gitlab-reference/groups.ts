// Groups and namespaces: GitLab's GraphQL reference (`Group`, `Namespace`, `Query.group`,
// `Query.groups`, `groupUpdate`, `GroupID`, `NamespaceID`). GitLab creates and deletes groups
// through REST only; our REST routes run the group mutations below.
import { CONNECTION_NAME, connection } from './releases.ts';
import type { ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const REST_ONLY = 'GitLab creates and deletes groups through REST only (`/groups`); our REST routes run this';
const DATABASE_ID = "ours: the numeric id GitLab's REST answers as `id`";
const PARENT_ID = "ours: GitLab's REST group and namespace entities have `parent_id`";
const SHARES = 'GitLab shares groups over REST only (`POST /groups/:id/share`, `DELETE /groups/:id/share/:group_id`); our REST routes run this';
/** Why our groupTransfer input differs from GitLab's (app/graphql/mutations/groups/transfer.rb). */
const TRANSFER_BY_REST =
  "the REST route `PUT /groups/:id/transfer` passes the group's numeric id (or fullPath) and the parent's numeric `parentId`; GitLab's global ids (`id: GroupID!`, `targetId: GroupID`) are not taken yet";
const VISIBILITY = "GitLab's `String`: ours answers the same words (`private`, `internal`, `public`) typed as GitLab's VisibilityLevelsEnum";
const FULL_PATH_OR_ID = "GitLab's `ID!`: ours may be left out when `id` names the group (REST); a GitLab document's `ID!` variable still fits";

export const types: ReferenceType[] = [
  {
    name: 'Group',
    fields: {
      avatarUrl: 'String',
      createdAt: 'Time',
      descendantGroups: { type: 'GroupConnection', args: { ...PAGE, includeParentDescendants: 'Boolean', search: 'String' } },
      description: 'String',
      fullName: 'String!',
      fullPath: 'ID!',
      id: 'ID!',
      name: 'String!',
      parent: 'Group',
      path: 'String!',
      lfsEnabled: 'Boolean',
      mentionsDisabled: 'Boolean',
      projectCreationLevel: 'String',
      projects: { type: 'ProjectConnection!', args: { ...PAGE, includeSubgroups: 'Boolean', notAimedForDeletion: 'Boolean', search: 'String' } },
      requestAccessEnabled: 'Boolean',
      requireTwoFactorAuthentication: 'Boolean',
      shareWithGroupLock: 'Boolean',
      subgroupCreationLevel: 'String',
      twoFactorGracePeriod: 'Int',
      visibility: 'String',
      webUrl: 'String!',
    },
    kept: {
      descendantGroups: CONNECTION_NAME,
      projects: CONNECTION_NAME,
      'projects.sort': "as Namespace.projects: REST's `order_by`/`sort` words (`created_at_desc`), which GET /groups/:id/projects takes",
      visibility: VISIBILITY,
      databaseId: DATABASE_ID,
      parentId: PARENT_ID,
    },
  },
  {
    name: 'Namespace',
    fields: {
      description: 'String',
      fullName: 'String!',
      fullPath: 'ID!',
      id: 'ID!',
      name: 'String!',
      path: 'String!',
      projects: { type: 'ProjectConnection!', args: { ...PAGE, includeSubgroups: 'Boolean', search: 'String', sort: 'NamespaceProjectSort' } },
      visibility: 'String',
      webUrl: 'String',
    },
    kept: {
      projects: CONNECTION_NAME,
      'projects.sort': "GitLab's NamespaceProjectSort (similarity, storage sizes…); ours takes REST's `order_by`/`sort` words (`id_desc`)",
      'projects.membership': "ours: REST's `membership` filter",
      'projects.owned': "ours: REST's `owned` filter",
      'projects.visibility': "ours: REST's `visibility` filter",
      visibility: VISIBILITY,
      avatarUrl: "ours: GitLab's REST namespace entity has `avatar_url` (its GraphQL has it on Group)",
      databaseId: DATABASE_ID,
      kind: "ours: GitLab's REST namespace entity has `kind` (group or user)",
      parentId: PARENT_ID,
    },
  },
  { name: 'NamespaceKind', notGitLab: "the `kind` of GitLab's REST namespace entity (`group`, `user`)" },
  { name: 'GroupID' },
  { name: 'NamespaceID' },
  {
    name: 'GroupUpdateInput',
    fields: { clientMutationId: 'String', fullPath: 'ID!', name: 'String', path: 'String', visibility: 'VisibilityLevelsEnum' },
    kept: {
      fullPath: FULL_PATH_OR_ID,
      id: 'ours: REST names the group by its numeric `:id`',
      description: "ours: REST's `description` of `PUT /groups/:id`",
      requestAccessEnabled: "ours: REST's `request_access_enabled` of `PUT /groups/:id`",
      avatar: "ours: REST's multipart `avatar` of `PUT /groups/:id`",
    },
  },
  { name: 'GroupUpdatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', group: 'Group' } },
  ...['GroupCreate', 'GroupDelete'].flatMap((name) => [
    { name: `${name}Input`, notGitLab: REST_ONLY },
    { name: `${name}Payload`, notGitLab: REST_ONLY },
  ]),
  ...connection('QueryGroupsConnection', 'GroupConnection'),
  ...connection('GroupDescendantGroupsConnection', 'GroupConnection'),
  ...connection('GroupProjectsConnection', 'ProjectConnection'),
  ...connection('NamespaceProjectsConnection', 'ProjectConnection'),
  {
    name: 'Query',
    fields: {
      group: { type: 'Group', args: { fullPath: 'ID!' } },
      groups: { type: 'GroupConnection', args: { ...PAGE, allAvailable: 'Boolean', ownedOnly: 'Boolean', search: 'String', topLevelOnly: 'Boolean' } },
    },
    kept: {
      'groups.skipGroups': "ours: REST's `skip_groups` filter of `GET /groups`",
      'group.fullPath': FULL_PATH_OR_ID,
      'group.id': 'ours: REST names the group by its numeric `:id`',
      groups: CONNECTION_NAME,
      'groups.owned': "ours: REST's `owned` filter of `GET /groups`, GitLab's `ownedOnly`",
    },
  },
  {
    name: 'Mutation',
    fields: { groupUpdate: { type: 'GroupUpdatePayload', args: { input: 'GroupUpdateInput!' } } },
    kept: { groupCreate: REST_ONLY, groupDelete: REST_ONLY },
  },
  // REST's group shares and transfer.
  { name: 'Group', kept: { sharedWithGroups: "ours: the `shared_with_groups` of GitLab's REST group entity" } },
  { name: 'GroupSharedWithGroupLink', notGitLab: "Group.sharedWithGroups: one of the REST group entity's `shared_with_groups`" },
  ...['GroupShare', 'GroupShareDelete'].flatMap((name) => [
    { name: `${name}Input`, notGitLab: SHARES },
    { name: `${name}Payload`, notGitLab: SHARES },
  ]),
  {
    name: 'GroupTransferInput',
    fields: { clientMutationId: 'String', id: 'GroupID!', targetId: 'GroupID' },
    kept: { id: TRANSFER_BY_REST, targetId: TRANSFER_BY_REST, fullPath: TRANSFER_BY_REST, parentId: TRANSFER_BY_REST },
  },
  { name: 'GroupTransferPayload', fields: { clientMutationId: 'String', errors: '[String!]!', group: 'Group' } },
  {
    name: 'Mutation',
    fields: { groupTransfer: { type: 'GroupTransferPayload', args: { input: 'GroupTransferInput!' } } },
    kept: { groupShare: SHARES, groupShareDelete: SHARES },
  },
];
