import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import { hiddenUnless, refusedUnless } from '../../graphql/abilities.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { databaseIdOfGlobalId } from '../../graphql/scalars.ts';
import { projectInputFields } from '../namespaces/input-fields.ts';
import { GroupRef } from '../groups/index.ts';
import { fullName } from '../groups/service.ts';
import { NamespaceRef, VisibilityEnum } from '../namespaces/index.ts';
import { UserRef } from '../users/index.ts';
import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import {
  createProject,
  deleteProject,
  findProject,
  forkedFrom,
  forkProject,
  isEmptyRepository,
  readmeUrl,
  listProjects,
  PROJECT_ADMIN_LEVEL,
  PROJECT_OWNER_LEVEL,
  projectFullPath,
  projectAvatarUrl,
  projectGroups,
  projectLanguages,
  projectSort,
  projectStorage,
  setArchived,
  setStar,
  transferProject,
  updateProject,
  viewerAccess,
  type ProjectInput,
} from './service.ts';
import { camelName, settingKinds, settingsView, type SettingsView } from './settings.ts';

export const SortDirectionEnum = builder.enumType('SortDirection', { values: ['asc', 'desc'] as const });

// Every project a resolver returns comes from the projects service, which loads its namespace.
export const ProjectRef = builder.objectRef<ProjectWithNamespace>('Project').implement({
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (p) => gid('Project', p.id) }),
    // Identity: what a repository-file read also needs (read_repository tokens).
    databaseId: t.exposeInt('id', { extensions: scopes(...REPOSITORY_READ_SCOPES) }),
    name: t.exposeString('name', { nullable: false }),
    path: t.exposeString('path', { nullable: false }),
    fullPath: t.id({ nullable: false, resolve: (p) => projectFullPath(p) }),
    nameWithNamespace: t.string({
      nullable: false,
      resolve: async (p, _a, ctx) => `${await fullName(ctx, p.namespace)} / ${p.name}`,
    }),
    description: t.exposeString('description'),
    visibility: t.expose('visibility', { type: VisibilityEnum }),
    defaultBranch: t.exposeString('defaultBranch'),
    archived: t.exposeBoolean('archived'),
    creatorId: t.exposeInt('creatorId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    lastActivityAt: t.expose('lastActivityAt', { type: 'Time' }),
    topics: t.exposeStringList('topics'),
    starCount: t.exposeInt('starCount', { nullable: false }),
    forksCount: t.exposeInt('forksCount', { nullable: false }),
    avatarUrl: t.string({ nullable: true, resolve: (p, _a, ctx) => projectAvatarUrl(ctx, p) }),
    webUrl: t.string({ resolve: (p, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(p)}` }),
    httpUrlToRepo: t.string({ resolve: (p, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(p)}.git` }),
    sshUrlToRepo: t.string({
      resolve: (p, _a, ctx) => `git@${new URL(ctx.deps.config.externalUrl).hostname}:${projectFullPath(p)}.git`,
    }),
    namespace: t.field({ type: NamespaceRef, resolve: (p) => p.namespace }),
    group: t.field({
      type: GroupRef,
      nullable: true,
      resolve: (p) => (p.namespace.kind === 'group' ? p.namespace : null),
    }),
  }),
});

// GitLab's REST endpoints that authorize read_code before their lookup select below it.
builder.objectField(ProjectRef, 'requiringReadCode', (t) =>
  t.field({
    type: ProjectRef,
    nullable: false,
    description:
      'The project itself, for a viewer who may read its code; refused (403) otherwise, before anything selected below it is ' +
      "looked up: GitLab's REST endpoints that address one release authorize so first (its GraphQL answers the release with the code fields null).",
    ...refusedUnless('readCode', (p: ProjectWithNamespace) => p.id),
    resolve: (p) => p,
  }),
);

/**
 * GitLab's `ProjectPermissions`: what the current user may do in the project, from the access
 * levels the services enforce. Modules add the abilities of their areas (pushCode, createRelease…).
 */
export const ProjectPermissionsRef = builder.objectRef<ProjectWithNamespace>('ProjectPermissions').implement({
  fields: (t) => ({
    readProject: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `read_project` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.canReadProject(p),
    }),
    readProjectMember: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `read_project_member` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.canReadProject(p),
    }),
    downloadCode: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `download_code` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.canReadCode(p),
    }),
    readCode: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `read_code` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.canReadCode(p),
    }),
    forkProject: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `fork_project` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.canReadCode(p),
    }),
    adminProject: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `admin_project` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, PROJECT_ADMIN_LEVEL),
    }),
    renameProject: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `rename_project` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, PROJECT_ADMIN_LEVEL),
    }),
    changeVisibilityLevel: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `change_visibility_level` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, PROJECT_OWNER_LEVEL),
    }),
    removeProject: t.boolean({
      nullable: false,
      description: 'If `true`, the user can perform `remove_project` on this resource',
      resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, PROJECT_OWNER_LEVEL),
    }),
  }),
});

builder.objectField(ProjectRef, 'userPermissions', (t) =>
  t.field({ type: ProjectPermissionsRef, nullable: false, description: 'Permissions for the current user on the resource.', resolve: (p) => p }),
);

type SettingKind = ReturnType<typeof settingKinds>[number][1];
const FORGEGATE = "forgegate's (GitLab has it in REST only)";

const ProjectApiSettingsInput = builder.inputType('ProjectApiSettingsInput', {
  description: `${FORGEGATE}: settings to change, by their REST name in camelCase; those not given are kept.`,
  fields: (t) => {
    const field = (name: keyof SettingsView, setting: SettingKind) => {
      const description = `GitLab's \`${name}\`.`;
      if (setting.kind === 'boolean') return t.boolean({ description });
      if (setting.kind === 'int') return t.int({ description });
      if (setting.kind === 'string') return t.string({ description });
      return t.string({ description: `${description} One of ${setting.values.join(', ')}.` });
    };
    return Object.fromEntries(settingKinds().map(([name, setting]) => [camelName(name), field(name, setting)]));
  },
});

/** A settings input (camelCase) as the service takes it (REST names). */
const settingsOf = (input: Record<string, unknown> | null | undefined): Partial<SettingsView> | undefined =>
  input ? (Object.fromEntries(settingKinds().map(([name]) => [name, input[camelName(name)]])) as Partial<SettingsView>) : undefined;

const RepositoryLanguageRef = builder.objectRef<{ name: string; share: number }>('RepositoryLanguage').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Name of the language.' }),
    share: t.exposeFloat('share', { nullable: true, description: "Percentage of the repository's languages." }),
  }),
});

const MemberAccessRef = builder.objectRef<{ accessLevel: number }>('ProjectMemberAccess').implement({
  description: `${FORGEGATE}: an access level of the current user and the notification level that goes with it.`,
  fields: (t) => ({
    accessLevel: t.exposeInt('accessLevel'),
    // Notification settings are not kept: GitLab's default, global (3).
    notificationLevel: t.int({ resolve: () => 3 }),
  }),
});

const ViewerAccessRef = builder
  .objectRef<{ projectAccess: { accessLevel: number } | null; groupAccess: { accessLevel: number } | null }>('ProjectViewerAccess')
  .implement({
    description: `${FORGEGATE}: the current user's access to the project (REST's \`permissions\`).`,
    fields: (t) => ({
      projectAccess: t.field({ type: MemberAccessRef, nullable: true, resolve: (a) => a.projectAccess }),
      groupAccess: t.field({ type: MemberAccessRef, nullable: true, resolve: (a) => a.groupAccess }),
    }),
  });

const RepositoryStorageRef = builder.objectRef<ReturnType<typeof projectStorage>>('ProjectRepositoryStorage').implement({
  description: `${FORGEGATE}: where the project's repository is kept.`,
  fields: (t) => ({
    projectId: t.exposeInt('projectId'),
    diskPath: t.exposeString('diskPath'),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    repositoryStorage: t.exposeString('repositoryStorage'),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  apiSettings: t.field({
    type: 'JSON',
    nullable: false,
    // One value rather than 69 fields: REST reads them all at once, and as fields a page of 100
    // projects would cost more than the anonymous complexity limit.
    description: `${FORGEGATE}: the project's plain-value settings (features' access levels, LFS, merge settings, …) by their REST names, as GitLab's REST project answers show them.`,
    resolve: (p) => settingsView(p.settings),
  }),
  emptyRepo: t.boolean({
    description: `${FORGEGATE}: whether the repository has no branch yet (shown also to users who may not read its code).`,
    resolve: (p, _a, ctx) => isEmptyRepository(ctx, p),
  }),
  readmeUrl: t.string({
    nullable: true,
    description: `${FORGEGATE}: web address of the README at the top of the default branch.`,
    ...hiddenUnless('readCode', (p: ProjectWithNamespace) => p.id),
    resolve: (p, _a, ctx) => readmeUrl(ctx, p),
  }),
  openIssuesCount: t.exposeInt('openIssuesCount', { nullable: true, description: 'Number of open issues for the project.' }),
  forkedFrom: t.field({ type: ProjectRef, nullable: true, description: 'Project the project was forked from.', resolve: (p, _a, ctx) => forkedFrom(ctx, p) }),
  visibleForks: t.connection({
    type: ProjectRef,
    description: 'Visible forks of the project.',
    resolve: (p, args, ctx) => pagedConnection(args, listProjects(ctx, { forkedFromId: p.id, orderBy: 'created_at', sort: 'desc' })),
  }),
  languages: t.field({
    type: [RepositoryLanguageRef],
    nullable: true,
    description: 'Programming languages used in the project.',
    resolve: (p, _a, ctx) => projectLanguages(ctx, p),
  }),
  owner: t.field({
    type: UserRef,
    nullable: true,
    description: `${FORGEGATE}: the user whose personal namespace holds the project.`,
    resolve: (p, _a, ctx) => (p.namespace.ownerId == null ? null : ctx.loaders.user.load(p.namespace.ownerId)),
  }),
  viewerAccess: t.field({
    type: ViewerAccessRef,
    description: `${FORGEGATE}: the current user's access levels in the project and its group (REST's \`permissions\`).`,
    resolve: (p, _a, ctx) => viewerAccess(ctx, p),
  }),
  groups: t.connection({
    type: GroupRef,
    description: `${FORGEGATE}: the groups the project is in (its group and those above it), outermost first.`,
    args: { search: t.arg.string({ description: 'Search query for the name or path.' }) },
    resolve: async (p, args, ctx) => pagedConnection(args, arrayListing(await projectGroups(ctx, p, args.search))),
  }),
  repositoryStorage: t.field({
    type: RepositoryStorageRef,
    description: `${FORGEGATE}: where the repository is kept (administrators only).`,
    resolve: (p, _a, ctx) => projectStorage(ctx, p),
  }),
}));

builder.objectField(GroupRef, 'projects', (t) =>
  t.connection({
    type: ProjectRef,
    nullable: false,
    args: {
      includeSubgroups: t.arg.boolean(),
      search: t.arg.string(),
      // GitLab's direct-transfer importer asks for it (sources from 16.1 on).
      notAimedForDeletion: t.arg.boolean({ description: 'Leave out projects scheduled for deletion: forgegate deletes at once, so there are none.' }),
      sort: t.arg.string({ defaultValue: 'id_desc', description: 'Sort order, as `Query.projects` takes it (`<field>_<asc|desc>`).' }),
    },
    resolve: (g, args, ctx) =>
      pagedConnection(args, listProjects(ctx, { namespaceId: g.id, includeSubgroups: args.includeSubgroups, search: args.search, ...projectSort(args.sort) })),
  }),
);

const toRef = (args: { fullPath?: unknown; id?: unknown }) => ({
  id: typeof args.id === 'number' ? args.id : null,
  fullPath: args.fullPath == null ? null : String(args.fullPath),
});

builder.queryFields((t) => ({
  project: t.field({
    type: ProjectRef,
    nullable: true,
    description: 'A project by full path or id; null when it does not exist or is not visible.',
    // Repository reads (files, blobs, blame, trees) are open to read_repository tokens too.
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    args: { fullPath: t.arg.id(), id: t.arg.int() },
    resolve: (_r, args, ctx) => findProject(ctx, toRef(args)),
  }),
  projects: t.connection({
    type: ProjectRef,
    description: 'Find projects visible to the current user.',
    args: {
      ids: t.arg.idList({ description: 'Filter projects by IDs, e.g. `"gid://gitlab/Project/1"`.' }),
      search: t.arg.string({ description: 'Search query, which can be for the project name, a path, or a description.' }),
      searchNamespaces: t.arg.boolean({ description: "Include namespace in project search (matches the project's full path)." }),
      membership: t.arg.boolean({ description: 'Return only projects that the current user is a member of.' }),
      owned: t.arg.boolean({ description: 'Return only projects in namespaces the current user owns.' }),
      visibility: t.arg({ type: VisibilityEnum, description: 'Filter projects by visibility.' }),
      sort: t.arg.string({
        defaultValue: 'id_desc',
        description:
          "Sort order of results. Format: `<field_name>_<sort_direction>`, for example: `id_desc` or `name_asc` (fields: id, name, path, created_at, updated_at, last_activity_at; also GitLab's `created`, `updated`, `latest_activity`).",
      }),
    },
    resolve: (_r, { ids, sort, ...args }, ctx) =>
      pagedConnection(
        args,
        listProjects(ctx, {
          ...args,
          ...projectSort(sort),
          ids: ids?.map((id) => databaseIdOfGlobalId('ProjectID', id)),
        }),
      ),
  }),
}));

const projectAttributeFields = (t: InputFields) => ({
  name: t.string({ description: 'Name of the project.' }),
  path: t.string({ description: 'Path of the project.' }),
  description: t.string({ description: 'Description of the project.' }),
  visibility: t.field({ type: VisibilityEnum, description: 'Visibility of the project.' }),
  defaultBranch: t.string({ description: 'Default branch of the project.' }),
  topics: t.stringList({ description: "Topics of the project (GitLab's `topics`; `tag_list` is its legacy name)." }),
  apiSettings: t.field({ type: ProjectApiSettingsInput, description: `${FORGEGATE}: settings of the project.` }),
});

const ProjectCreateInput = mutationInput('ProjectCreateInput', (t) => ({
  namespaceId: t.field({ type: 'NamespaceID', description: "Namespace of the project; the current user's own when omitted." }),
  initializeWithReadme: t.boolean({ description: 'Commit a README on the default branch.' }),
  ...projectAttributeFields(t),
}));

const ProjectUpdateInput = mutationInput('ProjectUpdateInput', (t) => ({
  ...projectInputFields(t),
  ...projectAttributeFields(t),
  avatar: t.field({ type: 'Upload', description: "The project's avatar (an image of at most 200 KiB)." }),
}));
const ProjectDeleteInput = mutationInput('ProjectDeleteInput', projectInputFields);
const ProjectRefInput = (name: string) => mutationInput(name, projectInputFields);
const namespaceChoiceFields = (t: InputFields) => ({
  namespaceId: t.int({ description: 'Id of the target namespace.' }),
  namespacePath: t.id({ description: 'Full path of the target namespace (alternative to namespaceId).' }),
});
const ProjectForkInput = mutationInput('ProjectForkInput', (t) => ({
  ...projectInputFields(t),
  ...namespaceChoiceFields(t),
  name: t.string({ description: "Name of the fork; the source's by default." }),
  path: t.string({ description: "Path of the fork; the source's by default." }),
  description: t.string({ description: "Description of the fork; the source's by default." }),
  visibility: t.field({ type: VisibilityEnum, description: "Visibility of the fork; at most the source's." }),
}));
const ProjectTransferInput = mutationInput('ProjectTransferInput', (t) => ({ ...projectInputFields(t), ...namespaceChoiceFields(t) }));

/** A project input's `projectPath` / `projectId` as a project lookup. */
const projectOf = (input: { projectPath?: string | number | null; projectId?: number | null }) => toRef({ fullPath: input.projectPath, id: input.projectId });

const attributesOf = ({
  name,
  path,
  description,
  visibility,
  defaultBranch,
  topics,
  apiSettings,
}: Omit<ProjectInput, 'settings'> & { apiSettings?: object | null }) => ({
  name,
  path,
  description,
  visibility,
  defaultBranch,
  topics,
  settings: settingsOf(apiSettings as Record<string, unknown> | null),
});

builder.mutationFields((t) => ({
  projectCreate: t.field({
    type: payloadType('ProjectCreatePayload', 'project', ProjectRef),
    description: 'Creates a project in a namespace the current user may create projects in.',
    args: { input: t.arg({ type: ProjectCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'project',
        () => createProject(ctx, { ...attributesOf(input), namespaceId: input.namespaceId, initializeWithReadme: input.initializeWithReadme }),
        input,
      ),
  }),
  projectUpdate: t.field({
    type: payloadType('ProjectUpdatePayload', 'project', ProjectRef),
    description: "Changes a project's name, path, description, visibility, default branch or topics.",
    args: { input: t.arg({ type: ProjectUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('project', () => updateProject(ctx, projectOf(input), { ...attributesOf(input), avatar: input.avatar }), input),
  }),
  projectFork: t.field({
    type: payloadType('ProjectForkPayload', 'project', ProjectRef),
    description: `${FORGEGATE}: forks a project (a new project with a copy of its repository) into a namespace.`,
    args: { input: t.arg({ type: ProjectForkInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('project', () => forkProject(ctx, projectOf(input), input), input),
  }),
  projectTransfer: t.field({
    type: payloadType('ProjectTransferPayload', 'project', ProjectRef),
    description: `${FORGEGATE}: moves a project to another namespace (Owners).`,
    args: { input: t.arg({ type: ProjectTransferInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('project', () => transferProject(ctx, projectOf(input), input), input),
  }),
  ...Object.fromEntries(
    (
      [
        ['projectStar', 'stars a project for the current user', (ctx, ref) => setStar(ctx, ref, true)],
        ['projectUnstar', 'unstars a project for the current user', (ctx, ref) => setStar(ctx, ref, false)],
        ['projectArchive', 'archives a project: its content becomes read-only (Maintainers)', (ctx, ref) => setArchived(ctx, ref, true)],
        ['projectUnarchive', 'unarchives a project (Maintainers)', (ctx, ref) => setArchived(ctx, ref, false)],
      ] as const satisfies readonly (readonly [string, string, (ctx: Context, ref: ReturnType<typeof projectOf>) => Promise<ProjectWithNamespace>])[]
    ).map(([name, what, run]) => {
      const Name = name[0]!.toUpperCase() + name.slice(1);
      return [
        name,
        t.field({
          type: payloadType(`${Name}Payload`, 'project', ProjectRef),
          description: `${FORGEGATE}: ${what}.`,
          args: { input: t.arg({ type: ProjectRefInput(`${Name}Input`), required: true }) },
          resolve: (_r, { input }, ctx) => asPayload('project', () => run(ctx, projectOf(input)), input),
        }),
      ];
    }),
  ),
  projectDelete: t.field({
    type: payloadType('ProjectDeletePayload', 'project', ProjectRef),
    description: 'Deletes a project (Owners).',
    args: { input: t.arg({ type: ProjectDeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('project', () => deleteProject(ctx, projectOf(input)), input),
  }),
}));

builder.objectField(UserRef, 'namespace', (t) =>
  t.field({
    type: NamespaceRef,
    nullable: true,
    description: 'Personal namespace of the user.',
    resolve: (user, _a, ctx) => ctx.db.namespace.findUnique({ where: { ownerId: user.id } }),
  }),
);

builder.objectField(NamespaceRef, 'projects', (t) =>
  t.connection({
    type: ProjectRef,
    nullable: false,
    description: 'Projects of the namespace the viewer can see (and of its subgroups with includeSubgroups).',
    args: {
      includeSubgroups: t.arg.boolean({ defaultValue: false }),
      search: t.arg.string(),
      membership: t.arg.boolean(),
      owned: t.arg.boolean(),
      visibility: t.arg({ type: VisibilityEnum }),
      sort: t.arg.string({ defaultValue: 'id_desc', description: 'Sort order, as `Query.projects` takes it (`<field>_<asc|desc>`).' }),
    },
    resolve: (namespace, { sort, ...args }, ctx) => pagedConnection(args, listProjects(ctx, { ...args, ...projectSort(sort), namespaceId: namespace.id })),
  }),
);

/** A list already read, paged like a listing. */
const arrayListing = <T>(items: T[]): Listing<T> => ({
  fetch: async ({ offset, limit }) => items.slice(offset, offset + limit),
  count: async () => items.length,
});
