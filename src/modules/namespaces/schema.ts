import { type AvatarModel, avatarUrl } from '../../core/avatars.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { findAdministeredNamespace, findNamespace, listNamespaces, namespaceExists, type NamespaceExists } from './service.ts';

export const VisibilityEnum = builder.enumType('VisibilityLevelsEnum', {
  values: { private: { value: 'private' }, internal: { value: 'internal' }, public: { value: 'public' } } as const,
});

export const NamespaceKindEnum = builder.enumType('NamespaceKind', {
  values: { user: { value: 'user' }, group: { value: 'group' } } as const,
});

/** A user's personal namespace or a group, as the place a project lives in. */
export const NamespaceRef = builder.prismaObject('Namespace', {
  name: 'Namespace',
  fields: (t) => ({
    id: t.id({
      nullable: false,
      resolve: (n) => gid(n.kind === 'group' ? 'Group' : 'Namespaces::UserNamespace', n.id),
    }),
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name', { nullable: false }),
    path: t.exposeString('path', { nullable: false }),
    fullPath: t.exposeID('fullPath', { nullable: false }),
    description: t.exposeString('description', { nullable: true }),
    kind: t.expose('kind', { type: NamespaceKindEnum }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    visibility: t.expose('visibility', { type: VisibilityEnum }),
    webUrl: t.string({
      resolve: (n, _a, ctx) => `${ctx.deps.config.externalUrl}/${n.kind === 'group' ? 'groups/' : ''}${n.fullPath}`,
    }),
    avatarUrl: t.string({
      nullable: true,
      description: "The group's avatar, or the owner's for a personal namespace.",
      resolve: async (n, _a, ctx) => {
        const url = (model: AvatarModel, id: number, name: string | null) => avatarUrl(ctx.deps.config.externalUrl, model, id, name);
        if (n.kind === 'group' || n.ownerId == null) return url('group', n.id, n.avatar);
        const owner = await ctx.loaders.user.load(n.ownerId);
        return url('user', n.ownerId, owner?.avatar ?? null);
      },
    }),
  }),
});

const NamespaceExistsRef = builder.objectRef<NamespaceExists>('NamespaceExists').implement({
  description: "forgegate's: whether a namespace path is taken, and a free one to use instead.",
  fields: (t) => ({
    exists: t.exposeBoolean('exists'),
    suggests: t.exposeStringList('suggests'),
  }),
});

builder.queryFields((t) => ({
  namespace: t.field({
    type: NamespaceRef,
    nullable: true,
    description: 'Find a namespace.',
    args: { fullPath: t.arg.id({ required: true, description: 'Full path of the project, group, or namespace. For example, `gitlab-org/gitlab-foss`.' }) },
    resolve: (_r, args, ctx) => findNamespace(ctx, String(args.fullPath)),
  }),
  administeredNamespace: t.field({
    type: NamespaceRef,
    nullable: true,
    description: "forgegate's: a namespace by id or full path, for those who administer it (REST's `GET /namespaces/:id`); null otherwise.",
    args: { fullPath: t.arg.id({ description: 'Full path of the namespace.' }), id: t.arg.int({ description: 'Id of the namespace.' }) },
    resolve: (_r, args, ctx) => findAdministeredNamespace(ctx, { id: args.id, fullPath: args.fullPath == null ? null : String(args.fullPath) }),
  }),
  namespaces: t.connection({
    type: NamespaceRef,
    description: "forgegate's: the viewer's personal namespace and groups (every namespace for administrators), as REST's `GET /namespaces`.",
    args: {
      search: t.arg.string({ description: 'Name or path contains.' }),
      ownedOnly: t.arg.boolean({ description: 'Only the namespaces the viewer owns.' }),
      topLevelOnly: t.arg.boolean({ description: 'Only top-level namespaces.' }),
    },
    resolve: (_r, args, ctx) => pagedConnection(args, listNamespaces(ctx, args)),
  }),
  namespaceExists: t.field({
    type: NamespaceExistsRef,
    description: "forgegate's: whether a namespace path is taken at the top level or under a parent, as REST's `GET /namespaces/:namespace/exists`.",
    args: { path: t.arg.string({ required: true }), parentId: t.arg.int({ description: 'Id of the parent group; the top level when omitted.' }) },
    resolve: (_r, args, ctx) => namespaceExists(ctx, args.path, args.parentId ?? null),
  }),
}));
