import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../graphql/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/schema.ts';
import { groupSource, projectSource, resolveSource, SourceInputRef, type Source } from '../namespaces/source.ts';
import { ProjectRef } from '../projects/schema.ts';
import { createLabel, listLabels, textColor } from './service.ts';

export const LabelRef = builder.prismaObject('Label', {
  fields: (t) => ({
    id: t.id({ resolve: (l) => gid(l.projectId ? 'ProjectLabel' : 'GroupLabel', l.id) }),
    databaseId: t.exposeInt('id'),
    title: t.exposeString('name'),
    color: t.exposeString('color'),
    textColor: t.string({ resolve: (l) => textColor(l.color) }),
    description: t.exposeString('description', { nullable: true }),
    priority: t.exposeInt('priority', { nullable: true }),
    isProjectLabel: t.boolean({ resolve: (l) => l.projectId != null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

function labelFields(toSource: (parent: any) => Source) {
  return (t: any) => ({
    labels: t.connection({
      type: LabelRef,
      args: { includeAncestorGroups: t.arg.boolean({ defaultValue: true }), searchTerm: t.arg.string() },
      resolve: (parent: unknown, args: any, ctx: Context) =>
        pagedConnection(args, listLabels(ctx, toSource(parent), { includeAncestorGroups: args.includeAncestorGroups, search: args.searchTerm })),
    }),
  });
}

builder.objectFields(ProjectRef, labelFields((p) => projectSource(p as ProjectWithNamespace)));
builder.objectFields(GroupRef, labelFields(groupSource));

builder.mutationFields((t) => ({
  labelCreate: t.field({
    type: payloadType('LabelCreatePayload', 'label', LabelRef),
    args: {
      source: t.arg({ type: SourceInputRef, required: true }),
      title: t.arg.string({ required: true }),
      color: t.arg.string({ required: true }),
      description: t.arg.string(),
      priority: t.arg.int(),
    },
    resolve: (_r, { source, title, ...rest }, ctx) =>
      asPayload(ctx, 'label', async () => createLabel(ctx, await resolveSource(ctx, source), { name: title, ...rest })),
  }),
}));
