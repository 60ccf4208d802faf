import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { parentOf, resolveParent } from '../namespaces/parent.ts';
import { parentFields, SourceInputRef } from '../namespaces/parent-fields.ts';
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
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

parentFields((t) => ({
  labels: t.connection({
    type: LabelRef,
    args: { includeAncestorGroups: t.arg.boolean({ defaultValue: true }), searchTerm: t.arg.string() },
    resolve: (row, args, ctx) =>
      pagedConnection(args, listLabels(ctx, parentOf(row), { includeAncestorGroups: args.includeAncestorGroups, search: args.searchTerm })),
  }),
}));

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
      asPayload(ctx, 'label', async () => createLabel(ctx, await resolveParent(ctx, source), { name: title, ...rest })),
  }),
}));
