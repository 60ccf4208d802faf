import type { Milestone } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../graphql/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/schema.ts';
import { groupSource, projectSource, resolveSource, SourceInputRef, type Source } from '../namespaces/source.ts';
import { ProjectRef } from '../projects/schema.ts';
import { createMilestone, findMilestone, listMilestones, updateMilestone } from './service.ts';

const MilestoneStateEnum = builder.enumType('MilestoneStateEnum', { values: ['active', 'closed'] as const });
const MilestoneStateEvent = builder.enumType('MilestoneStateEvent', { values: ['close', 'activate'] as const });

async function webUrl(ctx: Context, m: Milestone) {
  const base = ctx.deps.config.externalUrl;
  if (m.groupId != null) return `${base}/groups/${(await ctx.loaders.namespace.load(m.groupId))!.fullPath}/-/milestones/${m.iid}`;
  const project = (await ctx.loaders.project.load(m.projectId!))!;
  return `${base}/${project.namespace.fullPath}/${project.path}/-/milestones/${m.iid}`;
}

export const MilestoneRef = builder.prismaObject('Milestone', {
  fields: (t) => ({
    id: t.id({ resolve: (m) => gid('Milestone', m.id) }),
    databaseId: t.exposeInt('id'),
    iid: t.exposeInt('iid'),
    projectId: t.exposeInt('projectId', { nullable: true }),
    groupId: t.exposeInt('groupId', { nullable: true }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    state: t.expose('state', { type: MilestoneStateEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    startDate: t.expose('startDate', { type: 'Date', nullable: true }),
    expired: t.boolean({ resolve: (m) => Boolean(m.dueDate && m.dueDate < new Date(new Date().toISOString().slice(0, 10))) }),
    webUrl: t.string({ resolve: (m, _a, ctx) => webUrl(ctx, m) }),
  }),
});

function milestoneFields(toSource: (parent: any) => Source) {
  return (t: any) => ({
    milestones: t.connection({
      type: MilestoneRef,
      args: {
        state: t.arg({ type: MilestoneStateEnum }),
        title: t.arg.string(),
        searchTitle: t.arg.string(),
        iids: t.arg.intList(),
      },
      resolve: (parent: unknown, args: any, ctx: Context) =>
        pagedConnection(args, listMilestones(ctx, toSource(parent), { ...args, search: args.searchTitle })),
    }),
    milestone: t.field({
      type: MilestoneRef,
      nullable: true,
      args: { id: t.arg.int({ required: true }) },
      resolve: (parent: unknown, args: { id: number }, ctx: Context) => findMilestone(ctx, toSource(parent), args.id),
    }),
  });
}

builder.objectFields(ProjectRef, milestoneFields((p) => projectSource(p as ProjectWithNamespace)));
builder.objectFields(GroupRef, milestoneFields(groupSource));

const MilestoneAttributes = builder.inputType('MilestoneAttributesInput', {
  fields: (t) => ({
    title: t.string(),
    description: t.string(),
    dueDate: t.field({ type: 'Date' }),
    startDate: t.field({ type: 'Date' }),
    stateEvent: t.field({ type: MilestoneStateEvent }),
  }),
});

builder.mutationFields((t) => ({
  milestoneCreate: t.field({
    type: payloadType('MilestoneCreatePayload', 'milestone', MilestoneRef),
    args: {
      source: t.arg({ type: SourceInputRef, required: true }),
      title: t.arg.string({ required: true }),
      attributes: t.arg({ type: MilestoneAttributes }),
    },
    resolve: (_r, { source, title, attributes }, ctx) =>
      asPayload(ctx, 'milestone', async () => createMilestone(ctx, await resolveSource(ctx, source), { ...attributes, title })),
  }),
  milestoneUpdate: t.field({
    type: payloadType('MilestoneUpdatePayload', 'milestone', MilestoneRef),
    args: {
      source: t.arg({ type: SourceInputRef, required: true }),
      id: t.arg.int({ required: true }),
      attributes: t.arg({ type: MilestoneAttributes, required: true }),
    },
    resolve: (_r, { source, id, attributes }, ctx) =>
      asPayload(ctx, 'milestone', async () => updateMilestone(ctx, await resolveSource(ctx, source), id, attributes)),
  }),
}));
