import type { Milestone } from '../../generated/prisma/client.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { parentOf, resolveParent } from '../namespaces/parent.ts';
import { parentFields, parentInputFields } from '../namespaces/parent-fields.ts';
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

const milestoneAttributeFields = (t: InputFields) => ({
  description: t.string({ description: 'Description of the milestone.' }),
  dueDate: t.field({ type: 'Date', description: 'Due date of the milestone.' }),
  startDate: t.field({ type: 'Date', description: 'Start date of the milestone.' }),
});

const MilestoneCreateInput = mutationInput('MilestoneCreateInput', (t) => ({
  ...parentInputFields(t),
  title: t.string({ required: true, description: 'Title of the milestone.' }),
  ...milestoneAttributeFields(t),
}));

const MilestoneUpdateInput = mutationInput('MilestoneUpdateInput', (t) => ({
  ...parentInputFields(t),
  id: t.field({ type: 'MilestoneID', required: true, description: 'Global ID of the milestone to update.' }),
  title: t.string({ description: 'Title of the milestone.' }),
  ...milestoneAttributeFields(t),
  stateEvent: t.field({ type: MilestoneStateEvent, description: 'Close or activate the milestone.' }),
}));

const milestoneInput = ({ title, description, dueDate, startDate }: { title?: string | null; description?: string | null; dueDate?: Date | null; startDate?: Date | null }) => ({
  title,
  description,
  dueDate,
  startDate,
});

builder.mutationFields((t) => ({
  milestoneCreate: t.field({
    type: payloadType('MilestoneCreatePayload', 'milestone', MilestoneRef),
    description: 'Creates a milestone in a project or group.',
    args: { input: t.arg({ type: MilestoneCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload(ctx, 'milestone', () => createMilestone(ctx, parent, { ...milestoneInput(input), title: input.title }), input);
    },
  }),
  milestoneUpdate: t.field({
    type: payloadType('MilestoneUpdatePayload', 'milestone', MilestoneRef),
    description: 'Updates a milestone of a project or group; `stateEvent` closes or reopens it.',
    args: { input: t.arg({ type: MilestoneUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      const attributes = { ...milestoneInput(input), stateEvent: input.stateEvent };
      return asPayload(ctx, 'milestone', () => updateMilestone(ctx, parent, input.id, attributes), input);
    },
  }),
}));
