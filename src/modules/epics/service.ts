import { containsIgnoringCase, equalsIgnoringCase } from '../../core/input.ts';
import type { Epic, Namespace, Prisma, Todo } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { nextIid } from '../../core/store.ts';
import type { Listing } from '../../core/listing.ts';
import { keysetOf, nullsLastSeek, readParts, seekWhere, type SortKey } from '../../db/keyset.ts';
import { ForbiddenError, FullMessagesError, NotFoundError, ParamError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { lockKey } from '../../db/locks.ts';
import { requireGroup, type GroupRef } from '../groups/service.ts';
import { findOrCreateLabels, normalizeColor } from '../labels/service.ts';
import { groupParent } from '../parents/parent.ts';
import type { EpicAbilities } from './loaders.ts';
import { recomputeDates, refreshDates, selfAndAncestorIds, subtreeDepth } from './store.ts';
import { loadExisting } from '../../core/loaders.ts';

export const MAX_DESCRIPTION_LENGTH = 1_048_576;
const MAX_TITLE_LENGTH = 255;
// GitLab's MAX_HIERARCHY_DEPTH: no chain of epics may be longer.
export const MAX_HIERARCHY_DEPTH = 7;

export type EpicState = 'opened' | 'closed';

/** The epics feature is per instance (GitLab's licensed `epics`); off, every epic call is 403. */
export function requireEpicsFeature(ctx: Context) {
  if (!ctx.deps.config.epicsEnabled) throw new ForbiddenError();
}

function requireSignedIn(ctx: Context) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
}

/**
 * The group an epic operation names, in GitLab's order: a write needs a signed-in viewer (401),
 * the group must be visible (404), the feature on (403).
 */
export async function epicGroup(ctx: Context, ref: GroupRef, opts: { write: boolean }): Promise<Namespace> {
  if (opts.write) requireSignedIn(ctx);
  const group = await requireGroup(ctx, ref);
  requireEpicsFeature(ctx);
  return group;
}

export const abilities = (ctx: Context, groupId: number): Promise<EpicAbilities> => ctx.loaders.epics.abilities.load(groupId);

export async function canReadEpic(ctx: Context, epic: Epic): Promise<boolean> {
  const can = await abilities(ctx, epic.groupId);
  return epic.confidential ? can.readConfidential : can.read;
}

/** The epic when the viewer may read it, else null (nested fields hide what the viewer may not see). */
export async function visible(ctx: Context, epic: Epic | null): Promise<Epic | null> {
  return epic && (await canReadEpic(ctx, epic)) ? epic : null;
}

export async function visibleAll(ctx: Context, epics: Epic[]): Promise<Epic[]> {
  const readable = await Promise.all(epics.map((e) => canReadEpic(ctx, e)));
  return epics.filter((_, i) => readable[i]);
}

export async function findEpic(ctx: Context, group: Namespace, iid: number): Promise<Epic | null> {
  return visible(ctx, await ctx.loaders.epics.byIid.load(group.id, iid));
}

export const findEpicById = async (ctx: Context, id: number) => visible(ctx, await ctx.loaders.epics.byId.load(id));

/** GitLab looks an epic up and then authorizes it, so a missing one is 403 like a forbidden one. */
async function epicToChange(ctx: Context, group: Namespace, iid: number, allowed: (can: EpicAbilities) => boolean): Promise<Epic> {
  const epic = await findEpic(ctx, group, iid);
  if (!epic || !allowed(await abilities(ctx, epic.groupId))) throw new ForbiddenError();
  return epic;
}

// ---- Listing ----------------------------------------------------------------------------

export const EPIC_SORTS = [
  'CREATED_AT_DESC',
  'CREATED_AT_ASC',
  'UPDATED_AT_DESC',
  'UPDATED_AT_ASC',
  'TITLE_DESC',
  'TITLE_ASC',
  'START_DATE_DESC',
  'START_DATE_ASC',
  'END_DATE_DESC',
  'END_DATE_ASC',
] as const;
export type EpicSort = (typeof EPIC_SORTS)[number];

/** The roadmap's sorts, by the composite (fixed or inherited) dates. */
type DateSort = Extract<EpicSort, `START_DATE_${string}` | `END_DATE_${string}`>;
const isDateSort = (sort: EpicSort | null | undefined): sort is DateSort => sort != null && /^(START|END)_DATE_/.test(sort);

/** The stored composite date a roadmap sort reads, named in cursors as GitLab's columns are. */
const DATE_COLUMNS: Record<string, SortKey> = {
  START_DATE: { key: 'start_date', column: 'startDate', kind: 'time?' },
  END_DATE: { key: 'end_date', column: 'dueDate', kind: 'time?' },
};

/** A date sort's column and direction; the id, descending either way, breaks ties (GitLab's `keyset_pagination_for`). */
function dateOrder(sort: DateSort): { key: SortKey; ascending: boolean } {
  const [, name, direction] = /^(.*)_(ASC|DESC)$/.exec(sort)!;
  return { key: DATE_COLUMNS[name!]!, ascending: direction === 'ASC' };
}

/** A closed range of calendar days (GitLab's `Timeframe`). */
export type Timeframe = { start: Date; end: Date };

/** GitLab's `UnionedEpicFilterInput`: any of the authors, any of the labels. */
export type UnionedEpicFilter = { authorUsernames?: string[] | null; labelNames?: string[] | null };

export type NegatedEpicFilter = { labelName?: string[] | null; authorId?: number | null; authorUsername?: string | null; myReactionEmoji?: string | null };

export type EpicFilter = {
  iids?: number[] | null;
  state?: EpicState | 'all' | null;
  search?: string | null;
  sort?: EpicSort | null;
  authorId?: number | null;
  authorUsername?: string | null;
  labelName?: string[] | null;
  includeAncestorGroups?: boolean | null;
  includeDescendantGroups?: boolean | null;
  confidential?: boolean | null;
  myReactionEmoji?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  not?: NegatedEpicFilter | null;
  or?: UnionedEpicFilter | null;
  /** Computed from the epic's issues in GitLab; forgegate has none, so a title matches no epic. */
  milestoneTitle?: string | null;
  /** Where `search` looks: the title, the description, or both (the default). */
  searchIn?: ('title' | 'description')[] | null;
  /** Epics overlapping the range by their composite dates; epics without dates are left out. */
  timeframe?: Timeframe | null;
  /** Top-level epics only. */
  topLevelHierarchyOnly?: boolean | null;
  /** Children of this epic only. */
  parentId?: number | null;
};

const isWord = (value: string, word: string) => value.toLowerCase() === word;

/** The groups a listing covers and, of those, where the viewer may see confidential epics. */
async function listedGroups(ctx: Context, group: Namespace, filter: EpicFilter) {
  const ids = new Set([group.id]);
  if (filter.includeDescendantGroups !== false) {
    const descendants = await ctx.db.namespace.findMany({ where: { kind: 'group', traversalIds: { has: group.id } }, select: { id: true } });
    for (const d of descendants) ids.add(d.id);
  }
  if (filter.includeAncestorGroups) for (const id of group.traversalIds) ids.add(id);
  const groupIds = [...ids];
  const can = await Promise.all(groupIds.map((id) => abilities(ctx, id)));
  return {
    readable: groupIds.filter((_, i) => can[i].read),
    confidential: groupIds.filter((_, i) => can[i].readConfidential),
  };
}

function labelWhere(names: string[]): Prisma.EpicWhereInput[] {
  if (names.length === 1 && isWord(names[0], 'none')) return [{ labels: { none: {} } }];
  if (names.length === 1 && isWord(names[0], 'any')) return [{ labels: { some: {} } }];
  return names.map((name) => ({ labels: { some: { label: { name } } } }));
}

/** `None`: no reaction of the viewer; `Any`: at least one; else that emoji. Anonymous viewers have none to filter by. */
function reactionWhere(ctx: Context, name: string): Prisma.EpicWhereInput | null {
  const userId = ctx.viewer.userId;
  if (userId == null) return null;
  if (isWord(name, 'none')) return { awardEmoji: { none: { userId } } };
  if (isWord(name, 'any')) return { awardEmoji: { some: { userId } } };
  return { awardEmoji: { some: { userId, name: normalizeEmojiName(name) } } };
}

function authorWhere(filter: { authorId?: number | null; authorUsername?: string | null }): Prisma.EpicWhereInput | null {
  if (filter.authorId != null) return { authorId: filter.authorId };
  // An empty name is no filter: GitLab's frontend sends `authorUsername: ""` by default.
  if (filter.authorUsername) return { author: { username: equalsIgnoringCase(filter.authorUsername) } };
  return null;
}

function negatedWhere(ctx: Context, not: NegatedEpicFilter): Prisma.EpicWhereInput[] {
  const author = authorWhere(not);
  const reaction =
    not.myReactionEmoji && ctx.viewer.userId != null
      ? { awardEmoji: { some: { userId: ctx.viewer.userId, name: normalizeEmojiName(not.myReactionEmoji) } } }
      : null;
  return [
    ...(not.labelName?.length ? [{ labels: { none: { label: { name: { in: not.labelName } } } } }] : []),
    ...(author ? [{ NOT: author }] : []),
    ...(reaction ? [{ NOT: reaction }] : []),
  ];
}

function searchWhere(search: string, fields: EpicFilter['searchIn']): Prisma.EpicWhereInput {
  const within = fields?.length ? fields : (['title', 'description'] as const);
  return { OR: within.map((field) => ({ [field]: containsIgnoringCase(search) })) };
}

function unionedWhere(or: UnionedEpicFilter): Prisma.EpicWhereInput[] {
  return [
    ...(or.authorUsernames?.length ? [{ OR: or.authorUsernames.map((name) => ({ author: { username: equalsIgnoringCase(name) } })) }] : []),
    ...(or.labelNames?.length ? [{ labels: { some: { label: { name: { in: or.labelNames } } } } }] : []),
  ];
}

/** The stored columns a sort reads, as the cursors of GitLab's keyset connections name them. */
const SORT_COLUMNS: Record<string, SortKey> = {
  CREATED_AT: { key: 'created_at', column: 'createdAt', kind: 'time' },
  UPDATED_AT: { key: 'updated_at', column: 'updatedAt', kind: 'time' },
  TITLE: { key: 'title', column: 'title', kind: 'text' },
};

/** A stored sort's keys (the id last: it breaks ties, so that pages never overlap) and direction. */
function storedOrder(sort: Exclude<EpicSort, DateSort> | null | undefined): { keys: SortKey[]; ascending: boolean } {
  const [, name, direction] = /^(.*)_(ASC|DESC)$/.exec(sort ?? 'CREATED_AT_DESC')!;
  return { keys: [SORT_COLUMNS[name!]!, { key: 'id', column: 'id', kind: 'int' }], ascending: direction === 'ASC' };
}

/** The list's order; the date sorts put epics without the date last either way, as GitLab does. */
function orderBy(sort: EpicSort | null | undefined): Prisma.EpicOrderByWithRelationInput[] {
  if (isDateSort(sort)) {
    const { key, ascending } = dateOrder(sort);
    return [{ [key.column]: { sort: ascending ? 'asc' : 'desc', nulls: 'last' } }, { id: 'desc' }];
  }
  const { keys, ascending } = storedOrder(sort);
  return keys.map((k) => ({ [k.column]: ascending ? 'asc' : 'desc' }));
}

/** GitLab's `within_timeframe` over the stored composite dates: a date on either end, and no date outside the range. */
function timeframeWhere(timeframe: Timeframe): Prisma.EpicWhereInput[] {
  return [
    { OR: [{ startDate: { not: null } }, { dueDate: { not: null } }] },
    { OR: [{ startDate: null }, { startDate: { lte: timeframe.end } }] },
    { OR: [{ dueDate: null }, { dueDate: { gte: timeframe.start } }] },
  ];
}

const range = (after?: Date | null, before?: Date | null) => (after || before ? { ...(after && { gte: after }), ...(before && { lte: before }) } : undefined);

/** Epics of the group (and by default its subgroups) that the viewer may see, filtered as GitLab's EpicsFinder. */
export async function listEpics(ctx: Context, group: Namespace, filter: EpicFilter = {}): Promise<Listing<Epic>> {
  requireEpicsFeature(ctx);
  checkInput(
    rules.mutuallyExclusive(filter, { authorId: 'author_id', authorUsername: 'author_username' }),
    filter.not ? rules.mutuallyExclusive(filter.not, { authorId: 'not[author_id]', authorUsername: 'not[author_username]' }) : null,
  );
  const groups = await listedGroups(ctx, group, filter);
  const author = authorWhere(filter);
  const reaction = filter.myReactionEmoji ? reactionWhere(ctx, filter.myReactionEmoji) : null;
  const and: Prisma.EpicWhereInput[] = [
    { groupId: { in: groups.readable } },
    { OR: [{ confidential: false }, { groupId: { in: groups.confidential } }] },
    ...(filter.state && filter.state !== 'all' ? [{ state: filter.state }] : []),
    ...(filter.iids?.length ? [{ iid: { in: filter.iids } }] : []),
    ...(filter.search ? [searchWhere(filter.search, filter.searchIn)] : []),
    ...(author ? [author] : []),
    ...(filter.labelName?.length ? labelWhere(filter.labelName) : []),
    ...(reaction ? [reaction] : []),
    ...(filter.confidential != null ? [{ confidential: filter.confidential }] : []),
    ...(filter.not ? negatedWhere(ctx, filter.not) : []),
    ...(filter.or ? unionedWhere(filter.or) : []),
    ...(filter.milestoneTitle ? [{ id: { in: [] } }] : []),
    ...(filter.topLevelHierarchyOnly ? [{ parentId: null }] : []),
    ...(filter.parentId != null ? [{ parentId: filter.parentId }] : []),
    ...(filter.timeframe ? timeframeWhere(filter.timeframe) : []),
  ];
  const createdAt = range(filter.createdAfter, filter.createdBefore);
  const updatedAt = range(filter.updatedAfter, filter.updatedBefore);
  const where: Prisma.EpicWhereInput = { AND: and, ...(createdAt && { createdAt }), ...(updatedAt && { updatedAt }) };
  return {
    fetch: ({ offset, limit }) => ctx.db.epic.findMany({ where, orderBy: orderBy(filter.sort), skip: offset, take: limit }),
    count: () => ctx.db.epic.count({ where, take: ctx.countLimit }),
    keyset: isDateSort(filter.sort) ? dateKeyset(ctx, where, filter.sort) : storedKeyset(ctx, where, filter.sort),
  };
}

function storedKeyset(ctx: Context, where: Prisma.EpicWhereInput, sort: Exclude<EpicSort, DateSort> | null | undefined) {
  const { keys, ascending } = storedOrder(sort);
  return keysetOf(keys, (seek) => {
    const past = seekWhere(keys, ascending, seek);
    return ctx.db.epic.findMany({ where: { AND: [where, ...past.where] }, orderBy: past.orderBy, take: seek.limit });
  });
}

/** A date sort seeks range by range (`nullsLastSeek`): at most three statements a page, each reading its page from an index. */
function dateKeyset(ctx: Context, where: Prisma.EpicWhereInput, sort: DateSort) {
  const { key, ascending } = dateOrder(sort);
  return keysetOf([key, { key: 'id', column: 'id', kind: 'int' }], (seek) => {
    const { parts, filter } = nullsLastSeek(key, ascending, seek);
    return readParts(parts, seek.limit, (part, take) =>
      ctx.db.epic.findMany({ where: { AND: [where, part.where, ...(filter ? [filter] : [])] }, orderBy: part.orderBy, take }),
    );
  });
}

/** GitLab's `within_timeframe` (`timeframeWhere` in memory): a date set on either end, and no set date outside the range. */
function withinTimeframe(dates: { startDate: Date | null; dueDate: Date | null }, timeframe: Timeframe): boolean {
  const { startDate, dueDate } = dates;
  if (startDate == null && dueDate == null) return false;
  return (startDate == null || startDate <= timeframe.end) && (dueDate == null || dueDate >= timeframe.start);
}

/** Visible children of an epic, in tree order (positioned ones first, then by creation). */
export async function childrenOf(ctx: Context, epic: Epic): Promise<Epic[]> {
  return visibleAll(ctx, await ctx.loaders.epics.children.load(epic.id));
}

/** Visible children of an epic whose dates overlap the timeframe; every visible child without one. */
export async function childrenWithinTimeframe(ctx: Context, epic: Epic, timeframe: Timeframe | null): Promise<Epic[]> {
  const children = await childrenOf(ctx, epic);
  return timeframe ? children.filter((child) => withinTimeframe(child, timeframe)) : children;
}

/** Visible ancestors of an epic, the parent first. */
export async function ancestorsOf(ctx: Context, epic: Epic): Promise<Epic[]> {
  const ids = await ctx.loaders.epics.ancestorIds.load(epic.id);
  return visibleAll(ctx, await loadExisting(ctx.loaders.epics.byId, ids));
}

export const parentOf = async (ctx: Context, epic: Epic) => (epic.parentId == null ? null : findEpicById(ctx, epic.parentId));

// ---- Dates ------------------------------------------------------------------------------

/** What the child epics give: the earliest start and the latest due date among their stored dates. */
export const inheritedDatesOf = (ctx: Context, epic: Epic) => ctx.loaders.epics.inheritedDates.load(epic.id);

// ---- References -------------------------------------------------------------------------

/** `&5` within the group, `group/path&5` elsewhere (GitLab: relative to the group it is requested from). */
export async function epicReferences(ctx: Context, epic: Epic, from: Namespace | null) {
  const group = (await ctx.loaders.namespace.load(epic.groupId))!;
  const short = `&${epic.iid}`;
  const full = `${group.fullPath}${short}`;
  return { short, relative: from == null || from.id === epic.groupId ? short : full, full };
}

// ---- Writes -----------------------------------------------------------------------------

export type EpicAttributes = {
  title?: string | null;
  description?: string | null;
  confidential?: boolean | null;
  startDateFixed?: string | null;
  startDateIsFixed?: boolean | null;
  dueDateFixed?: string | null;
  dueDateIsFixed?: boolean | null;
  color?: string | null;
  /** Database id of the parent epic; null removes the parent. */
  parentId?: number | null;
};

export type EpicCreateInput = EpicAttributes & { labels?: string[] | null; labelIds?: number[] | null; createdAt?: Date | null };

export type EpicUpdateInput = EpicAttributes & {
  /** Replaces every label; [] removes them all. */
  labels?: string[] | null;
  addLabels?: string[] | null;
  removeLabels?: string[] | null;
  addLabelIds?: number[] | null;
  removeLabelIds?: number[] | null;
  stateEvent?: 'close' | 'reopen' | null;
  updatedAt?: Date | null;
};

/** A calendar date `YYYY-MM-DD`; null or '' clears it. */
function calendarDate(value: string | null | undefined, field: string, errors: Record<string, string[]>): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const date = new Date(`${value}T00:00:00Z`);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)) return date;
  errors[field] = ['is not a valid date'];
  return undefined;
}

type Attributes = Omit<Prisma.EpicUncheckedUpdateInput, 'id'>;

/** The fixed dates and their flags, as columns. */
type FixedDates = { startDateIsFixed?: boolean | null; startDateFixed?: Date | null; dueDateIsFixed?: boolean | null; dueDateFixed?: Date | null };

/** Validates the plain attributes and turns them into columns; color only where the flag allows it. */
function attributes(input: EpicAttributes, opts: { creating: boolean; colorAllowed: boolean }): Attributes & FixedDates {
  const errors: Record<string, string[]> = {};
  if (opts.creating || input.title !== undefined) {
    if (input.title == null || input.title.trim() === '') errors.title = ["can't be blank"];
    else if (input.title.length > MAX_TITLE_LENGTH) errors.title = [`is too long (maximum is ${MAX_TITLE_LENGTH} characters)`];
  }
  if (input.description != null && input.description.length > MAX_DESCRIPTION_LENGTH) {
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION_LENGTH} characters)`];
  }
  const color = opts.colorAllowed && input.color != null ? normalizeColor(input.color) : undefined;
  if (color === null) errors.color = ['must be a valid color code'];
  const startDateFixed = calendarDate(input.startDateFixed, 'start_date_fixed', errors);
  const dueDateFixed = calendarDate(input.dueDateFixed, 'due_date_fixed', errors);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const given = <T>(value: T | null | undefined) => (value === null ? undefined : value);
  return {
    title: given(input.title),
    description: input.description,
    confidential: given(input.confidential),
    startDateIsFixed: given(input.startDateIsFixed),
    dueDateIsFixed: given(input.dueDateIsFixed),
    startDateFixed,
    dueDateFixed,
    ...(color && { color }),
  };
}

const epicTreeLock = (tx: Prisma.TransactionClient, group: Namespace) => lockKey(tx, `epic-tree:${group.traversalIds[0]}`);

const noMatchingParent = () => new ValidationError({ base: ['No matching epic found. Make sure that you are adding a valid epic URL.'] });

const nonConfidentialChild = (parent: Epic) =>
  new ValidationError({
    base: [`&${parent.iid} cannot be added: cannot assign a non-confidential epic to a confidential parent. Make the epic confidential and try again.`],
  });

/** A parent the viewer may nest under: readable, and in a group where the viewer manages epics. */
async function parentFor(ctx: Context, parentId: number): Promise<Epic> {
  const parent = await findEpicById(ctx, parentId);
  if (!parent || !(await abilities(ctx, parent.groupId)).admin) throw noMatchingParent();
  return parent;
}

const hierarchyError = (message: string) => new ValidationError({ parent: [`This epic cannot be added. ${message}`] });

/**
 * GitLab's checks for nesting `child` (in `childGroup`, confidential or not) under `parent`, run
 * under the tree lock so that two concurrent moves cannot build a cycle or too deep a chain.
 */
async function checkNesting(tx: Prisma.TransactionClient, child: { id?: number; confidential: boolean; group: Namespace }, parent: Epic) {
  if (child.id === parent.id) throw hierarchyError('An epic cannot be added to itself.');
  const chain = await selfAndAncestorIds(tx, parent.id, MAX_HIERARCHY_DEPTH);
  if (child.id != null && chain.includes(child.id)) throw hierarchyError('It is already an ancestor of the parent epic.');
  if (!child.group.traversalIds.includes(parent.groupId)) throw hierarchyError('An epic must belong to the same group or subgroup as its parent epic.');
  const depth = child.id != null ? await subtreeDepth(tx, child.id, MAX_HIERARCHY_DEPTH) : 1;
  if (depth + chain.length >= MAX_HIERARCHY_DEPTH) {
    throw hierarchyError(`One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`);
  }
  const current = await tx.epic.findUnique({ where: { id: parent.id }, select: { confidential: true } });
  if (current?.confidential && !child.confidential) throw nonConfidentialChild(parent);
}

async function labelIdsByName(ctx: Context, group: Namespace, names: string[] | null | undefined): Promise<number[]> {
  if (!names?.length) return [];
  return (await findOrCreateLabels(ctx, groupParent(group), names)).map((l) => l.id);
}

/** Label ids must name labels of the group or its ancestors; others are ignored, as GitLab does. */
async function availableLabelIds(ctx: Context, group: Namespace, ids: number[] | null | undefined): Promise<number[]> {
  if (!ids?.length) return [];
  const found = await ctx.db.label.findMany({ where: { id: { in: ids }, groupId: { in: group.traversalIds } }, select: { id: true } });
  return found.map((l) => l.id);
}

/** Whether a change touches what an epic's own dates derive from (its fixed dates and their flags). */
const touchesDates = (input: EpicAttributes) =>
  [input.startDateFixed, input.startDateIsFixed, input.dueDateFixed, input.dueDateIsFixed].some((v) => v !== undefined);

/**
 * Refreshes the stored composite dates from each epic of `from` up to its top ancestor (GitLab's
 * Epics::UpdateDatesService; store `refreshDates`, one statement each), and answers `epic` with its
 * own new dates. Callers hold the tree lock: two changes below one parent must not each compute it
 * from the other's old dates.
 */
async function refreshedDates(tx: Prisma.TransactionClient, epic: Epic, from: (number | null)[]): Promise<Epic> {
  let own: Pick<Epic, 'startDate' | 'dueDate'> | undefined;
  for (const id of from) {
    if (id != null) own = (await refreshDates(tx, id)).get(epic.id) ?? own;
  }
  return own ? { ...epic, ...own } : epic;
}

declare module '../../core/events.ts' {
  interface DomainEvents {
    /**
     * Epics were deleted in bulk past this service (a user's with the user, a group's with the
     * group): the parents they had, whose stored dates the epics area then recomputes.
     */
    epicsDeleted: { parentIds: number[] };
  }
}

/**
 * After epics were created, linked or deleted in bulk (an import, a user's epics deleted with the
 * user): the stored dates of the given epics and of their ancestors, in one statement.
 */
export const recomputeEpicDates = recomputeDates;

/** An epic's own composite dates while it has no children: the fixed ones where fixed. */
export function ownDates(epic: FixedDates) {
  return { startDate: epic.startDateIsFixed ? (epic.startDateFixed ?? null) : null, dueDate: epic.dueDateIsFixed ? (epic.dueDateFixed ?? null) : null };
}

/** Administrators and group Owners may back-date `created_at` / `updated_at`; others' values are ignored. */
const mayBackdate = (can: EpicAbilities) => can.destroy;

export async function createEpic(ctx: Context, group: Namespace, input: EpicCreateInput, opts: { colorAllowed: boolean }): Promise<Epic> {
  const can = await abilities(ctx, group.id);
  if (!can.admin) throw new ForbiddenError();
  const data = attributes(input, { creating: true, colorAllowed: opts.colorAllowed });
  const parent = input.parentId != null ? await parentFor(ctx, input.parentId) : null;
  const labelIds = [...new Set([...(await labelIdsByName(ctx, group, input.labels)), ...(await availableLabelIds(ctx, group, input.labelIds))])];
  return ctx.db.$transaction(async (tx) => {
    if (parent) {
      await epicTreeLock(tx, group);
      await checkNesting(tx, { confidential: Boolean(input.confidential), group }, parent);
    }
    const created = await tx.epic.create({
      data: {
        ...(data as Prisma.EpicUncheckedCreateInput),
        ...ownDates(data),
        title: input.title!,
        groupId: group.id,
        iid: await nextIid(tx, 'epics:group', group.id),
        authorId: ctx.viewer.userId,
        parentId: parent?.id ?? null,
        ...(input.createdAt && mayBackdate(can) && { createdAt: input.createdAt, updatedAt: input.createdAt }),
        labels: { create: labelIds.map((labelId) => ({ labelId })) },
      },
    });
    // A new child moves its ancestors' inherited dates.
    if (parent) await refreshedDates(tx, created, [parent.id]);
    return created;
  });
}

/** The label ids an update leaves on the epic; null when it does not touch labels. */
async function updatedLabelIds(ctx: Context, epic: Epic, group: Namespace, input: EpicUpdateInput): Promise<number[] | null> {
  const touches = [input.labels, input.addLabels, input.removeLabels, input.addLabelIds, input.removeLabelIds].some((v) => v != null);
  if (!touches) return null;
  const current = await ctx.loaders.epics.labels.load(epic.id);
  const base = input.labels != null ? await labelIdsByName(ctx, group, input.labels) : current.map((l) => l.id);
  const added = [...(await labelIdsByName(ctx, group, input.addLabels)), ...(await availableLabelIds(ctx, group, input.addLabelIds))];
  const removedNames = new Set(input.removeLabels ?? []);
  const removed = new Set([...(input.removeLabelIds ?? []), ...current.filter((l) => removedNames.has(l.name)).map((l) => l.id)]);
  return [...new Set([...base, ...added])].filter((id) => !removed.has(id));
}

function stateChange(epic: Epic, event: EpicUpdateInput['stateEvent'], userId: number | null): Attributes {
  if (event === 'close' && epic.state === 'opened') return { state: 'closed', closedAt: new Date(), closedById: userId };
  if (event === 'reopen' && epic.state === 'closed') return { state: 'opened', closedAt: null, closedById: null };
  return {};
}

// What an update may change, with REST's names in the order of GitLab's `at_least_one_of`.
const UPDATABLE: { [K in keyof EpicUpdateInput]?: string } = {
  addLabels: 'add_labels',
  color: 'color',
  confidential: 'confidential',
  description: 'description',
  dueDateFixed: 'due_date_fixed',
  dueDateIsFixed: 'due_date_is_fixed',
  labels: 'labels',
  parentId: 'parent_id',
  removeLabels: 'remove_labels',
  startDateFixed: 'start_date_fixed',
  startDateIsFixed: 'start_date_is_fixed',
  stateEvent: 'state_event',
  title: 'title',
};

/**
 * An update must change something (Grape's `at_least_one_of`; GitLab's GraphQL says the list of
 * attributes is empty). REST also names the deprecated `start_date` and `end_date`, which it folds
 * into the fixed dates; a null counts as given (it clears a value).
 */
function requireSomeChange(input: EpicUpdateInput) {
  const keys = [...Object.keys(UPDATABLE), 'addLabelIds', 'removeLabelIds'] as (keyof EpicUpdateInput)[];
  if (keys.some((k) => input[k] !== undefined)) return;
  const rest = [...Object.values(UPDATABLE), 'start_date', 'end_date'];
  checkInput({ rest: `${rest.join(', ')} are missing, at least one parameter must be provided`, graphql: 'The list of epic attributes is empty' });
}

export async function updateEpic(ctx: Context, group: Namespace, iid: number, input: EpicUpdateInput, opts: { colorAllowed: boolean }): Promise<Epic> {
  requireSomeChange(input);
  const epic = await epicToChange(ctx, group, iid, (can) => can.admin);
  const can = await abilities(ctx, epic.groupId);
  const data = attributes(input, { creating: false, colorAllowed: opts.colorAllowed });
  const newParent = input.parentId != null && input.parentId !== epic.parentId ? await parentFor(ctx, input.parentId) : null;
  const labelIds = await updatedLabelIds(ctx, epic, group, input);
  // Nesting and confidentiality are checked under the tree lock, so concurrent changes cannot
  // build a cycle or leave a public child under a confidential parent; dates are refreshed under
  // it, so concurrent changes below one parent cannot each compute it from the other's old dates.
  const touchesTree = newParent != null || input.confidential != null || input.parentId === null || touchesDates(input);
  const updated = await ctx.db.$transaction(async (tx) => {
    if (touchesTree) await epicTreeLock(tx, group);
    const current = await tx.epic.findUniqueOrThrow({ where: { id: epic.id } });
    const confidential = input.confidential ?? current.confidential;
    if (newParent) await checkNesting(tx, { id: epic.id, confidential, group }, newParent);
    else if (touchesTree && input.parentId !== null && current.parentId != null && !confidential) {
      const parent = await tx.epic.findUnique({ where: { id: current.parentId } });
      if (parent?.confidential) throw nonConfidentialChild(parent);
    }
    if (confidential && !current.confidential && (await tx.epic.count({ where: { parentId: epic.id, confidential: false } }))) {
      throw new ValidationError({ confidential: ['Cannot make the epic confidential if it contains non-confidential child epics'] });
    }
    const changed = await tx.epic.update({
      where: { id: epic.id },
      data: {
        ...data,
        ...stateChange(current, input.stateEvent, ctx.viewer.userId),
        ...(newParent && { parentId: newParent.id }),
        ...(input.parentId === null && { parentId: null }),
        ...(input.updatedAt && mayBackdate(can) && { updatedAt: input.updatedAt }),
        ...(labelIds && { labels: { deleteMany: {}, create: labelIds.map((labelId) => ({ labelId })) } }),
      },
    });
    // The old parent's chain loses the epic, the epic's own chain (itself, its new parent up) changes.
    const moved = changed.parentId !== current.parentId;
    // (The epic's own refresh stops at it when its dates stay: the new parent then gets its own.)
    return refreshedDates(tx, changed, [moved ? current.parentId : null, touchesDates(input) ? changed.id : null, moved ? changed.parentId : null]);
  });
  forget(ctx, updated);
  return updated;
}

/** Drops what this request cached about an epic it changed. */
function forget(ctx: Context, epic: Epic) {
  const loaders = ctx.loaders.epics;
  loaders.byId.clear(epic.id);
  loaders.byIid.clear(epic.groupId, epic.iid);
  loaders.labels.clear(epic.id);
  loaders.subscriptions.clear(epic.id);
  loaders.ancestorIds.clearAll();
  loaders.children.clearAll();
  loaders.inheritedDates.clearAll();
  loaders.descendantCounts.clearAll();
}

/** Owners delete epics; the children stay, without a parent. Returns the epic as it was. */
export async function destroyEpic(ctx: Context, group: Namespace, iid: number): Promise<Epic> {
  const epic = await epicToChange(ctx, group, iid, (can) => can.destroy);
  const loaders = ctx.loaders.epics;
  // Loaded before the rows go, so the response can still show them.
  await Promise.all([loaders.labels.load(epic.id), loaders.awardCounts.load(epic.id), loaders.inheritedDates.load(epic.id)]);
  await ctx.db.$transaction(async (tx) => {
    await epicTreeLock(tx, group);
    // Its children stay, top-level now: only its ancestors lose dates.
    const deleted = await tx.epic.delete({ where: { id: epic.id } });
    if (deleted.parentId != null) await refreshDates(tx, deleted.parentId);
  });
  loaders.children.clearAll();
  return epic;
}

/** Nests `child` under `parent`, or makes it top-level (parent null); both need the right to manage epics. */
export async function moveEpic(ctx: Context, childId: number, parentId: number | null, opts: { mustBeNew?: boolean } = {}): Promise<Epic> {
  requireSignedIn(ctx);
  requireEpicsFeature(ctx);
  const child = await findEpicById(ctx, childId);
  if (!child || !(await abilities(ctx, child.groupId)).admin) throw new ForbiddenError();
  const parent = parentId != null ? await parentFor(ctx, parentId) : null;
  if (parent && opts.mustBeNew && child.parentId === parent.id) throw hierarchyError('It is already assigned to the parent epic.');
  const group = (await ctx.loaders.namespace.load(child.groupId))!;
  const moved = await ctx.db.$transaction(async (tx) => {
    await epicTreeLock(tx, group);
    if (parent) await checkNesting(tx, { id: child.id, confidential: child.confidential, group }, parent);
    const { parentId: oldParentId } = await tx.epic.findUniqueOrThrow({ where: { id: child.id }, select: { parentId: true } });
    const updated = await tx.epic.update({ where: { id: child.id }, data: { parentId: parent?.id ?? null } });
    return oldParentId === updated.parentId ? updated : refreshedDates(tx, updated, [oldParentId, updated.parentId]);
  });
  forget(ctx, moved);
  return moved;
}

// ---- Tree order ---------------------------------------------------------------------------

/** One move of GitLab's `epicTreeReorder`: the moved epic, the sibling it lands by, and a new parent if any. */
export type TreeMove = { id: number; adjacentId?: number | null; position?: 'before' | 'after' | null; newParentId?: number | null };

// Gaps between positions, so that GitLab's clients, which read them, see a stable order.
const POSITION_GAP = 1000;

const treeError = (message: string) => new FullMessagesError([message]);

/**
 * GitLab's `epicTreeReorder` for epics (forgegate has no issues in the tree): moves a child of the
 * base epic, or an epic under `newParentId`, next to a sibling. `position` says where the sibling
 * goes (GitLab's MoveType): `before` puts the sibling before the moved epic, so the moved epic
 * lands right after it; `after` the other way round. The siblings are renumbered under the tree
 * lock, so concurrent moves cannot interleave.
 */
export async function reorderEpicTree(ctx: Context, baseId: number, move: TreeMove): Promise<Epic> {
  requireSignedIn(ctx);
  requireEpicsFeature(ctx);
  const base = await findEpicById(ctx, baseId);
  if (!base || !(await abilities(ctx, base.groupId)).admin) throw treeError("You don't have permissions to move the objects.");
  if (move.adjacentId != null && (move.position == null || move.adjacentId === move.id)) throw treeError('Relative position is not valid.');
  const parentId = move.newParentId ?? base.id;
  let moved = await findEpicById(ctx, move.id);
  if (!moved || (move.newParentId == null && moved.parentId !== base.id)) throw treeError('The object does not belong to the base epic.');
  const adjacent = move.adjacentId != null ? await findEpicById(ctx, move.adjacentId) : null;
  if (move.adjacentId != null && adjacent?.parentId !== parentId) {
    throw treeError(
      move.newParentId == null
        ? "The sibling object's parent must match the current parent epic."
        : "The sibling object's parent must match the new parent epic.",
    );
  }
  if (moved.parentId !== parentId) moved = await moveEpic(ctx, moved.id, parentId);
  const group = (await ctx.loaders.namespace.load(moved.groupId))!;
  const placed = await ctx.db.$transaction(async (tx) => {
    await epicTreeLock(tx, group);
    const siblings = await tx.epic.findMany({
      where: { parentId, id: { not: moved.id } },
      orderBy: [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
    });
    const at = adjacent ? siblings.findIndex((s) => s.id === adjacent.id) + (move.position === 'before' ? 1 : 0) : siblings.length;
    const order = [...siblings.slice(0, at), moved, ...siblings.slice(at)];
    for (const [i, epic] of order.entries()) {
      if (epic.relativePosition !== (i + 1) * POSITION_GAP || epic.id === moved.id) {
        await tx.epic.update({ where: { id: epic.id }, data: { relativePosition: (i + 1) * POSITION_GAP } });
      }
    }
    return tx.epic.findUniqueOrThrow({ where: { id: moved.id } });
  });
  forget(ctx, placed);
  return placed;
}

/** Whether the viewer gets notifications: an explicit choice, else the author does. */
export async function isSubscribed(ctx: Context, epic: Epic): Promise<boolean> {
  if (ctx.viewer.userId == null) return false;
  const explicit = await ctx.loaders.epics.subscriptions.load(epic.id);
  return explicit ?? epic.authorId === ctx.viewer.userId;
}

export async function setSubscription(ctx: Context, group: Namespace, iid: number, subscribed: boolean): Promise<Epic> {
  const epic = await findEpic(ctx, group, iid);
  if (!epic) throw new ForbiddenError();
  const userId = ctx.viewer.userId!;
  await ctx.db.epicSubscription.upsert({
    where: { epicId_userId: { epicId: epic.id, userId } },
    create: { epicId: epic.id, userId, subscribed },
    update: { subscribed },
  });
  ctx.loaders.epics.subscriptions.clear(epic.id);
  return epic;
}

/**
 * Marks the epic as a to-do of the viewer; null when one is already pending (REST answers 304).
 * The check and the insert run under a lock per user and epic, so concurrent requests make one.
 */
export async function markTodo(ctx: Context, epic: Epic): Promise<Todo | null> {
  requireSignedIn(ctx);
  const userId = ctx.viewer.userId!;
  return ctx.db
    .$transaction(async (tx) => {
      await lockKey(tx, `todo:${userId}:${epic.id}`);
      if (await tx.todo.findFirst({ where: { userId, epicId: epic.id, state: 'pending' } })) return null;
      return tx.todo.create({ data: { userId, authorId: userId, groupId: epic.groupId, epicId: epic.id, action: 'marked' } });
    })
    .finally(() => ctx.loaders.epics.viewerTodos.clear(epic.id));
}

/** The viewer's to-do items about the epic, oldest first: pending and done unless `state` says which. */
export async function currentUserTodos(ctx: Context, epic: Epic, state: Todo['state'] | null): Promise<Todo[]> {
  if (ctx.viewer.userId == null) return [];
  const todos = await ctx.loaders.epics.viewerTodos.load(epic.id);
  return state ? todos.filter((todo) => todo.state === state) : todos;
}

/** `todoMarkDone`: the viewer's own to-do, whatever its target, marked done; anyone else's is not found. */
export async function markTodoDone(ctx: Context, todoId: number): Promise<Todo> {
  requireSignedIn(ctx);
  const todo = await ctx.db.todo.findFirst({ where: { id: todoId, userId: ctx.viewer.userId! } });
  if (!todo) throw new NotFoundError('Todo');
  if (todo.state === 'done') return todo;
  return ctx.db.todo.update({ where: { id: todo.id }, data: { state: 'done' } });
}

/** The filters of the viewer's to-do list (`CurrentUser.todos`, REST `GET /todos`); each one a set of values. */
export interface TodoFilter {
  action?: readonly string[] | null;
  authorId?: readonly (string | number)[] | null;
  projectId?: readonly (string | number)[] | null;
  groupId?: readonly (string | number)[] | null;
  state?: readonly Todo['state'][] | null;
  type?: readonly ('EPIC' | 'ALERT')[] | null;
}

/** Numeric ids of an `[ID!]` filter: plain ids or global ids; anything else is a clear 4xx. */
function filterIds(name: string, ids: readonly (string | number)[] | null | undefined): number[] | undefined {
  return ids?.map((id) => {
    const match = /^(?:gid:\/\/gitlab\/[A-Za-z:]+\/)?(\d{1,15})$/.exec(String(id));
    if (!match) throw new ParamError(`${name}: "${id}" is not a valid id`);
    return Number(match[1]);
  });
}

/**
 * The viewer's own to-dos, newest first. Pending ones only unless `state` says otherwise (GitLab's
 * TodosFinder): the list of the REST `GET /todos` and of `CurrentUser.todos`.
 */
export function viewerTodos(ctx: Context, filter: TodoFilter): Listing<Todo> {
  requireSignedIn(ctx);
  const ids = (name: string, given: TodoFilter['authorId']) => {
    const list = filterIds(name, given);
    return list && { in: list };
  };
  const where: Prisma.TodoWhereInput = {
    userId: ctx.viewer.userId!,
    state: { in: filter.state?.length ? [...filter.state] : ['pending'] },
    ...(filter.action?.length && { action: { in: [...filter.action] } }),
    ...(filter.authorId?.length && { authorId: ids('authorId', filter.authorId) }),
    ...(filter.projectId?.length && { projectId: ids('projectId', filter.projectId) }),
    ...(filter.groupId?.length && { groupId: ids('groupId', filter.groupId) }),
    ...(filter.type?.length && {
      OR: filter.type.map((type) => (type === 'EPIC' ? { epicId: { not: null } } : { alertId: { not: null } })),
    }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.todo.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.todo.count({ where, take: ctx.countLimit }),
  };
}

/** `todosMarkAllDone` and REST `POST /todos/mark_as_done`: every pending to-do of the viewer done; answers those. */
export async function markAllTodosDone(ctx: Context): Promise<Todo[]> {
  requireSignedIn(ctx);
  const where = { userId: ctx.viewer.userId!, state: 'pending' as const };
  return ctx.db.$transaction(async (tx) => {
    const pending = await tx.todo.findMany({ where, select: { id: true } });
    const ids = pending.map((todo) => todo.id);
    await tx.todo.updateMany({ where: { id: { in: ids } }, data: { state: 'done' } });
    return tx.todo.findMany({ where: { id: { in: ids } }, orderBy: { id: 'desc' } });
  });
}

/** Whether epics show and take a `color`: the feature flag `epic_highlight_color` (off by default). */
export function epicColorEnabled(ctx: Context): Promise<boolean> {
  return ctx.loaders.epics.colorEnabled();
}

// ---- Award emoji ------------------------------------------------------------------------

/** GitLab stores the thumbs under their names, not their `+1` / `-1` aliases. */
export function normalizeEmojiName(name: string): string {
  return { '+1': 'thumbsup', '-1': 'thumbsdown' }[name] ?? name;
}
