import type { Milestone } from '../../generated/prisma/client.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import type { Preload } from '../../graphql/preload.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { parentOf, readableBelow, resolveParent, resolveProject } from '../parents/parent.ts';
import { parentFields, parentInputFields, projectInputFields } from '../parents/parent-fields.ts';
import { databaseIdOfGlobalId } from '../../graphql/scalars.ts';
import {
  createMilestone,
  deleteMilestone,
  findMilestone,
  isExpired,
  isUpcoming,
  listMilestones,
  MILESTONE_SORTS,
  promoteMilestone,
  updateMilestone,
} from './service.ts';

const MilestoneStateEnum = builder.enumType('MilestoneStateEnum', { values: ['active', 'closed'] as const });
const MilestoneStateEvent = builder.enumType('MilestoneStateEvent', { values: ['close', 'activate'] as const });

const MilestoneSortEnum = builder.enumType('MilestoneSort', {
  description: 'Values for sorting milestones.',
  values: MILESTONE_SORTS,
});

export const TimeframeInput = builder.inputType('Timeframe', {
  description: 'A time-frame defined as a closed inclusive range of two dates.',
  fields: (t) => ({
    start: t.field({ type: 'Date', required: true, description: 'Start of the range.' }),
    end: t.field({ type: 'Date', required: true, description: 'End of the range.' }),
  }),
});

/**
 * GitLab's milestone path after `prefix`: `/groups/<group>/-/milestones/<iid>` or
 * `/<project>/-/milestones/<iid>`; at once when the parent has been read (a release list preloads it).
 */
function webPath(ctx: Context, m: Milestone, prefix = '') {
  if (m.groupId != null) return ctx.loaders.namespace.use(m.groupId, (group) => `${prefix}/groups/${group!.fullPath}/-/milestones/${m.iid}`);
  return ctx.loaders.project.use(m.projectId!, (project) => `${prefix}/${project!.namespace.fullPath}/${project!.path}/-/milestones/${m.iid}`);
}

/** The groups and projects a list's milestones belong to, which their web paths name. */
const preloadParents: Preload<Milestone> = async (ctx, milestones) => {
  await Promise.all([
    ctx.loaders.namespace.preload(new Set(milestones.flatMap((m) => (m.groupId == null ? [] : [m.groupId])))),
    ctx.loaders.project.preload(new Set(milestones.flatMap((m) => (m.projectId == null ? [] : [m.projectId])))),
  ]);
};

const MilestoneStatsRef = builder.objectRef<Milestone>('MilestoneStats').implement({
  description: 'Contains statistics about a milestone. forgegate has no issues: both counts are 0.',
  fields: (t) => ({
    totalIssuesCount: t.int({ description: 'Total number of issues associated with the milestone.', resolve: () => 0 }),
    closedIssuesCount: t.int({ description: 'Number of closed issues associated with the milestone.', resolve: () => 0 }),
  }),
});

export const MilestoneRef = builder.prismaObject('Milestone', {
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (m) => gid('Milestone', m.id) }),
    databaseId: t.exposeInt('id'),
    iid: t.exposeID('iid', { nullable: false, description: 'Internal ID of the milestone.' }),
    projectId: t.exposeInt('projectId', { nullable: true }),
    groupId: t.exposeInt('groupId', { nullable: true }),
    title: t.exposeString('title', { nullable: false }),
    description: t.exposeString('description'),
    state: t.expose('state', { type: MilestoneStateEnum, nullable: false }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    startDate: t.expose('startDate', { type: 'Date', nullable: true }),
    expired: t.boolean({ nullable: false, description: 'The due date is past.', resolve: (m) => isExpired(m) }),
    upcoming: t.boolean({ nullable: false, description: 'The start date is in the future.', resolve: (m) => isUpcoming(m) }),
    webPath: t.string({ nullable: false, description: 'Web path of the milestone.', preload: preloadParents, resolve: (m, _a, ctx) => webPath(ctx, m) }),
    webUrl: t.string({ preload: preloadParents, resolve: (m, _a, ctx) => webPath(ctx, m, ctx.deps.config.externalUrl) }),
    projectMilestone: t.boolean({ nullable: false, description: 'Indicates if milestone is at project level.', resolve: (m) => m.projectId != null }),
    groupMilestone: t.boolean({ nullable: false, description: 'Indicates if milestone is at group level.', resolve: (m) => m.groupId != null }),
    subgroupMilestone: t.boolean({
      nullable: false,
      description: 'Indicates if milestone is at subgroup level.',
      preload: preloadParents,
      resolve: (m, _a, ctx) => m.groupId != null && ctx.loaders.namespace.use(m.groupId, (group) => group!.parentId != null),
    }),
    stats: t.field({ type: MilestoneStatsRef, nullable: true, description: 'Milestone statistics.', resolve: (m) => m }),
  }),
});

/** GitLab's `MilestoneConnection`, one type for every milestone list (Pothos would name one per field). */
const MilestoneConnection = builder.connectionObject({ type: MilestoneRef, name: 'MilestoneConnection' }, { name: 'MilestoneEdge' });

parentFields((t, kind) => ({
  milestones: t.connection(
    {
      type: MilestoneRef,
      args: {
        ids: t.arg.idList({ description: 'Array of global milestone IDs, e.g., `"gid://gitlab/Milestone/1"`.' }),
        iids: t.arg.intList({ description: 'Internal IDs of the milestones.' }),
        state: t.arg({ type: MilestoneStateEnum, description: 'Filter milestones by state.' }),
        title: t.arg.string({ description: 'Title of the milestone.' }),
        searchTitle: t.arg.string({ description: 'Search string for the title (and description).' }),
        containingDate: t.arg({ type: 'Time', description: 'Date the milestone contains.' }),
        timeframe: t.arg({ type: TimeframeInput, description: 'List items overlapping the given timeframe.' }),
        includeAncestors: t.arg.boolean({ description: 'Also return milestones in the ancestor groups.' }),
        // Group.milestones only, as in GitLab.
        ...(kind === 'group' && {
          includeDescendants: t.arg.boolean({ description: 'Include milestones from all subgroups and subprojects.' }),
        }),
        sort: t.arg({ type: MilestoneSortEnum, description: 'Sort milestones by this criteria. Default: newest first.' }),
      },
      resolve: async (row, { ids, searchTitle, ...args }, ctx) => {
        const parent = parentOf(row);
        const below = 'includeDescendants' in args && args.includeDescendants && parent.kind === 'group';
        const descendants = below ? await readableBelow(ctx, parent.group, { subgroups: true }) : null;
        const filter = { ...args, search: searchTitle, ids: ids?.map((id) => databaseIdOfGlobalId('MilestoneID', id)), descendants };
        return pagedConnection(args, listMilestones(ctx, parent, filter));
      },
    },
    MilestoneConnection,
  ),
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

const milestoneInput = ({
  title,
  description,
  dueDate,
  startDate,
}: {
  title?: string | null;
  description?: string | null;
  dueDate?: Date | null;
  startDate?: Date | null;
}) => ({
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
      return asPayload('milestone', () => createMilestone(ctx, parent, { ...milestoneInput(input), title: input.title }), input);
    },
  }),
  milestoneUpdate: t.field({
    type: payloadType('MilestoneUpdatePayload', 'milestone', MilestoneRef),
    description: 'Updates a milestone of a project or group; `stateEvent` closes or reopens it.',
    args: { input: t.arg({ type: MilestoneUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      const attributes = { ...milestoneInput(input), stateEvent: input.stateEvent };
      return asPayload('milestone', () => updateMilestone(ctx, parent, input.id, attributes), input);
    },
  }),
}));

const MilestoneDeleteInput = mutationInput('MilestoneDeleteInput', (t) => ({
  ...parentInputFields(t),
  id: t.field({ type: 'MilestoneID', required: true, description: 'Global ID of the milestone to delete.' }),
}));

const MilestonePromoteInput = mutationInput('MilestonePromoteInput', (t) => ({
  ...projectInputFields(t),
  id: t.field({ type: 'MilestoneID', required: true, description: 'Global ID of the project milestone to promote.' }),
}));

builder.mutationFields((t) => ({
  milestoneDelete: t.field({
    type: payloadType('MilestoneDeletePayload', 'milestone', MilestoneRef),
    description: "Deletes a milestone of a project or group. forgegate's mutation (GitLab has it in REST only).",
    args: { input: t.arg({ type: MilestoneDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload('milestone', () => deleteMilestone(ctx, parent, input.id), input);
    },
  }),
  milestonePromote: t.field({
    type: payloadType('MilestonePromotePayload', 'milestone', MilestoneRef),
    description: "Promotes a project milestone to a milestone of the project's group. forgegate's mutation (GitLab has it in REST only).",
    args: { input: t.arg({ type: MilestonePromoteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('milestone', () => promoteMilestone(ctx, project, input.id), input);
    },
  }),
}));
