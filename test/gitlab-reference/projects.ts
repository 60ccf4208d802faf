// Projects: GitLab's GraphQL reference (`Project`, `Query.project`, `Query.projects`, `ProjectID`,
// `VisibilityLevelsEnum`). GitLab creates, updates and deletes projects through REST only; our REST
// routes run the project mutations below.
import { connectionTypes } from './core.ts';
import { CONNECTION_NAME, connection } from './releases.ts';
import type { ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const REST_ONLY = 'GitLab changes projects through REST only (`/projects`); our REST routes run this';
const BY_ID = 'ours: REST names the project by its numeric `:id`';
const REST_ENTITY = "GitLab's REST project entity";
/**
 * REST's project actions (`POST /projects/:id/archive`, `/unarchive`, `/star`, `/unstar`, `/fork`). GitLab's
 * GraphQL stars with `starProject(projectId, starred)`, which answers the star count only.
 */
const PROJECT_ACTIONS = ['Archive', 'Fork', 'Star', 'Unarchive', 'Unstar'];
/** Why our projectTransfer input differs from GitLab's (app/graphql/mutations/projects/transfer.rb). */
const TRANSFER_BY_REST =
  "the REST route `PUT /projects/:id/transfer` passes the project's numeric id or path and the namespace's numeric id or path; GitLab's global ids (`id: ProjectID!`, `namespaceId: NamespaceID!`) are not taken yet";
const VISIBILITY = "GitLab's `String`: ours answers the same words (`private`, `internal`, `public`) typed as GitLab's VisibilityLevelsEnum";

export const types: ReferenceType[] = [
  {
    name: 'Project',
    fields: {
      archived: 'Boolean',
      avatarUrl: 'String',
      createdAt: 'Time',
      description: 'String',
      forksCount: 'Int!',
      fullPath: 'ID!',
      group: 'Group',
      httpUrlToRepo: 'String',
      id: 'ID!',
      lastActivityAt: 'Time',
      name: 'String!',
      nameWithNamespace: 'String!',
      namespace: 'Namespace',
      path: 'String!',
      repository: 'Repository',
      sshUrlToRepo: 'String',
      starCount: 'Int!',
      topics: '[String!]',
      updatedAt: 'Time',
      userPermissions: 'ProjectPermissions!',
      visibility: 'String',
      webUrl: 'String',
    },
    kept: {
      visibility: VISIBILITY,
      creatorId: "ours: GitLab's REST project entity has `creator_id`",
      databaseId: "ours: the numeric id GitLab's REST answers as `id`",
      defaultBranch: "ours: GitLab's REST project entity has `default_branch` (its GraphQL: `repository.rootRef`)",
      requiringReadCode:
        "ours: the project for a viewer who may read its code, refused (403) otherwise: GitLab's REST endpoints that authorize read_code before looking anything up select below it",
    },
  },
  { name: 'ProjectID' },
  { name: 'VisibilityLevelsEnum', values: ['internal', 'private', 'public'] },
  { name: 'SortDirection', notGitLab: "the `sort` (asc, desc) of REST's project lists" },
  { name: 'HousekeepingTask', notGitLab: "the `task` of REST's `POST /projects/:id/housekeeping` (eager, prune)" },
  ...['ProjectCreate', 'ProjectDelete', 'ProjectUpdate', 'ProjectHousekeepingStart'].flatMap((name) => [
    { name: `${name}Input`, notGitLab: REST_ONLY },
    { name: `${name}Payload`, notGitLab: REST_ONLY },
  ]),
  ...connection('QueryProjectsConnection', 'ProjectConnection'),
  {
    name: 'Query',
    fields: {
      project: { type: 'Project', args: { fullPath: 'ID!' } },
      projects: {
        type: 'ProjectConnection',
        args: { ...PAGE, ids: '[ID!]', membership: 'Boolean', search: 'String', searchNamespaces: 'Boolean', sort: 'String' },
      },
    },
    kept: {
      'project.fullPath': "GitLab's `ID!`: ours may be left out when `id` names the project (REST); a GitLab document's `ID!` variable still fits",
      'project.id': BY_ID,
      projects: CONNECTION_NAME,
      'projects.owned': "ours: REST's `owned` filter of `GET /projects`",
      'projects.visibility': "ours: REST's `visibility` filter of `GET /projects`",
    },
  },
  {
    name: 'Mutation',
    kept: { projectCreate: REST_ONLY, projectDelete: REST_ONLY, projectUpdate: REST_ONLY, projectHousekeepingStart: REST_ONLY },
  },
  // GitLab's project fields the REST project entity also reads, and the REST project routes as
  // fields and mutations (settings, stars, forks, archive, transfer, groups).
  {
    name: 'Project',
    fields: { languages: '[RepositoryLanguage!]', openIssuesCount: 'Int' },
    kept: {
      apiSettings: `ours: ${REST_ENTITY}: its plain-value settings`,
      emptyRepo: `ours: ${REST_ENTITY}: \`empty_repo\``,
      forkedFrom: `ours: ${REST_ENTITY}: \`forked_from_project\``,
      groups: "ours: REST's `GET /projects/:id/groups` (the project's ancestor and shared groups)",
      owner: `ours: ${REST_ENTITY}: \`owner\` (personal projects)`,
      readmeUrl: `ours: ${REST_ENTITY}: \`readme_url\``,
      repositoryStorage: "ours: REST's `GET /projects/:id/storage` (administrators)",
      viewerAccess: `ours: ${REST_ENTITY}: \`permissions\` (project_access, group_access)`,
      visibleForks: "ours: REST's `GET /projects/:id/forks`",
    },
  },
  {
    name: 'RepositoryLanguage',
    fields: { color: 'Color', name: 'String!', share: 'Float' },
    kept: { color: "GitLab's, missing: forgegate keeps no language colors (REST's `GET /projects/:id/languages` has none)" },
  },
  { name: 'ProjectApiSettingsInput', notGitLab: `the settings of REST's \`PUT /projects/:id\`, by their REST names in camelCase` },
  { name: 'ProjectMemberAccess', notGitLab: `ProjectViewerAccess: ${REST_ENTITY}'s \`permissions.project_access\` and \`group_access\`` },
  { name: 'ProjectViewerAccess', notGitLab: `Project.viewerAccess: ${REST_ENTITY}'s \`permissions\`` },
  { name: 'ProjectRepositoryStorage', notGitLab: "Project.repositoryStorage: REST's `GET /projects/:id/storage`" },
  ...connectionTypes('ProjectGroupsConnection', 'ProjectVisibleForksConnection'),
  ...PROJECT_ACTIONS.flatMap((name) => [
    { name: `Project${name}Input`, notGitLab: REST_ONLY },
    { name: `Project${name}Payload`, notGitLab: REST_ONLY },
  ]),
  {
    name: 'ProjectTransferInput',
    fields: { clientMutationId: 'String', id: 'ProjectID!', namespaceId: 'NamespaceID!' },
    kept: { id: TRANSFER_BY_REST, namespaceId: TRANSFER_BY_REST, namespacePath: TRANSFER_BY_REST, projectId: TRANSFER_BY_REST, projectPath: TRANSFER_BY_REST },
  },
  { name: 'ProjectTransferPayload', fields: { clientMutationId: 'String', errors: '[String!]!', project: 'Project' } },
  {
    name: 'Mutation',
    fields: { projectTransfer: { type: 'ProjectTransferPayload', args: { input: 'ProjectTransferInput!' } } },
    kept: Object.fromEntries(PROJECT_ACTIONS.map((name) => [`project${name}`, REST_ONLY])),
  },
];
