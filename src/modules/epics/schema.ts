import type { AwardEmoji, Epic, Namespace, Todo } from '../../generated/prisma/client.ts';
import { defineAbility, hiddenUnless } from '../../graphql/abilities.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { ForbiddenError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import { mappedListing } from '../../core/listing.ts';
import { MilestoneRef, TimeframeInput } from '../milestones/index.ts';
import { ProjectRef } from '../projects/index.ts';
import { asPayload, mutationInput, payloadClientMutationIdField, payloadErrorsField, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/index.ts';
import { LabelRef } from '../labels/index.ts';
import { textColor } from '../labels/service.ts';
import { renderInlineMarkdown, renderMarkdown } from '../releases/markdown.ts';
import { CurrentUserRef, UserRef } from '../users/index.ts';
import { addAward, emojiNamed, removeAward } from './award-emoji.ts';
import {
  abilities,
  ancestorsOf,
  childrenOf,
  childrenWithinTimeframe,
  inheritedDatesOf,
  currentUserTodos,
  createEpic,
  destroyEpic,
  EPIC_SORTS,
  epicGroup,
  epicColorEnabled,
  epicReferences,
  findEpic,
  findEpicById,
  isSubscribed,
  listEpics,
  markTodo,
  markTodoDone,
  markAllTodosDone,
  viewerTodos,
  moveEpic,
  parentOf,
  reorderEpicTree,
  requireEpicsFeature,
  setSubscription,
  updateEpic,
  type EpicFilter,
  type Timeframe,
} from './service.ts';

/**
 * An epic as GraphQL hands it out, with the group it was requested from (`references.relative`
 * is relative to that group) and the timeframe of the list it came from
 * (`hasChildrenWithinTimeframe`); nested epics (parent, children, ancestors) keep both.
 */
export type EpicNode = Epic & { from?: Namespace | null; timeframe?: Timeframe | null };

const within =
  (from: Namespace | null | undefined, timeframe: Timeframe | null = null) =>
  (epic: Epic): EpicNode => ({ ...epic, from, timeframe });

/** What nested epics keep of the epic they were reached from. */
const nested = (e: EpicNode) => within(e.from, e.timeframe ?? null);

export const EpicStateEnum = builder.enumType('EpicState', {
  description: 'State of an epic.',
  values: { all: { value: 'all' }, opened: { value: 'opened' }, closed: { value: 'closed' } } as const,
});

const EpicStateEventEnum = builder.enumType('EpicStateEvent', {
  description: 'State event of an epic.',
  values: { REOPEN: { value: 'reopen' }, CLOSE: { value: 'close' } } as const,
});

// GitLab keeps the lowercase spellings of the roadmap's date sorts, deprecated since 13.11.
const DEPRECATED_SORTS = {
  start_date_desc: 'START_DATE_DESC',
  start_date_asc: 'START_DATE_ASC',
  end_date_desc: 'END_DATE_DESC',
  end_date_asc: 'END_DATE_ASC',
} as const;

const EpicSortEnum = builder.enumType('EpicSort', {
  description: 'Roadmap sort values.',
  values: {
    ...Object.fromEntries(
      Object.entries(DEPRECATED_SORTS).map(([name, value]) => [name, { value, deprecationReason: `Use ${value}. Deprecated in GitLab 13.11.` }]),
    ),
    ...Object.fromEntries(EPIC_SORTS.map((value) => [value, { value }])),
  } as Record<string, { value: (typeof EPIC_SORTS)[number]; deprecationReason?: string }>,
});

const IssuableSearchableFieldEnum = builder.enumType('IssuableSearchableField', {
  description: 'Fields to perform the search in.',
  values: { TITLE: { value: 'title' }, DESCRIPTION: { value: 'description' } } as const,
});

const epicWebPath = async (ctx: Context, e: Epic) => `/groups/${(await ctx.loaders.namespace.load(e.groupId))!.fullPath}/-/epics/${e.iid}`;

const apiUrl = (ctx: Context, path: string) => `${ctx.deps.config.externalUrl}/api/v4${path}`;

declare module '../../graphql/abilities.ts' {
  interface Abilities {
    /** GitLab's `admin_epic`: by the epic's group id. */
    adminEpic: number;
  }
}

defineAbility('adminEpic', async (ctx, groupId) => (await abilities(ctx, groupId)).admin);

/** Fields only those who may edit the epic see (GitLab's `can_admin_epic` entity condition); null for others. */
const forEditors = hiddenUnless('adminEpic', (e: EpicNode) => e.groupId);

const IssuableReferencesRef = builder.objectRef<{ short: string; relative: string; full: string }>('EpicReferences').implement({
  description: 'References of an epic: short (`&5`), relative to the group it was requested from, and full (`group/path&5`).',
  fields: (t) => ({ short: t.exposeString('short'), relative: t.exposeString('relative'), full: t.exposeString('full') }),
});

/** GitLab's `_links` of an epic in the REST API. */
const EpicLinksRef = builder.objectRef<Epic>('EpicLinks').implement({
  fields: (t) => ({
    selfUrl: t.string({ resolve: (e, _a, ctx) => apiUrl(ctx, `/groups/${e.groupId}/epics/${e.iid}`) }),
    epicIssuesUrl: t.string({ resolve: (e, _a, ctx) => apiUrl(ctx, `/groups/${e.groupId}/epics/${e.iid}/issues`) }),
    groupUrl: t.string({ resolve: (e, _a, ctx) => apiUrl(ctx, `/groups/${e.groupId}`) }),
    parentUrl: t.string({
      nullable: true,
      resolve: async (e, _a, ctx) => {
        const parent = await parentOf(ctx, e);
        return parent && apiUrl(ctx, `/groups/${parent.groupId}/epics/${parent.iid}`);
      },
    }),
  }),
});

const EpicPermissionsRef = builder.objectRef<Epic>('EpicPermissions').implement({
  description: 'Check permissions for the current user on an epic.',
  fields: (t) => {
    const can = (ability: 'admin' | 'destroy') =>
      t.boolean({ nullable: false, resolve: async (e: Epic, _a: unknown, ctx: Context) => (await abilities(ctx, e.groupId))[ability] });
    const signedIn = () => t.boolean({ nullable: false, resolve: (_e: Epic, _a: unknown, ctx: Context) => ctx.viewer.user != null });
    // A readable epic is the subject of every field here, so reading it (and its iid) is granted.
    const granted = () => t.boolean({ nullable: false, resolve: () => true });
    return {
      readEpic: granted(),
      readEpicIid: granted(),
      adminEpic: can('admin'),
      adminEpicRelation: can('admin'),
      createEpic: can('admin'),
      updateEpic: can('admin'),
      destroyEpic: can('destroy'),
      awardEmoji: signedIn(),
      createNote: signedIn(),
    };
  },
});

const DescendantCountsRef = builder.objectRef<{ openedEpics: number; closedEpics: number }>('EpicDescendantCount').implement({
  description: 'Counts of descendant epics (issues are not part of forgegate, so their counts are zero).',
  fields: (t) => ({
    openedEpics: t.exposeInt('openedEpics', { nullable: true }),
    closedEpics: t.exposeInt('closedEpics', { nullable: true }),
    openedIssues: t.int({ nullable: true, resolve: () => 0 }),
    closedIssues: t.int({ nullable: true, resolve: () => 0 }),
  }),
});

/** Issue weights and health statuses: forgegate has no issues, so every sum is zero. */
const NO_ISSUES = {};

const DescendantWeightSumRef = builder.objectRef<typeof NO_ISSUES>('EpicDescendantWeightSum').implement({
  description: 'Total weight of open and closed descendant issues; zero, as forgegate has no issues.',
  fields: (t) => ({
    openedIssues: t.int({ nullable: true, resolve: () => 0 }),
    closedIssues: t.int({ nullable: true, resolve: () => 0 }),
  }),
});

const HealthStatusRef = builder.objectRef<typeof NO_ISSUES>('EpicHealthStatus').implement({
  description: 'Health status of child issues; zero counts, as forgegate has no issues.',
  fields: (t) => ({
    issuesAtRisk: t.int({ nullable: true, resolve: () => 0 }),
    issuesNeedingAttention: t.int({ nullable: true, resolve: () => 0 }),
    issuesOnTrack: t.int({ nullable: true, resolve: () => 0 }),
  }),
});

export const AwardEmojiRef = builder.objectRef<AwardEmoji>('AwardEmoji').implement({
  description: 'An emoji awarded by a user.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Id of the award (REST `id`).' }),
    awardableId: t.exposeInt('epicId', { description: 'Id of the epic the emoji was awarded to (REST `awardable_id`).' }),
    name: t.exposeString('name', { nullable: false }),
    emoji: t.string({ nullable: false, resolve: async (a) => (await emojiNamed(a.name))?.emoji ?? '' }),
    description: t.string({ nullable: false, resolve: async (a) => (await emojiNamed(a.name))?.description ?? '' }),
    unicode: t.string({
      nullable: false,
      resolve: async (a) => [...((await emojiNamed(a.name))?.emoji ?? '')].map((c) => c.codePointAt(0)!.toString(16)).join('-'),
    }),
    user: t.field({ type: UserRef, nullable: false, resolve: async (a, _a, ctx) => (await ctx.loaders.user.load(a.userId))! }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

const AwardEmojiConnection = builder.connectionObject({ type: AwardEmojiRef, name: 'AwardEmojiConnection' }, { name: 'AwardEmojiEdge' });

export const EpicRef = builder.objectRef<EpicNode>('Epic');

const EpicConnection = builder.connectionObject({ type: EpicRef, name: 'EpicConnection' }, { name: 'EpicEdge' });

/**
 * An issue of an epic. forgegate has no issues, so `Epic.issues` is always empty; the type exists
 * so that the documents selecting it (the epic tree) validate.
 */
const EpicIssueRef = builder.objectRef<never>('EpicIssue').implement({
  description: 'An issue attached to an epic (forgegate has none).',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (i) => i }),
    epicIssueId: t.id({ nullable: false, resolve: (i) => i }),
    iid: t.string({ nullable: false, resolve: (i) => i }),
    title: t.string({ nullable: false, resolve: (i) => i }),
    state: t.string({ nullable: false, description: 'opened or closed.', resolve: (i) => i }),
    confidential: t.boolean({ nullable: false, resolve: (i) => i }),
    blocked: t.boolean({ nullable: false, resolve: (i) => i }),
    createdAt: t.field({ type: 'Time', nullable: false, resolve: (i) => i }),
    closedAt: t.field({ type: 'Time', nullable: true, resolve: (i) => i }),
    dueDate: t.field({ type: 'Time', nullable: true, resolve: (i) => i }),
    weight: t.int({ nullable: true, resolve: (i) => i }),
    webPath: t.string({ nullable: false, resolve: (i) => i }),
    webUrl: t.string({ nullable: false, resolve: (i) => i }),
    relationPath: t.string({ nullable: true, resolve: (i) => i }),
    reference: t.string({ nullable: false, args: { full: t.arg.boolean({ defaultValue: false }) }, resolve: (i) => i }),
    assignees: t.connection({ type: UserRef, nullable: true, resolve: (i) => i }),
    milestone: t.field({ type: MilestoneRef, nullable: true, resolve: (i) => i }),
  }),
});

const EpicIssueConnection = builder.connectionObject({ type: EpicIssueRef, name: 'EpicIssueConnection' }, { name: 'EpicIssueEdge' });

/** A connection to nothing: what forgegate answers for issues and blocking epics, which it does not have. */
const emptyConnection = (args: object) => listConnection(args, [] as never[]);

/** The arguments of GitLab's `EpicsResolver`, which `Group.epics` and `Epic.children` share. */
const epicListArgs = (defaults: { includeAncestorGroups: boolean }) =>
  builder.args((t) => ({
    iid: t.id({ description: 'IID of the epic, e.g., "1".' }),
    iids: t.idList({ description: 'List of IIDs of epics, e.g., `[1, 2]`.' }),
    state: t.field({ type: EpicStateEnum, description: 'Filter epics by state.' }),
    search: t.string({ description: 'Search query for title or description.' }),
    in: t.field({ type: [IssuableSearchableFieldEnum], description: 'Specify the fields to perform the search in. Defaults to `[TITLE, DESCRIPTION]`.' }),
    sort: t.field({ type: EpicSortEnum, description: 'List epics by sort order.' }),
    authorUsername: t.string({ description: 'Filter epics by author.' }),
    authorId: t.int({ description: 'Filter by author id (REST `author_id`).' }),
    labelName: t.stringList({ description: 'Epics with all these labels; `None` for no label, `Any` for any.' }),
    milestoneTitle: t.string({ description: "Filter epics by milestone title, computed from epic's issues (forgegate has none)." }),
    includeAncestorGroups: t.boolean({ defaultValue: defaults.includeAncestorGroups, description: 'Include epics from ancestor groups.' }),
    includeDescendantGroups: t.boolean({ defaultValue: true, description: 'Include epics from descendant groups.' }),
    confidential: t.boolean({ description: 'Filter epics by given confidentiality.' }),
    myReactionEmoji: t.string({ description: 'An emoji name, `None` or `Any`.' }),
    createdAfter: t.field({ type: 'Time', description: 'Epics created after the date.' }),
    createdBefore: t.field({ type: 'Time', description: 'Epics created before the date.' }),
    updatedAfter: t.field({ type: 'Time', description: 'Epics updated after the date.' }),
    updatedBefore: t.field({ type: 'Time', description: 'Epics updated before the date.' }),
    not: t.field({ type: NegatedEpicFilterInput, description: 'Negated epic arguments.' }),
    or: t.field({ type: UnionedEpicFilterInput, description: 'List of arguments with inclusive OR.' }),
    topLevelHierarchyOnly: t.boolean({ description: 'Filter epics with a top-level hierarchy.' }),
    timeframe: t.field({ type: TimeframeInput, description: 'List items overlapping the given timeframe.' }),
    startDate: t.field({
      type: 'Time',
      description: 'Epics whose dates overlap startDate to endDate (both must be given).',
      deprecationReason: 'Use timeframe.start. Deprecated in GitLab 14.9.',
    }),
    endDate: t.field({
      type: 'Time',
      description: 'Epics whose dates overlap startDate to endDate (both must be given).',
      deprecationReason: 'Use timeframe.end. Deprecated in GitLab 14.9.',
    }),
  }));

const NegatedEpicFilterInput = builder.inputType('NegatedEpicFilterInput', {
  fields: (t) => ({
    labelName: t.field({ type: ['String'], required: { list: false, items: false }, description: 'Filter by label name.' }),
    authorUsername: t.string({ description: 'Filter by author username.' }),
    authorId: t.int({ description: 'Filter by author id (REST `not[author_id]`).' }),
    myReactionEmoji: t.string({ description: 'Filter by reaction emoji applied by the current user.' }),
  }),
});

const UnionedEpicFilterInput = builder.inputType('UnionedEpicFilterInput', {
  fields: (t) => ({
    labelName: t.stringList({ description: 'Filters epics that have at least one of the given labels.', deprecationReason: 'Use labelNames instead.' }),
    labelNames: t.stringList({ description: 'Filters epics that have at least one of the given labels.' }),
    authorUsername: t.stringList({
      description: 'Filters epics that are authored by one of the given users.',
      deprecationReason: 'Use authorUsernames instead.',
    }),
    authorUsernames: t.stringList({ description: 'Filters epics that are authored by one of the given users.' }),
  }),
});

const iidNumber = (value: string | number, name = 'iid') => {
  const text = String(value);
  if (!/^\d{1,15}$/.test(text)) throw new ParamError(`${name} must be a positive integer`);
  return Number(text);
};

/** The timeframe of the arguments: `timeframe`, or GitLab's deprecated `startDate` with `endDate` (both or neither). */
function timeframeOf(args: { timeframe?: Timeframe | null; startDate?: Date | null; endDate?: Date | null }): Timeframe | null {
  if (args.startDate != null || args.endDate != null) {
    if (args.startDate == null || args.endDate == null) throw new ParamError('Both startDate and endDate must be present.');
    if (args.startDate > args.endDate) throw new ParamError('startDate is after endDate');
    return { start: args.startDate, end: args.endDate };
  }
  if (args.timeframe && args.timeframe.start > args.timeframe.end) throw new ParamError('start must be before end');
  return args.timeframe ?? null;
}

type Maybe<T> = T | null | undefined;

/** The arguments `epicListArgs` declares, as the resolvers receive them. */
type EpicListArgs = Omit<EpicFilter, 'iids' | 'not' | 'or' | 'searchIn' | 'timeframe' | 'parentId'> & {
  iid?: Maybe<string | number>;
  iids?: Maybe<(string | number)[]>;
  in?: Maybe<('title' | 'description')[]>;
  not?: Maybe<{ labelName?: Maybe<Maybe<string>[]>; authorUsername?: Maybe<string>; authorId?: Maybe<number>; myReactionEmoji?: Maybe<string> }>;
  or?: Maybe<{ labelName?: Maybe<string[]>; labelNames?: Maybe<string[]>; authorUsername?: Maybe<string[]>; authorUsernames?: Maybe<string[]> }>;
  timeframe?: Maybe<Timeframe>;
  startDate?: Maybe<Date>;
  endDate?: Maybe<Date>;
};

/** GitLab's resolver arguments as the finder's filter (deprecated spellings folded into the current ones). */
function filterOf({ iid, iids, in: searchIn, not, or, timeframe, startDate, endDate, ...args }: EpicListArgs): EpicFilter {
  return {
    ...args,
    iids: [...(iid != null ? [iid] : []), ...(iids ?? [])].map((i) => iidNumber(i)),
    searchIn,
    timeframe: timeframeOf({ timeframe, startDate, endDate }),
    not: not && { ...not, labelName: not.labelName?.filter((name): name is string => name != null) },
    or: or && { labelNames: or.labelNames ?? or.labelName, authorUsernames: or.authorUsernames ?? or.authorUsername },
  };
}

/** Arguments that do not filter: the page, and the group scope (children are nested within their parent's groups anyway). */
const NOT_FILTERS = new Set(['first', 'last', 'after', 'before', 'includeAncestorGroups', 'includeDescendantGroups', 'iids']);

/** Whether `children` was asked with a filter; without one it reads the batched children of the page. */
const filtersChildren = (filter: EpicFilter) =>
  Object.entries(filter).some(([key, value]) => value != null && !NOT_FILTERS.has(key)) || (filter.iids?.length ?? 0) > 0;

/** GitLab's `group_epic_link_path`: the link of the epic to its parent, for epics that have one. */
async function relationPath(ctx: Context, e: Epic) {
  const parent = await parentOf(ctx, e);
  if (!parent) return null;
  const group = (await ctx.loaders.namespace.load(parent.groupId))!;
  return `/groups/${group.fullPath}/-/epics/${parent.iid}/links/${e.id}`;
}

EpicRef.implement({
  description: 'A group epic.',
  fields: (t) => ({
    id: t.id({ nullable: false, description: 'Global id, `gid://gitlab/Epic/<id>`.', resolve: (e) => gid('Epic', e.id) }),
    databaseId: t.exposeInt('id'),
    iid: t.string({ nullable: false, resolve: (e) => String(e.iid) }),
    title: t.exposeString('title', { nullable: true }),
    titleHtml: t.string({ nullable: true, resolve: (e) => renderInlineMarkdown(e.title) }),
    description: t.string({ nullable: true, resolve: (e) => e.description }),
    descriptionHtml: t.string({ nullable: true, resolve: (e) => (e.description == null ? null : renderMarkdown(e.description)) }),
    state: t.field({ type: EpicStateEnum, nullable: false, resolve: (e) => e.state }),
    confidential: t.exposeBoolean('confidential', { nullable: true }),
    color: t.string({
      nullable: true,
      description: 'Behind the feature flag `epic_highlight_color`.',
      resolve: async (e, _a, ctx) => ((await epicColorEnabled(ctx)) ? e.color : null),
    }),
    textColor: t.string({ nullable: true, resolve: async (e, _a, ctx) => ((await epicColorEnabled(ctx)) ? textColor(e.color) : null) }),
    author: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => (e.authorId == null ? null : ctx.loaders.user.load(e.authorId)) }),
    participants: t.connection({
      type: UserRef,
      nullable: true,
      description: 'Users who took part in the epic: its author (forgegate has no comments or assignees on epics).',
      resolve: async (e, args, ctx) => listConnection(args, e.authorId == null ? [] : [await ctx.loaders.user.load(e.authorId)].filter((u) => u != null)),
    }),
    group: t.field({ type: GroupRef, nullable: false, resolve: async (e, _a, ctx) => (await ctx.loaders.namespace.load(e.groupId))! }),
    parent: t.field({
      type: EpicRef,
      nullable: true,
      resolve: async (e, _a, ctx) => {
        const parent = await parentOf(ctx, e);
        return parent && nested(e)(parent);
      },
    }),
    hasParent: t.boolean({ nullable: false, resolve: (e) => e.parentId != null }),
    children: t.connection(
      {
        type: EpicRef,
        nullable: true,
        description: 'Children (sub-epics) of the epic.',
        args: epicListArgs({ includeAncestorGroups: true }),
        resolve: async (e, args, ctx) => {
          const filter = filterOf(args);
          if (!filtersChildren(filter)) return listConnection(args, (await childrenOf(ctx, e)).map(nested(e)));
          const group = (await ctx.loaders.namespace.load(e.groupId))!;
          const listing = await listEpics(ctx, group, { ...filter, parentId: e.id, includeDescendantGroups: true });
          const keep = within(e.from, filter.timeframe ?? e.timeframe ?? null);
          return pagedConnection(args, mappedListing(listing, keep));
        },
      },
      EpicConnection,
    ),
    hasChildren: t.boolean({ nullable: false, resolve: async (e, _a, ctx) => (await childrenOf(ctx, e)).length > 0 }),
    hasChildrenWithinTimeframe: t.boolean({
      nullable: false,
      description: 'Whether a child epic overlaps the timeframe the list was asked for (without one: whether there are children).',
      resolve: async (e, _a, ctx) => (await childrenWithinTimeframe(ctx, e, e.timeframe ?? null)).length > 0,
    }),
    ancestors: t.connection(
      {
        type: EpicRef,
        nullable: true,
        description: 'Ancestors of the epic, its parent first.',
        resolve: async (e, args, ctx) => listConnection(args, (await ancestorsOf(ctx, e)).map(nested(e))),
      },
      EpicConnection,
    ),
    descendantCounts: t.field({ type: DescendantCountsRef, nullable: true, resolve: (e, _a, ctx) => ctx.loaders.epics.descendantCounts.load(e.id) }),
    descendantWeightSum: t.field({ type: DescendantWeightSumRef, nullable: true, resolve: () => NO_ISSUES }),
    healthStatus: t.field({ type: HealthStatusRef, nullable: true, resolve: () => NO_ISSUES }),
    issues: t.connection(
      {
        type: EpicIssueRef,
        nullable: true,
        description: 'Issues of the epic: none, as forgegate has no issues.',
        resolve: (_e, args) => emptyConnection(args),
      },
      EpicIssueConnection,
    ),
    hasIssues: t.boolean({ nullable: false, resolve: () => false }),
    defaultProjectForIssueCreation: t.field({
      type: ProjectRef,
      nullable: true,
      description: 'The project the viewer last created an issue of the epic in: none, as forgegate has no issues.',
      resolve: () => null,
    }),
    blocked: t.boolean({ nullable: true, description: 'forgegate has no blocking links between epics: false.', resolve: () => false }),
    blockedByCount: t.int({ nullable: true, resolve: () => 0 }),
    blockingCount: t.int({ nullable: true, resolve: () => 0 }),
    blockedByEpics: t.connection({ type: EpicRef, nullable: true, resolve: (_e, args) => emptyConnection(args) }, EpicConnection),
    relationPath: t.string({
      nullable: true,
      description: 'Path of the link to the parent epic; null without a parent.',
      resolve: (e, _a, ctx) => relationPath(ctx, e),
    }),
    relativePosition: t.int({
      nullable: true,
      description: 'Position among its siblings in the epic tree (set by epicTreeReorder); null until placed.',
      resolve: (e) => e.relativePosition,
    }),
    labels: t.connection({ type: LabelRef, nullable: true, resolve: async (e, args, ctx) => listConnection(args, await ctx.loaders.epics.labels.load(e.id)) }),
    startDate: t.field({ type: 'Time', nullable: true, resolve: (e) => e.startDate }),
    startDateIsFixed: t.boolean({ nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.startDateIsFixed }),
    startDateFixed: t.field({ type: 'Time', nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.startDateFixed }),
    startDateFromInheritedSource: t.field({
      type: 'Time',
      nullable: true,
      description: 'Earliest start among the child epics; for those who may edit the epic.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await inheritedDatesOf(ctx, e)).startDate,
    }),
    startDateFromMilestones: t.field({
      type: 'Time',
      nullable: true,
      description: 'For those who may edit the epic.',
      deprecationReason: 'Use startDateFromInheritedSource.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await inheritedDatesOf(ctx, e)).startDate,
    }),
    dueDate: t.field({ type: 'Time', nullable: true, resolve: (e) => e.dueDate }),
    dueDateIsFixed: t.boolean({ nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.dueDateIsFixed }),
    dueDateFixed: t.field({ type: 'Time', nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.dueDateFixed }),
    dueDateFromInheritedSource: t.field({
      type: 'Time',
      nullable: true,
      description: 'Latest due date among the child epics; for those who may edit the epic.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await inheritedDatesOf(ctx, e)).dueDate,
    }),
    dueDateFromMilestones: t.field({
      type: 'Time',
      nullable: true,
      description: 'For those who may edit the epic.',
      deprecationReason: 'Use dueDateFromInheritedSource.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await inheritedDatesOf(ctx, e)).dueDate,
    }),
    closedAt: t.field({ type: 'Time', nullable: true, resolve: (e) => e.closedAt }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: true }),
    upvotes: t.int({ nullable: false, resolve: async (e, _a, ctx) => (await ctx.loaders.epics.awardCounts.load(e.id)).upvotes }),
    downvotes: t.int({ nullable: false, resolve: async (e, _a, ctx) => (await ctx.loaders.epics.awardCounts.load(e.id)).downvotes }),
    userNotesCount: t.int({ nullable: false, description: 'forgegate has no comments on epics: 0.', resolve: () => 0 }),
    userDiscussionsCount: t.int({ nullable: false, description: 'forgegate has no comments on epics: 0.', resolve: () => 0 }),
    awardEmoji: t.connection(
      { type: AwardEmojiRef, nullable: true, resolve: async (e, args, ctx) => listConnection(args, await ctx.loaders.epics.awards.load(e.id)) },
      AwardEmojiConnection,
    ),
    subscribed: t.boolean({ nullable: false, resolve: (e, _a, ctx) => isSubscribed(ctx, e) }),
    currentUserTodos: t.connection(
      {
        type: TodoRef,
        nullable: false,
        description: "The viewer's to-do items about the epic (pending and done unless `state` says which).",
        args: { state: t.arg({ type: TodoStateEnum, description: 'State of the to-do items.' }) },
        resolve: async (e, args, ctx) => listConnection(args, await currentUserTodos(ctx, e, args.state ?? null)),
      },
      TodoConnectionRef,
    ),
    webPath: t.string({ nullable: false, resolve: (e, _a, ctx) => epicWebPath(ctx, e) }),
    webUrl: t.string({ nullable: false, resolve: async (e, _a, ctx) => `${ctx.deps.config.externalUrl}${await epicWebPath(ctx, e)}` }),
    reference: t.string({
      nullable: false,
      args: { full: t.arg.boolean({ defaultValue: false }) },
      resolve: async (e, { full }, ctx) => {
        const refs = await epicReferences(ctx, e, e.from ?? null);
        return full ? refs.full : refs.relative;
      },
    }),
    references: t.field({ type: IssuableReferencesRef, resolve: (e, _a, ctx) => epicReferences(ctx, e, e.from ?? null) }),
    links: t.field({ type: EpicLinksRef, description: "GitLab's `_links` of the REST entity.", resolve: (e) => e }),
    userPermissions: t.field({ type: EpicPermissionsRef, nullable: false, resolve: (e) => e }),
  }),
});

builder.objectFields(GroupRef, (t) => ({
  epics: t.connection(
    {
      type: EpicRef,
      nullable: true,
      description: 'Epics of the group and, by default, its subgroups.',
      args: epicListArgs({ includeAncestorGroups: false }),
      resolve: async (g, args, ctx) => {
        const filter = filterOf(args);
        const listing = await listEpics(ctx, g, filter);
        return pagedConnection(args, mappedListing(listing, within(g, filter.timeframe ?? null)));
      },
    },
    EpicConnection,
  ),
  epic: t.field({
    type: EpicRef,
    nullable: true,
    description: 'An epic of the group by iid; null when it does not exist, is not visible, or no iid is given.',
    args: { iid: t.arg.id({ description: 'IID of the epic, e.g., "1".' }) },
    resolve: async (g, { iid }, ctx) => {
      requireEpicsFeature(ctx);
      if (iid == null) return null;
      const epic = await findEpic(ctx, g, iidNumber(iid));
      return epic && within(g)(epic);
    },
  }),
  emailsDisabled: t.boolean({
    nullable: true,
    description: 'forgegate has no per-group switch for notification emails: false.',
    deprecationReason: 'Use emailsEnabled. Deprecated in GitLab 16.5.',
    resolve: () => false,
  }),
  emailsEnabled: t.boolean({ nullable: true, description: 'forgegate has no per-group switch for notification emails: true.', resolve: () => true }),
}));

// ---- Mutations --------------------------------------------------------------------------

/** `gid://gitlab/Epic/7` (or a plain id) as the epic's database id. */
export function epicId(value: string | number, name = 'id'): number {
  const match = /^(?:gid:\/\/gitlab\/Epic\/)?(\d{1,15})$/.exec(String(value));
  if (!match) throw new ParamError(`${name}: "${value}" is not a valid Global ID of type Epic`);
  return Number(match[1]);
}

type Fields = InputFields;

type GroupInput = { groupPath?: string | number | null; groupId?: number | null };

const groupFields = (t: Fields) => ({
  groupPath: t.id({ description: 'Full path of the group the epic belongs to.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
});

function groupFromInput(ctx: Context, input: GroupInput, write = true) {
  if ((input.groupPath == null) === (input.groupId == null)) throw new ParamError('give exactly one of groupPath and groupId');
  return epicGroup(ctx, { id: input.groupId, fullPath: input.groupPath == null ? null : String(input.groupPath) }, { write });
}

const epicAttributeFields = (t: Fields) => ({
  title: t.string(),
  description: t.string(),
  confidential: t.boolean(),
  startDateFixed: t.string({ description: 'Fixed start date, `YYYY-MM-DD`.' }),
  startDateIsFixed: t.boolean({ description: 'Start date comes from startDateFixed, not from the child epics.' }),
  dueDateFixed: t.string({ description: 'Fixed due date, `YYYY-MM-DD`.' }),
  dueDateIsFixed: t.boolean({ description: 'Due date comes from dueDateFixed, not from the child epics.' }),
  color: t.string({ description: 'Hex code or colour name; behind the feature flag `epic_highlight_color`.' }),
  addLabelIds: t.idList({ description: 'Ids of labels to add.' }),
  addLabels: t.stringList({ description: 'Names of labels to add (created in the group when none of that name exists).' }),
  parentId: t.field({ type: 'EpicID', description: 'ID of the parent epic; null makes the epic top-level.' }),
});

const CreateEpicInput = mutationInput('CreateEpicInput', (t) => ({
  ...groupFields(t),
  ...epicAttributeFields(t),
  createdAt: t.field({ type: 'Time', description: 'Creation time; administrators and group Owners only, ignored for others.' }),
}));

const epicRefFields = (t: Fields) => ({ ...groupFields(t), iid: t.id({ required: true, description: 'IID of the epic.' }) });

const UpdateEpicInput = mutationInput('UpdateEpicInput', (t) => ({
  ...epicRefFields(t),
  ...epicAttributeFields(t),
  removeLabelIds: t.idList({ description: 'Ids of labels to remove.' }),
  removeLabels: t.stringList({ description: 'Names of labels to remove.' }),
  labels: t.stringList({ description: 'Names of every label the epic keeps; [] removes them all.' }),
  stateEvent: t.field({ type: EpicStateEventEnum }),
  updatedAt: t.field({ type: 'Time', description: 'Update time; administrators and group Owners only, ignored for others.' }),
}));

const DestroyEpicInput = mutationInput('DestroyEpicInput', (t) => epicRefFields(t));

const EpicSetSubscriptionInput = mutationInput('EpicSetSubscriptionInput', (t) => ({ ...epicRefFields(t), subscribedState: t.boolean({ required: true }) }));

/** Nests an existing epic under the epic named by group and iid. */
const EpicAddChildInput = mutationInput('EpicAddChildInput', (t) => ({
  ...epicRefFields(t),
  childId: t.id({ required: true, description: 'Global id of the child epic.' }),
}));

/** Moves an epic under another parent, or to the top level when newParentId is null. */
const EpicMoveChildInput = mutationInput('EpicMoveChildInput', (t) => ({
  id: t.id({ required: true, description: 'Global id of the epic to move.' }),
  newParentId: t.id({ description: 'Global id of the new parent; null makes the epic top-level.' }),
}));

const MoveTypeEnum = builder.enumType('MoveType', {
  description: 'The position to which the adjacent object should be moved.',
  values: {
    before: { value: 'before', description: 'Adjacent object is moved before the object that is being moved.' },
    after: { value: 'after', description: 'Adjacent object is moved after the object that is being moved.' },
  } as const,
});

const EpicTreeNodeFieldsInput = builder.inputType('EpicTreeNodeFieldsInputType', {
  description: 'A node of an epic tree.',
  fields: (t) => ({
    id: t.field({ type: 'EpicID', required: true, description: 'ID of the epic to be moved.' }),
    adjacentReferenceId: t.field({ type: 'EpicID', description: 'ID of the epic next to which the moved epic lands.' }),
    relativePosition: t.field({ type: MoveTypeEnum, description: 'Where the adjacent epic goes: before or after the moved one.' }),
    newParentId: t.field({ type: 'EpicID', description: 'ID of the new parent epic.' }),
  }),
});

const EpicTreeReorderInput = mutationInput('EpicTreeReorderInput', (t) => ({
  baseEpicId: t.field({ type: 'EpicID', required: true, description: 'ID of the base epic of the tree.' }),
  moved: t.field({ type: EpicTreeNodeFieldsInput, required: true, description: 'Parameters for updating the tree positions.' }),
}));

const EpicTreeReorderPayload = builder.objectRef<{ errors: string[]; clientMutationId?: string | null }>('EpicTreeReorderPayload').implement({
  fields: (t) => ({ errors: payloadErrorsField(t), clientMutationId: payloadClientMutationIdField(t) }),
});

/** An epic named the way GitLab's generic mutations take one, or by group and iid (as REST does). */
const epicTargetFields = <N extends string>(t: Fields, idName: N) => ({
  ...({ [idName]: t.id({ description: 'Global id of the epic, e.g. `gid://gitlab/Epic/7`.' }) } as Record<N, ReturnType<Fields['id']>>),
  ...groupFields(t),
  epicIid: t.id({ description: 'IID of the epic in the group (with groupPath or groupId, instead of a global id).' }),
});

type EpicTarget = GroupInput & { epicIid?: string | number | null } & Record<string, unknown>;

async function epicFromTarget(ctx: Context, input: EpicTarget, idName: string): Promise<Epic> {
  const byId = input[idName] != null;
  const byIid = input.epicIid != null;
  if (byId === byIid) throw new ParamError(`give exactly one of ${idName} and epicIid`);
  if (byId) {
    requireEpicsFeature(ctx);
    const epic = await findEpicById(ctx, epicId(input[idName] as string, idName));
    if (!epic) throw new ParamError(`${idName}: the epic does not exist or is not visible`);
    return epic;
  }
  const group = await groupFromInput(ctx, input, false);
  const epic = await findEpic(ctx, group, iidNumber(input.epicIid!, 'epicIid'));
  if (!epic) throw new ForbiddenError();
  return epic;
}

const TodoCreateInput = mutationInput('TodoCreateInput', (t) => epicTargetFields(t, 'targetId'));

const AwardEmojiAddInput = mutationInput('AwardEmojiAddInput', (t) => ({
  ...epicTargetFields(t, 'awardableId'),
  name: t.string({ required: true, description: 'Emoji name.' }),
}));

const AwardEmojiRemoveInput = mutationInput('AwardEmojiRemoveInput', (t) => ({
  ...epicTargetFields(t, 'awardableId'),
  name: t.string({ description: "Emoji name: removes the viewer's award of this emoji." }),
  awardId: t.int({ description: 'Id of an award to remove instead (its user or an administrator).' }),
}));

const TodoActionEnum = builder.enumType('TodoActionEnum', { values: { marked: { value: 'marked' } } as const });
const TodoStateEnum = builder.enumType('TodoStateEnum', { values: { pending: { value: 'pending' }, done: { value: 'done' } } as const });
const TodoTargetEnum = builder.enumType('TodoTargetEnum', { values: { EPIC: { value: 'EPIC' }, ALERT: { value: 'ALERT' } } as const });

/** A to-do's epic, when it is an epic's and the viewer may still read it. */
const todoEpic = async (ctx: Context, todo: Todo) => (todo.epicId == null ? null : findEpicById(ctx, todo.epicId));

/**
 * GitLab's Todo, for every target a to-do can have (epics here, alerts in the alerts area, which
 * adds the fields that read its targets' projects).
 */
export const TodoRef = builder.objectRef<Todo>('Todo').implement({
  description: 'A to-do of the current user.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (todo) => gid('Todo', todo.id) }),
    databaseId: t.exposeInt('id'),
    action: t.field({ type: TodoActionEnum, nullable: false, resolve: () => 'marked' as const }),
    state: t.field({ type: TodoStateEnum, nullable: false, resolve: (todo) => todo.state }),
    targetType: t.field({ type: TodoTargetEnum, nullable: false, resolve: (todo) => (todo.alertId == null ? 'EPIC' : 'ALERT') }),
    target: t.field({
      type: EpicRef,
      nullable: true,
      description: "The epic of an epic's to-do; null once the viewer may no longer read it, and for other targets.",
      resolve: async (todo, _a, ctx) => {
        const epic = await todoEpic(ctx, todo);
        return epic && within(null)(epic);
      },
    }),
    targetUrl: t.string({
      nullable: true,
      resolve: async (todo, _a, ctx) => {
        const epic = await todoEpic(ctx, todo);
        return epic && `${ctx.deps.config.externalUrl}${await epicWebPath(ctx, epic)}`;
      },
    }),
    body: t.string({ nullable: true, resolve: async (todo, _a, ctx) => (await todoEpic(ctx, todo))?.title ?? null }),
    author: t.field({ type: UserRef, nullable: true, resolve: (todo, _a, ctx) => (todo.authorId == null ? null : ctx.loaders.user.load(todo.authorId)) }),
    group: t.field({ type: GroupRef, nullable: true, resolve: (todo, _a, ctx) => (todo.groupId == null ? null : ctx.loaders.namespace.load(todo.groupId)) }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

/** GitLab's TodoConnection: the one connection type of to-dos, for every field that lists them. */
export const TodoConnectionRef = builder.connectionObject({ type: TodoRef, name: 'TodoConnection' }, { name: 'TodoEdge' });

/** GitLab's `CurrentUser.todos`: the viewer's to-do list, whatever the targets (REST `GET /todos`). */
builder.objectFields(CurrentUserRef, (t) => ({
  todos: t.connection(
    {
      type: TodoRef,
      nullable: true,
      description: 'To-do items of the user.',
      args: {
        action: t.arg({ type: [TodoActionEnum], description: 'Action to be filtered.' }),
        authorId: t.arg({ type: ['ID'], description: 'ID of an author.' }),
        projectId: t.arg({ type: ['ID'], description: 'ID of a project.' }),
        groupId: t.arg({ type: ['ID'], description: 'ID of a group.' }),
        state: t.arg({ type: [TodoStateEnum], description: 'State of the todo.' }),
        type: t.arg({ type: [TodoTargetEnum], description: 'Type of the todo.' }),
      },
      resolve: (_u, args, ctx) => pagedConnection(args, viewerTodos(ctx, args)),
    },
    TodoConnectionRef,
  ),
}));

const TodosMarkAllDoneInput = mutationInput('TodosMarkAllDoneInput', () => ({}));

type TodosPayload = { todos: Todo[] | null; errors: string[]; clientMutationId?: string | null };

/** GitLab's TodosMarkAllDonePayload: the to-dos it marked, a list (which `payloadType` does not make). */
const TodosMarkAllDonePayload = builder.objectRef<TodosPayload>('TodosMarkAllDonePayload').implement({
  fields: (t) => ({
    todos: t.field({ type: [TodoRef], nullable: false, description: 'Updated to-do items.', resolve: (p) => p.todos ?? [] }),
    errors: payloadErrorsField(t),
    clientMutationId: payloadClientMutationIdField(t),
  }),
});

const TodoMarkDoneInput = mutationInput('TodoMarkDoneInput', (t) => ({
  id: t.field({ type: 'TodoID', required: true, description: 'Global ID of the to-do item to mark as done.' }),
}));

const EpicPayload = (name: string) => payloadType(name, 'epic', EpicRef);

const labelIds = (ids: (string | number)[] | null | undefined) =>
  ids?.map((id) => {
    const match = /^(?:gid:\/\/gitlab\/(?:Group|Project)?Label\/)?(\d{1,15})$/.exec(String(id));
    if (!match) throw new ParamError(`"${id}" is not a valid Global ID of type Label`);
    return Number(match[1]);
  });

/** `parentId` of an input: undefined when absent, null when explicitly null (remove), else the id. */
const parentIdOf = (value: string | number | null | undefined) => (value === undefined ? undefined : value === null ? null : epicId(value, 'parentId'));

builder.mutationFields((t) => ({
  createEpic: t.field({
    type: EpicPayload('CreateEpicPayload'),
    args: { input: t.arg({ type: CreateEpicInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const group = await groupFromInput(ctx, input);
      const colorAllowed = await epicColorEnabled(ctx);
      return asPayload(
        'epic',
        async () =>
          within(group)(
            await createEpic(
              ctx,
              group,
              { ...input, labels: input.addLabels, labelIds: labelIds(input.addLabelIds), parentId: input.parentId },
              { colorAllowed },
            ),
          ),
        input,
      );
    },
  }),
  updateEpic: t.field({
    type: EpicPayload('UpdateEpicPayload'),
    args: { input: t.arg({ type: UpdateEpicInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const group = await groupFromInput(ctx, input);
      const colorAllowed = await epicColorEnabled(ctx);
      const changes = {
        ...input,
        addLabelIds: labelIds(input.addLabelIds),
        removeLabelIds: labelIds(input.removeLabelIds),
        parentId: input.parentId,
      };
      return asPayload('epic', async () => within(group)(await updateEpic(ctx, group, iidNumber(input.iid), changes, { colorAllowed })), input);
    },
  }),
  destroyEpic: t.field({
    type: EpicPayload('DestroyEpicPayload'),
    args: { input: t.arg({ type: DestroyEpicInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const group = await groupFromInput(ctx, input);
      return asPayload('epic', async () => within(group)(await destroyEpic(ctx, group, iidNumber(input.iid))), input);
    },
  }),
  epicSetSubscription: t.field({
    type: EpicPayload('EpicSetSubscriptionPayload'),
    args: { input: t.arg({ type: EpicSetSubscriptionInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const group = await groupFromInput(ctx, input);
      return asPayload('epic', async () => within(group)(await setSubscription(ctx, group, iidNumber(input.iid), input.subscribedState)), input);
    },
  }),
  epicAddChild: t.field({
    type: EpicPayload('EpicAddChildPayload'),
    description: 'Nests an epic under this one; the payload carries the parent.',
    args: { input: t.arg({ type: EpicAddChildInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const group = await groupFromInput(ctx, input);
      const parent = await findEpic(ctx, group, iidNumber(input.iid));
      return asPayload(
        'epic',
        async () => {
          if (!parent) throw new ForbiddenError();
          await moveEpic(ctx, epicId(input.childId, 'childId'), parent.id, { mustBeNew: true });
          return within(group)(parent);
        },
        input,
      );
    },
  }),
  epicMoveChild: t.field({
    type: EpicPayload('EpicMoveChildPayload'),
    description: 'Moves an epic to another parent or to the top level; the payload carries the moved epic.',
    args: { input: t.arg({ type: EpicMoveChildInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('epic', async () => within(null)(await moveEpic(ctx, epicId(input.id), parentIdOf(input.newParentId) ?? null)), input),
  }),
  epicTreeReorder: t.field({
    type: EpicTreeReorderPayload,
    description: "Moves an epic within the epic tree, next to a sibling, or under a new parent (GitLab's epic tree drag and drop).",
    args: { input: t.arg({ type: EpicTreeReorderInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'moved',
        () =>
          reorderEpicTree(ctx, input.baseEpicId, {
            id: input.moved.id,
            adjacentId: input.moved.adjacentReferenceId,
            position: input.moved.relativePosition,
            newParentId: input.moved.newParentId,
          }),
        input,
      ),
  }),
  todoCreate: t.field({
    type: payloadType('TodoCreatePayload', 'todo', TodoRef),
    description: 'Marks an epic as a to-do of the current user; `todo` is null when one is already pending.',
    args: { input: t.arg({ type: TodoCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      if (!ctx.viewer.user) throw new UnauthorizedError();
      const epic = await epicFromTarget(ctx, input, 'targetId');
      return asPayload('todo', () => markTodo(ctx, epic), input);
    },
  }),
  todoMarkDone: t.field({
    type: payloadType('TodoMarkDonePayload', 'todo', TodoRef),
    description: "Marks a to-do of the current user as done (any target: the alert sidebar's to-do button).",
    args: { input: t.arg({ type: TodoMarkDoneInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('todo', () => markTodoDone(ctx, input.id), input),
  }),
  todosMarkAllDone: t.field({
    type: TodosMarkAllDonePayload,
    description: 'Marks every pending to-do of the current user as done; `todos` are the ones it marked.',
    args: { input: t.arg({ type: TodosMarkAllDoneInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('todos', () => markAllTodosDone(ctx), input),
  }),
  awardEmojiAdd: t.field({
    type: payloadType('AwardEmojiAddPayload', 'awardEmoji', AwardEmojiRef),
    args: { input: t.arg({ type: AwardEmojiAddInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      if (!ctx.viewer.user) throw new UnauthorizedError();
      const epic = await epicFromTarget(ctx, input, 'awardableId');
      return asPayload('awardEmoji', () => addAward(ctx, epic, input.name), input);
    },
  }),
  awardEmojiRemove: t.field({
    type: payloadType('AwardEmojiRemovePayload', 'awardEmoji', AwardEmojiRef),
    args: { input: t.arg({ type: AwardEmojiRemoveInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      if (!ctx.viewer.user) throw new UnauthorizedError();
      const epic = await epicFromTarget(ctx, input, 'awardableId');
      return asPayload('awardEmoji', () => removeAward(ctx, epic, { name: input.name, awardId: input.awardId }), input);
    },
  }),
}));
