import type { AwardEmoji, Epic, Namespace, Todo } from '../../generated/prisma/client.ts';
import { defineAbility, hiddenUnless } from '../../graphql/abilities.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { ForbiddenError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/index.ts';
import { LabelRef } from '../labels/index.ts';
import { textColor } from '../labels/service.ts';
import { renderMarkdown } from '../releases/markdown.ts';
import { UserRef } from '../users/index.ts';
import { addAward, emojiNamed, removeAward } from './award-emoji.ts';
import {
  abilities,
  ancestorsOf,
  childrenOf,
  compositeDates,
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
  moveEpic,
  parentOf,
  requireEpicsFeature,
  setSubscription,
  updateEpic,
  type EpicFilter,
} from './service.ts';

/**
 * An epic as GraphQL hands it out, with the group it was requested from: `references.relative`
 * is relative to that group, and nested epics (parent, children, ancestors) keep it.
 */
export type EpicNode = Epic & { from?: Namespace | null };

const within =
  (from: Namespace | null | undefined) =>
  (epic: Epic): EpicNode => ({ ...epic, from });

export const EpicStateEnum = builder.enumType('EpicState', {
  description: 'State of an epic.',
  values: { all: { value: 'all' }, opened: { value: 'opened' }, closed: { value: 'closed' } } as const,
});

const EpicStateEventEnum = builder.enumType('EpicStateEvent', {
  description: 'State event of an epic.',
  values: { REOPEN: { value: 'reopen' }, CLOSE: { value: 'close' } } as const,
});

const EpicSortEnum = builder.enumType('EpicSort', {
  description: 'Roadmap sort values.',
  values: EPIC_SORTS,
});

const epicWebPath = async (ctx: Context, e: Epic) => `/groups/${(await ctx.loaders.namespace.load(e.groupId))!.fullPath}/-/epics/${e.iid}`;

const apiUrl = (ctx: Context, path: string) => `${ctx.deps.config.externalUrl}/api/v4${path}`;

const dates = (ctx: Context, e: Epic) => compositeDates(ctx, e);

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
  description: 'What the viewer may do with an epic.',
  fields: (t) => ({
    readEpic: t.boolean({ resolve: () => true }),
    adminEpic: t.boolean({ resolve: async (e, _a, ctx) => (await abilities(ctx, e.groupId)).admin }),
    updateEpic: t.boolean({ resolve: async (e, _a, ctx) => (await abilities(ctx, e.groupId)).admin }),
    destroyEpic: t.boolean({ resolve: async (e, _a, ctx) => (await abilities(ctx, e.groupId)).destroy }),
    awardEmoji: t.boolean({ resolve: (_e, _a, ctx) => ctx.viewer.user != null }),
    createNote: t.boolean({ resolve: (_e, _a, ctx) => ctx.viewer.user != null }),
  }),
});

const DescendantCountsRef = builder.objectRef<{ openedEpics: number; closedEpics: number }>('EpicDescendantCount').implement({
  description: 'Counts of descendant epics (issues are not part of forgegate, so their counts are zero).',
  fields: (t) => ({
    openedEpics: t.exposeInt('openedEpics'),
    closedEpics: t.exposeInt('closedEpics'),
    openedIssues: t.int({ resolve: () => 0 }),
    closedIssues: t.int({ resolve: () => 0 }),
  }),
});

export const AwardEmojiRef = builder.objectRef<AwardEmoji>('AwardEmoji').implement({
  description: 'An emoji awarded by a user.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Id of the award (REST `id`).' }),
    awardableId: t.exposeInt('epicId', { description: 'Id of the epic the emoji was awarded to (REST `awardable_id`).' }),
    name: t.exposeString('name'),
    emoji: t.string({ resolve: async (a) => (await emojiNamed(a.name))?.emoji ?? '' }),
    description: t.string({ resolve: async (a) => (await emojiNamed(a.name))?.description ?? '' }),
    unicode: t.string({ resolve: async (a) => [...((await emojiNamed(a.name))?.emoji ?? '')].map((c) => c.codePointAt(0)!.toString(16)).join('-') }),
    user: t.field({ type: UserRef, resolve: async (a, _a, ctx) => (await ctx.loaders.user.load(a.userId))! }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

export const EpicRef = builder.objectRef<EpicNode>('Epic');

EpicRef.implement({
  description: 'A group epic.',
  fields: (t) => ({
    id: t.id({ description: 'Global id, `gid://gitlab/Epic/<id>`.', resolve: (e) => gid('Epic', e.id) }),
    databaseId: t.exposeInt('id'),
    iid: t.id({ resolve: (e) => String(e.iid) }),
    title: t.exposeString('title'),
    description: t.string({ nullable: true, resolve: (e) => e.description }),
    descriptionHtml: t.string({ nullable: true, resolve: (e) => (e.description == null ? null : renderMarkdown(e.description)) }),
    state: t.field({ type: EpicStateEnum, resolve: (e) => e.state }),
    confidential: t.exposeBoolean('confidential'),
    color: t.string({
      nullable: true,
      description: 'Behind the feature flag `epic_highlight_color`.',
      resolve: async (e, _a, ctx) => ((await epicColorEnabled(ctx)) ? e.color : null),
    }),
    textColor: t.string({ nullable: true, resolve: async (e, _a, ctx) => ((await epicColorEnabled(ctx)) ? textColor(e.color) : null) }),
    author: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => (e.authorId == null ? null : ctx.loaders.user.load(e.authorId)) }),
    group: t.field({ type: GroupRef, resolve: async (e, _a, ctx) => (await ctx.loaders.namespace.load(e.groupId))! }),
    parent: t.field({
      type: EpicRef,
      nullable: true,
      resolve: async (e, _a, ctx) => {
        const parent = await parentOf(ctx, e);
        return parent && within(e.from)(parent);
      },
    }),
    hasParent: t.boolean({ resolve: (e) => e.parentId != null }),
    children: t.connection({ type: EpicRef, resolve: async (e, args, ctx) => listConnection(args, (await childrenOf(ctx, e)).map(within(e.from))) }),
    hasChildren: t.boolean({ resolve: async (e, _a, ctx) => (await childrenOf(ctx, e)).length > 0 }),
    ancestors: t.connection({
      type: EpicRef,
      description: 'Ancestors of the epic, its parent first.',
      resolve: async (e, args, ctx) => listConnection(args, (await ancestorsOf(ctx, e)).map(within(e.from))),
    }),
    descendantCounts: t.field({ type: DescendantCountsRef, resolve: (e, _a, ctx) => ctx.loaders.epics.descendantCounts.load(e.id) }),
    labels: t.connection({ type: LabelRef, resolve: async (e, args, ctx) => listConnection(args, await ctx.loaders.epics.labels.load(e.id)) }),
    startDate: t.field({ type: 'Time', nullable: true, resolve: async (e, _a, ctx) => (await dates(ctx, e)).startDate }),
    startDateIsFixed: t.boolean({ nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.startDateIsFixed }),
    startDateFixed: t.field({ type: 'Time', nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.startDateFixed }),
    startDateFromInheritedSource: t.field({
      type: 'Time',
      nullable: true,
      description: 'Earliest start among the child epics; for those who may edit the epic.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await dates(ctx, e)).startDateFromInheritedSource,
    }),
    startDateFromMilestones: t.field({
      type: 'Time',
      nullable: true,
      deprecationReason: 'Use startDateFromInheritedSource.',
      resolve: async (e, _a, ctx) => (await dates(ctx, e)).startDateFromInheritedSource,
    }),
    dueDate: t.field({ type: 'Time', nullable: true, resolve: async (e, _a, ctx) => (await dates(ctx, e)).dueDate }),
    dueDateIsFixed: t.boolean({ nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.dueDateIsFixed }),
    dueDateFixed: t.field({ type: 'Time', nullable: true, description: 'For those who may edit the epic.', ...forEditors, resolve: (e) => e.dueDateFixed }),
    dueDateFromInheritedSource: t.field({
      type: 'Time',
      nullable: true,
      description: 'Latest due date among the child epics; for those who may edit the epic.',
      ...forEditors,
      resolve: async (e, _a, ctx) => (await dates(ctx, e)).dueDateFromInheritedSource,
    }),
    dueDateFromMilestones: t.field({
      type: 'Time',
      nullable: true,
      deprecationReason: 'Use dueDateFromInheritedSource.',
      resolve: async (e, _a, ctx) => (await dates(ctx, e)).dueDateFromInheritedSource,
    }),
    closedAt: t.field({ type: 'Time', nullable: true, resolve: (e) => e.closedAt }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    upvotes: t.int({ resolve: async (e, _a, ctx) => (await ctx.loaders.epics.awardCounts.load(e.id)).upvotes }),
    downvotes: t.int({ resolve: async (e, _a, ctx) => (await ctx.loaders.epics.awardCounts.load(e.id)).downvotes }),
    awardEmoji: t.connection({ type: AwardEmojiRef, resolve: async (e, args, ctx) => listConnection(args, await ctx.loaders.epics.awards.load(e.id)) }),
    subscribed: t.boolean({ resolve: (e, _a, ctx) => isSubscribed(ctx, e) }),
    webPath: t.string({ resolve: (e, _a, ctx) => epicWebPath(ctx, e) }),
    webUrl: t.string({ resolve: async (e, _a, ctx) => `${ctx.deps.config.externalUrl}${await epicWebPath(ctx, e)}` }),
    reference: t.string({
      args: { full: t.arg.boolean({ defaultValue: false }) },
      resolve: async (e, { full }, ctx) => {
        const refs = await epicReferences(ctx, e, e.from ?? null);
        return full ? refs.full : refs.relative;
      },
    }),
    references: t.field({ type: IssuableReferencesRef, resolve: (e, _a, ctx) => epicReferences(ctx, e, e.from ?? null) }),
    links: t.field({ type: EpicLinksRef, description: "GitLab's `_links` of the REST entity.", resolve: (e) => e }),
    userPermissions: t.field({ type: EpicPermissionsRef, resolve: (e) => e }),
  }),
});

const NegatedEpicFilterInput = builder.inputType('NegatedEpicFilterInput', {
  fields: (t) => ({
    labelName: t.stringList({ description: 'Filter by label name.' }),
    authorUsername: t.string({ description: 'Filter by author username.' }),
    authorId: t.int({ description: 'Filter by author id (REST `not[author_id]`).' }),
    myReactionEmoji: t.string({ description: 'Filter by reaction emoji applied by the current user.' }),
  }),
});

const iidNumber = (value: string | number, name = 'iid') => {
  const text = String(value);
  if (!/^\d{1,15}$/.test(text)) throw new ParamError(`${name} must be a positive integer`);
  return Number(text);
};

builder.objectFields(GroupRef, (t) => ({
  epics: t.connection({
    type: EpicRef,
    description: 'Epics of the group and, by default, its subgroups.',
    args: {
      iid: t.arg.id(),
      iids: t.arg.idList(),
      state: t.arg({ type: EpicStateEnum }),
      search: t.arg.string({ description: 'Search in the title and the description.' }),
      sort: t.arg({ type: EpicSortEnum }),
      authorUsername: t.arg.string(),
      authorId: t.arg.int({ description: 'Filter by author id (REST `author_id`).' }),
      labelName: t.arg.stringList({ description: 'Epics with all these labels; `None` for no label, `Any` for any.' }),
      includeAncestorGroups: t.arg.boolean({ defaultValue: false }),
      includeDescendantGroups: t.arg.boolean({ defaultValue: true }),
      confidential: t.arg.boolean(),
      myReactionEmoji: t.arg.string({ description: 'An emoji name, `None` or `Any`.' }),
      createdAfter: t.arg({ type: 'Time' }),
      createdBefore: t.arg({ type: 'Time' }),
      updatedAfter: t.arg({ type: 'Time' }),
      updatedBefore: t.arg({ type: 'Time' }),
      not: t.arg({ type: NegatedEpicFilterInput }),
    },
    resolve: async (g, { iid, iids, ...args }, ctx) => {
      const filter: EpicFilter = { ...args, iids: [...(iid != null ? [iid] : []), ...(iids ?? [])].map((i) => iidNumber(i)) };
      const listing = await listEpics(ctx, g, filter);
      return pagedConnection(args, { ...listing, fetch: async (page) => (await listing.fetch(page)).map(within(g)) });
    },
  }),
  epic: t.field({
    type: EpicRef,
    nullable: true,
    description: 'An epic of the group by iid; null when it does not exist or is not visible.',
    args: { iid: t.arg.id({ required: true }) },
    resolve: async (g, { iid }, ctx) => {
      requireEpicsFeature(ctx);
      const epic = await findEpic(ctx, g, iidNumber(iid));
      return epic && within(g)(epic);
    },
  }),
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
