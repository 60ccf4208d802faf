import { builder, gid } from '../../graphql/builder.ts';
import { findNamespace } from './service.ts';

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
    avatarUrl: t.string({ nullable: true, resolve: () => null }),
  }),
});

builder.queryField('namespace', (t) =>
  t.field({
    type: NamespaceRef,
    nullable: true,
    description: 'Find a namespace.',
    args: { fullPath: t.arg.id({ required: true, description: 'Full path of the project, group, or namespace. For example, `gitlab-org/gitlab-foss`.' }) },
    resolve: (_r, args, ctx) => findNamespace(ctx, String(args.fullPath)),
  }),
);
