import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/schema.ts';
import { fullName } from '../groups/service.ts';
import { NamespaceRef, VisibilityEnum } from '../namespaces/schema.ts';
import { UserRef } from '../users/schema.ts';
import { createProject, deleteProject, findProject, listProjects, projectFullPath, updateProject } from './service.ts';

const ProjectOrderEnum = builder.enumType('ProjectOrderBy', {
  values: ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const,
});
export const SortDirectionEnum = builder.enumType('SortDirection', { values: ['asc', 'desc'] as const });

// Every project a resolver returns comes from the projects service, which loads its namespace.
const withNamespace = (p: object) => p as ProjectWithNamespace;

export const ProjectRef = builder.prismaObject('Project', {
  fields: (t) => ({
    id: t.id({ resolve: (p) => gid('Project', p.id) }),
    // Identity: what a repository-file read also needs (read_repository tokens).
    databaseId: t.exposeInt('id', { extensions: scopes(...REPOSITORY_READ_SCOPES) }),
    name: t.exposeString('name'),
    path: t.exposeString('path'),
    fullPath: t.string({ resolve: (p) => projectFullPath(withNamespace(p)) }),
    nameWithNamespace: t.string({
      resolve: async (p, _a, ctx) => `${await fullName(ctx, withNamespace(p).namespace)} / ${p.name}`,
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
    starCount: t.int({ resolve: () => 0 }),
    forksCount: t.int({ resolve: () => 0 }),
    avatarUrl: t.string({ nullable: true, resolve: () => null }),
    webUrl: t.string({ resolve: (p, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(withNamespace(p))}` }),
    httpUrlToRepo: t.string({ resolve: (p, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(withNamespace(p))}.git` }),
    sshUrlToRepo: t.string({
      resolve: (p, _a, ctx) => `git@${new URL(ctx.deps.config.externalUrl).hostname}:${projectFullPath(withNamespace(p))}.git`,
    }),
    namespace: t.field({ type: NamespaceRef, resolve: (p) => withNamespace(p).namespace }),
    group: t.field({
      type: GroupRef,
      nullable: true,
      resolve: (p) => (withNamespace(p).namespace.kind === 'group' ? withNamespace(p).namespace : null),
    }),
  }),
});

builder.objectField(GroupRef, 'projects', (t) =>
  t.connection({
    type: ProjectRef,
    args: { includeSubgroups: t.arg.boolean(), search: t.arg.string() },
    resolve: async (g, args, ctx) =>
      pagedConnection(args, await listProjects(ctx, { namespaceId: g.id, includeSubgroups: args.includeSubgroups, search: args.search })),
  }),
);

const projectRefArgs = (t: { arg: { id: () => any; int: () => any } }) => ({ fullPath: t.arg.id(), id: t.arg.int() });
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
    args: projectRefArgs(t),
    resolve: (_r, args, ctx) => findProject(ctx, toRef(args)),
  }),
  projects: t.connection({
    type: ProjectRef,
    args: {
      search: t.arg.string(),
      membership: t.arg.boolean(),
      owned: t.arg.boolean(),
      visibility: t.arg({ type: VisibilityEnum }),
      orderBy: t.arg({ type: ProjectOrderEnum }),
      sort: t.arg({ type: SortDirectionEnum }),
    },
    resolve: async (_r, args, ctx) => pagedConnection(args, await listProjects(ctx, args)),
  }),
}));

const ProjectAttributes = builder.inputType('ProjectAttributesInput', {
  fields: (t) => ({
    name: t.string(),
    path: t.string(),
    description: t.string(),
    visibility: t.field({ type: VisibilityEnum }),
    defaultBranch: t.string(),
    topics: t.stringList(),
  }),
});

builder.mutationFields((t) => ({
  projectCreate: t.field({
    type: payloadType('ProjectCreatePayload', 'project', ProjectRef),
    args: {
      namespaceId: t.arg.int(),
      initializeWithReadme: t.arg.boolean(),
      attributes: t.arg({ type: ProjectAttributes, required: true }),
    },
    resolve: (_r, { attributes, ...rest }, ctx) => asPayload(ctx, 'project', () => createProject(ctx, { ...attributes, ...rest })),
  }),
  projectUpdate: t.field({
    type: payloadType('ProjectUpdatePayload', 'project', ProjectRef),
    args: { ...projectRefArgs(t), attributes: t.arg({ type: ProjectAttributes, required: true }) },
    resolve: (_r, args, ctx) => asPayload(ctx, 'project', () => updateProject(ctx, toRef(args), args.attributes)),
  }),
  projectDelete: t.field({
    type: payloadType('ProjectDeletePayload', 'project', ProjectRef),
    args: projectRefArgs(t),
    resolve: (_r, args, ctx) => asPayload(ctx, 'project', () => deleteProject(ctx, toRef(args))),
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
    description: 'Projects of the namespace the viewer can see (and of its subgroups with includeSubgroups).',
    args: {
      includeSubgroups: t.arg.boolean({ defaultValue: false }),
      search: t.arg.string(),
      membership: t.arg.boolean(),
      owned: t.arg.boolean(),
      visibility: t.arg({ type: VisibilityEnum }),
      orderBy: t.arg({ type: ProjectOrderEnum }),
      sort: t.arg({ type: SortDirectionEnum }),
    },
    resolve: async (namespace, args, ctx) => pagedConnection(args, await listProjects(ctx, { ...args, namespaceId: namespace.id })),
  }),
);
