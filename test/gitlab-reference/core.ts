// GitLab's GraphQL reference: the shared pieces (page info, scalars, access levels) and the
// reasons the other tables reuse. Written from docs.gitlab.com/api/graphql/reference and
// gitlab-org/gitlab app/graphql/types.
import type { ReferenceType } from './types.ts';

/** The paging arguments of every connection field, GitLab's as ours. */
export const PAGING = { after: 'String', before: 'String', first: 'Int', last: 'Int' } as const;

/**
 * Why a connection field's type name differs: Pothos names each connection after the field that
 * returns it (`ProjectMilestonesConnection`), where GitLab names it after its node
 * (`MilestoneConnection`); the fields inside are the same.
 */
export const CONNECTION_NAME = "Pothos names the connection after its field; GitLab's <Node>Connection has the same fields (nodes, edges, pageInfo, count)";

/** Why a connection or edge type is ours alone (see CONNECTION_NAME). */
export const OUR_CONNECTION = `one field's connection or edge type: ${CONNECTION_NAME}`;

/** Connection and edge types named after their field, each ours alone (see CONNECTION_NAME). */
export const connectionTypes = (...names: string[]): ReferenceType[] =>
  names.flatMap((name) => [
    { name, notGitLab: OUR_CONNECTION },
    { name: `${name}Edge`, notGitLab: OUR_CONNECTION },
  ]);

/** The count every connection of ours has, defined once for all of them (see `globalConnectionFields`). */
const COUNT_NULLABLE =
  "Int where GitLab's countable connections have Int!: one definition serves every connection here, and it is null only where the count fails";

/**
 * GitLab's `<Node>Connection` and `<Node>Edge` for a node type we page under GitLab's names:
 * count, edges, nodes and pageInfo, and our `totalCount` (Relay's name for the same count).
 */
export const gitlabConnection = (node: string): ReferenceType[] => [
  {
    name: `${node}Connection`,
    fields: { count: 'Int!', edges: `[${node}Edge]`, nodes: `[${node}]`, pageInfo: 'PageInfo!' },
    kept: { count: COUNT_NULLABLE, totalCount: "Relay's name for count, which clients of Pothos schemas read" },
  },
  { name: `${node}Edge`, fields: { cursor: 'String!', node } },
];

/** The parent ids REST carries, beside GitLab's paths, in the inputs of our mutations. */
export const PARENT_IDS = 'the REST facade passes database ids (projectId/groupId) where GitLab takes paths only';

export const types: ReferenceType[] = [
  {
    name: 'PageInfo',
    fields: { endCursor: 'String', hasNextPage: 'Boolean!', hasPreviousPage: 'Boolean!', startCursor: 'String' },
  },
  { name: 'Time' },
  { name: 'Date' },
  { name: 'JSON' },
  { name: 'UserID' },
  { name: 'GroupID' },
  { name: 'NamespaceID' },
  { name: 'MilestoneID' },
  { name: 'LabelID' },
  { name: 'MemberID' },
  { name: 'ImportSourceUserID' },
  {
    name: 'AccessLevel',
    fields: { humanAccess: 'String', integerValue: 'Int', stringValue: 'AccessLevelEnum' },
  },
  {
    name: 'AccessLevelEnum',
    values: ['ADMIN', 'DEVELOPER', 'GUEST', 'MAINTAINER', 'MINIMAL_ACCESS', 'NO_ACCESS', 'OWNER', 'PLANNER', 'REPORTER', 'SECURITY_MANAGER'],
    kept: {
      ADMIN: 'forgegate has no administrator membership role (administrators are users, not members)',
      PLANNER: 'forgegate has no Planner role (access levels 5, 10, 20, 30, 40, 50)',
      SECURITY_MANAGER: 'forgegate has no Security Manager role',
    },
  },
  // GitLab's scalar for files of multipart requests.
  { name: 'Upload' },
];
