// GitLab's GraphQL reference for users (the User interface, UserCore, CurrentUser, UserStatus)
// and the root fields that read them. Written from docs.gitlab.com/api/graphql/reference and
// gitlab-org/gitlab app/graphql/types/user_interface.rb.
import { connectionTypes, gitlabConnection, PAGING } from './core.ts';
import type { ReferenceType } from './types.ts';

/** GitLab's fields of the User interface that forgegate serves, with GitLab's types. */
const USER_FIELDS = {
  active: 'Boolean',
  avatarUrl: 'String',
  bio: 'String',
  bot: 'Boolean!',
  createdAt: 'Time',
  email: 'String',
  id: 'UserID!',
  name: 'String!',
  publicEmail: 'String',
  state: 'UserState!',
  status: 'UserStatus',
  username: 'String!',
  webPath: 'String!',
  webUrl: 'String!',
};

const ID_AS_ID = 'ID! where GitLab has UserID!: the same gid://gitlab/User/<id> value; the REST operations of every area read it as a string';

/** Fields of ours GitLab's user types lack, each with why. */
const USER_KEPT = {
  id: ID_AS_ID,
  canCreateGroup: "the REST users API's can_create_group, for the user and administrators",
  confirmedAt: "the REST users API's confirmed_at, for the user and administrators",
  databaseId: 'the numeric id the REST facade answers with',
  isAdmin: "the REST users API's is_admin, for the user and administrators",
  locked: "the REST users API's locked (always false: forgegate does not lock accounts)",
  projectsLimit: "the REST users API's projects_limit, for the user and administrators",
};

const NO_USER_MUTATIONS = "GitLab's GraphQL has no user administration; the twin of the REST users API (POST/PUT /users)";

/** The administrators' user actions of the REST users API (`POST /users/:id/block`, …, `DELETE /users/:id`). */
const USER_ACTIONS = ['Activate', 'Ban', 'Block', 'Deactivate', 'Delete', 'Unban', 'Unblock'];

const MEMBERSHIPS = "GitLab's REST `GET /users/:id/memberships` (administrators), which its GraphQL lacks";

export const types: ReferenceType[] = [
  { name: 'User', fields: USER_FIELDS, kept: USER_KEPT },
  { name: 'UserCore', fields: { ...USER_FIELDS, namespace: 'Namespace' }, kept: USER_KEPT },
  { name: 'CurrentUser', fields: USER_FIELDS, kept: USER_KEPT },
  {
    name: 'UserState',
    values: ['active', 'banned', 'blocked', 'blocked_pending_approval', 'deactivated', 'ldap_blocked'],
    kept: {
      banned: 'forgegate users are active or blocked',
      blocked_pending_approval: 'forgegate users are active or blocked',
      deactivated: 'forgegate users are active or blocked',
      ldap_blocked: 'forgegate has no LDAP',
    },
  },
  {
    name: 'UserStatus',
    fields: { availability: 'AvailabilityEnum!', emoji: 'String', message: 'String', messageHtml: 'String' },
  },
  { name: 'AvailabilityEnum', values: ['BUSY', 'NOT_SET'] },
  { name: 'UserCreateInput', notGitLab: NO_USER_MUTATIONS },
  { name: 'UserCreatePayload', notGitLab: NO_USER_MUTATIONS },
  { name: 'UserUpdateInput', notGitLab: NO_USER_MUTATIONS },
  { name: 'UserUpdatePayload', notGitLab: NO_USER_MUTATIONS },
  ...gitlabConnection('UserCore'),
  ...USER_ACTIONS.flatMap((name) => [
    { name: `User${name}Input`, notGitLab: NO_USER_MUTATIONS },
    { name: `User${name}Payload`, notGitLab: NO_USER_MUTATIONS },
  ]),
  { name: 'UserMembership', notGitLab: MEMBERSHIPS },
  { name: 'MembershipSourceType', notGitLab: `the \`type\` filter (Project, Namespace) of ${MEMBERSHIPS}` },
  ...connectionTypes('QueryUserMembershipsConnection'),
];

/** This area's fields of the types every area adds to (Query, Mutation); the comparison merges them with the other areas' parts. */
export const sharedParts: ReferenceType[] = [
  {
    name: 'Query',
    fields: {
      currentUser: 'CurrentUser',
      user: { type: 'UserCore', args: { id: 'UserID', username: 'String' } },
      users: {
        type: 'UserCoreConnection',
        args: { ...PAGING, active: 'Boolean', groupId: 'GroupID', humans: 'Boolean', search: 'String', usernames: '[String!]' },
      },
    },
    kept: { 'users.blocked': "the REST users API's blocked filter", userMemberships: `ours: ${MEMBERSHIPS}` },
  },
  {
    name: 'Mutation',
    fields: {},
    kept: {
      userCreate: NO_USER_MUTATIONS,
      userUpdate: NO_USER_MUTATIONS,
      ...Object.fromEntries(USER_ACTIONS.map((name) => [`user${name}`, NO_USER_MUTATIONS])),
    },
  },
];
