import { containsIgnoringCase } from '../../core/input.ts';
import type { Milestone, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { Listing, Page } from '../../core/listing.ts';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { ancestorGroupIds, parentColumn, parentId, requireParentWrite, type Parent } from '../parents/parent.ts';
import { withNextIid } from '../../core/iids.ts';

/** GitLab's `MilestoneSort` values; without one, newest first (what the REST list answers). */
export const MILESTONE_SORTS = [
  'DUE_DATE_ASC',
  'DUE_DATE_DESC',
  'EXPIRED_LAST_DUE_DATE_ASC',
  'EXPIRED_LAST_DUE_DATE_DESC',
  'CREATED_ASC',
  'CREATED_DESC',
  'UPDATED_ASC',
  'UPDATED_DESC',
] as const;
export type MilestoneSort = (typeof MILESTONE_SORTS)[number];

export type MilestoneFilter = {
  state?: 'active' | 'closed' | null;
  title?: string | null;
  search?: string | null;
  iids?: number[] | null;
  ids?: number[] | null;
  /** Milestones whose start and due dates enclose this day. */
  containingDate?: Date | null;
  /** Milestones that overlap this period (GitLab's `timeframe`). */
  timeframe?: { start: Date; end: Date } | null;
  /** Also the milestones of the groups above the parent. */
  includeAncestors?: boolean | null;
  /** Also the milestones of these groups and projects below the parent (GitLab's `includeDescendants`: `readableBelow`). */
  descendants?: { groupIds: number[]; projectIds: number[] } | null;
  sort?: MilestoneSort | null;
};

const day = (date: Date) => new Date(date.toISOString().slice(0, 10));
const today = () => day(new Date());

/** GitLab's `expired`: the due date is past. */
export const isExpired = (m: Pick<Milestone, 'dueDate'>) => Boolean(m.dueDate && m.dueDate < today());
/** GitLab's `upcoming`: the start date is in the future. */
export const isUpcoming = (m: Pick<Milestone, 'startDate'>) => Boolean(m.startDate && m.startDate > today());

function orderOf(sort: MilestoneSort | null | undefined): Prisma.MilestoneOrderByWithRelationInput[] {
  switch (sort) {
    case 'DUE_DATE_ASC':
    case 'EXPIRED_LAST_DUE_DATE_ASC':
      return [{ dueDate: { sort: 'asc', nulls: 'last' } }, { id: 'desc' }];
    case 'DUE_DATE_DESC':
    case 'EXPIRED_LAST_DUE_DATE_DESC':
      return [{ dueDate: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }];
    case 'CREATED_ASC':
      return [{ createdAt: 'asc' }, { id: 'asc' }];
    case 'CREATED_DESC':
      return [{ createdAt: 'desc' }, { id: 'desc' }];
    case 'UPDATED_ASC':
      return [{ updatedAt: 'asc' }, { id: 'asc' }];
    case 'UPDATED_DESC':
      return [{ updatedAt: 'desc' }, { id: 'desc' }];
    default:
      return [{ id: 'desc' }];
  }
}

export function listMilestones(ctx: Context, parent: Parent, filter: MilestoneFilter): Listing<Milestone> {
  const groupIds = [...(filter.includeAncestors ? ancestorGroupIds(parent) : []), ...(filter.descendants?.groupIds ?? [])];
  const projectIds = filter.descendants?.projectIds ?? [];
  const where: Prisma.MilestoneWhereInput = {
    AND: [
      {
        OR: [
          parentColumn(parent),
          ...(groupIds.length ? [{ groupId: { in: groupIds } }] : []),
          ...(projectIds.length ? [{ projectId: { in: projectIds } }] : []),
        ],
      },
      ...(filter.state ? [{ state: filter.state }] : []),
      ...(filter.title ? [{ title: filter.title }] : []),
      ...(filter.iids?.length ? [{ iid: { in: filter.iids } }] : []),
      ...(filter.ids ? [{ id: { in: filter.ids } }] : []),
      ...(filter.search ? [{ OR: [{ title: containsIgnoringCase(filter.search) }, { description: containsIgnoringCase(filter.search) }] }] : []),
      ...(filter.containingDate ? [{ startDate: { lte: day(filter.containingDate) }, dueDate: { gte: day(filter.containingDate) } }] : []),
      ...(filter.timeframe
        ? [
            { OR: [{ startDate: null }, { startDate: { lte: filter.timeframe.end } }] },
            { OR: [{ dueDate: null }, { dueDate: { gte: filter.timeframe.start } }] },
          ]
        : []),
    ],
  };
  const orderBy = orderOf(filter.sort);
  const expiredLast = filter.sort?.startsWith('EXPIRED_LAST_');
  return {
    fetch: (page) =>
      expiredLast ? expiredLastPage(ctx, where, orderBy, page) : ctx.db.milestone.findMany({ where, orderBy, skip: page.offset, take: page.limit }),
    count: () => ctx.db.milestone.count({ where, take: ctx.countLimit }),
  };
}

/**
 * GitLab's expired-last order: milestones not yet due first, then those without a due date, then
 * the expired ones, each by due date (ties newest first). Each part is a range of the parent's
 * due-date index, read in turn in the list's order until the page is full: at most three
 * statements, each reading no further than the page's end (`today` as `isExpired` tells it).
 */
async function expiredLastPage(ctx: Context, where: Prisma.MilestoneWhereInput, orderBy: Prisma.MilestoneOrderByWithRelationInput[], page: Page) {
  const now = today();
  const parts: Prisma.MilestoneWhereInput[] = [{ dueDate: { gte: now } }, { dueDate: null }, { dueDate: { lt: now } }];
  const end = page.offset + page.limit;
  const rows: Milestone[] = [];
  for (const part of parts) {
    if (rows.length >= end) break;
    rows.push(...(await ctx.db.milestone.findMany({ where: { AND: [where, part] }, orderBy, take: end - rows.length })));
  }
  return rows.slice(page.offset, end);
}

/** A milestone by its id, only within its own project or group. */
export async function findMilestone(ctx: Context, parent: Parent, id: number): Promise<Milestone | null> {
  return ctx.db.milestone.findFirst({ where: { id, ...parentColumn(parent) } });
}

export type MilestoneInput = {
  title?: string | null;
  description?: string | null;
  dueDate?: Date | null;
  startDate?: Date | null;
  stateEvent?: 'close' | 'activate' | null;
};

function validate(input: MilestoneInput, existing?: Milestone) {
  const errors: Record<string, string[]> = {};
  if (input.title != null && input.title.trim() === '') errors.title = ["can't be blank"];
  if (input.title != null && input.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  const start = input.startDate !== undefined ? input.startDate : existing?.startDate;
  const due = input.dueDate !== undefined ? input.dueDate : existing?.dueDate;
  if (start && due && due < start) errors.due_date = ['must be greater than start date'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

const titleTaken = () => new ValidationError({ title: ['has already been taken'] });

export async function createMilestone(ctx: Context, parent: Parent, input: MilestoneInput & { title: string }): Promise<Milestone> {
  await requireParentWrite(ctx, parent, AccessLevel.REPORTER);
  validate(input);
  // No interactive transaction: it cost two more round trips and, in Prisma, about a third of a
  // create's CPU. A refused create hands its iid back (see withNextIid).
  return withNextIid(ctx.db, `milestones:${parent.kind}`, parentId(parent), (iid) =>
    ctx.db.milestone.create({
      data: {
        ...parentColumn(parent),
        iid,
        title: input.title,
        description: input.description ?? '',
        dueDate: input.dueDate ?? null,
        startDate: input.startDate ?? null,
      },
    }),
  ).catch((error) => {
    if (isUniqueViolation(error)) throw titleTaken();
    throw error;
  });
}

export async function updateMilestone(ctx: Context, parent: Parent, id: number, input: MilestoneInput): Promise<Milestone> {
  const milestone = await findMilestone(ctx, parent, id);
  if (!milestone) throw new NotFoundError('Milestone');
  await requireParentWrite(ctx, parent, AccessLevel.REPORTER);
  validate(input, milestone);
  const state = input.stateEvent === 'close' ? 'closed' : input.stateEvent === 'activate' ? 'active' : undefined;
  return ctx.db.milestone
    .update({
      where: { id: milestone.id },
      data: {
        title: input.title ?? undefined,
        description: input.description ?? undefined,
        dueDate: input.dueDate,
        startDate: input.startDate,
        state,
      },
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw titleTaken();
      throw error;
    });
}

/** Who deletes and promotes milestones: GitLab's admin_milestone, Reporters and above. */
const ADMIN_MILESTONE_LEVEL = AccessLevel.REPORTER;

/** Deletes a milestone of a project or group; releases lose it (GitLab's Milestones::DestroyService). */
export async function deleteMilestone(ctx: Context, parent: Parent, id: number): Promise<Milestone> {
  const milestone = await findMilestone(ctx, parent, id);
  if (!milestone) throw new NotFoundError('Milestone');
  await requireParentWrite(ctx, parent, ADMIN_MILESTONE_LEVEL);
  await ctx.db.milestone.delete({ where: { id: milestone.id } });
  return milestone;
}

/** Promotion creates a group milestone: Maintainers of the group and above. */
const PROMOTE_GROUP_LEVEL = AccessLevel.MAINTAINER;

/**
 * Promotes a project milestone to its group (GitLab's Milestones::PromoteService): one group
 * milestone takes its attributes, the same-titled milestones of the group's projects hand it their
 * releases and go. 403 for a project outside a group or a viewer below Maintainer there; 400 when
 * the group already has a milestone with that title.
 */
export async function promoteMilestone(ctx: Context, project: ProjectWithNamespace, id: number): Promise<Milestone> {
  const parent: Parent = { kind: 'project', project };
  const milestone = await findMilestone(ctx, parent, id);
  if (!milestone) throw new NotFoundError('Milestone');
  await requireParentWrite(ctx, parent, ADMIN_MILESTONE_LEVEL);
  const group = project.namespace;
  if (group.kind !== 'group') throw new ForbiddenError();
  await ctx.policy.requireGroupAccess(group, PROMOTE_GROUP_LEVEL);
  if (await ctx.db.milestone.findFirst({ where: { groupId: group.id, title: milestone.title } })) {
    throw new BadRequestError('Promotion failed - Title has already been taken');
  }
  const siblings = await ctx.db.milestone.findMany({ where: { title: milestone.title, project: { namespaceId: group.id } }, select: { id: true } });
  const ids = siblings.map((m) => m.id);
  return withNextIid(ctx.db, 'milestones:group', group.id, (iid) =>
    ctx.db.$transaction(async (tx) => {
      const { title, description, state, dueDate, startDate } = milestone;
      const promoted = await tx.milestone.create({ data: { groupId: group.id, iid, title, description, state, dueDate, startDate } });
      // A release that had several of them keeps one link to the group milestone.
      const links = await tx.releaseMilestone.findMany({ where: { milestoneId: { in: ids } }, select: { releaseId: true } });
      const releases = [...new Set(links.map((l) => l.releaseId))];
      await tx.releaseMilestone.createMany({ data: releases.map((releaseId) => ({ releaseId, milestoneId: promoted.id })) });
      await tx.milestone.deleteMany({ where: { id: { in: ids } } });
      return promoted;
    }),
  );
}
