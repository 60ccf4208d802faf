import type { Milestone } from '../../generated/prisma/client.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { parentOf, resolveParent } from '../namespaces/parent.ts';
import { parentFields, SourceInputRef } from '../namespaces/parent-fields.ts';
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
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    startDate: t.expose('startDate', { type: 'Date', nullable: true }),
    expired: t.boolean({ resolve: (m) => Boolean(m.dueDate && m.dueDate < new Date(new Date().toISOString().slice(0, 10))) }),
    webUrl: t.string({ resolve: (m, _a, ctx) => webUrl(ctx, m) }),
  }),
});

parentFields((t) => ({
  milestones: t.connection({
    type: MilestoneRef,
    args: {
      state: t.arg({ type: MilestoneStateEnum }),
      title: t.arg.string(),
      searchTitle: t.arg.string(),
      iids: t.arg.intList(),
    },
    resolve: (row, args, ctx) => pagedConnection(args, listMilestones(ctx, parentOf(row), { ...args, search: args.searchTitle })),
  }),
  milestone: t.field({
    type: MilestoneRef,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (row, args, ctx) => findMilestone(ctx, parentOf(row), args.id),
  }),
}));

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
      asPayload(ctx, 'milestone', async () => createMilestone(ctx, await resolveParent(ctx, source), { ...attributes, title })),
  }),
  milestoneUpdate: t.field({
    type: payloadType('MilestoneUpdatePayload', 'milestone', MilestoneRef),
    args: {
      source: t.arg({ type: SourceInputRef, required: true }),
      id: t.arg.int({ required: true }),
      attributes: t.arg({ type: MilestoneAttributes, required: true }),
    },
    resolve: (_r, { source, id, attributes }, ctx) =>
      asPayload(ctx, 'milestone', async () => updateMilestone(ctx, await resolveParent(ctx, source), id, attributes)),
  }),
}));
