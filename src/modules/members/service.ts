import { containsIgnoringCase, equalsIgnoringCase } from '../../core/input.ts';
import type { Member, Prisma, User } from '../../generated/prisma/client.ts';
import { AccessLevel, MEMBER_ACCESS_LEVELS } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { DomainEvents } from '../../core/events.ts';
import type { Listing } from '../../core/listing.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { ancestorGroupIds, parentAccessLevel, requireParentAccess, type Parent } from '../parents/parent.ts';

export type MemberWithUser = Member & { user: User };
/** `shared`: members of the groups the parent's groups are shared with (GitLab's SHARED_FROM_GROUPS / SHARED_INTO_ANCESTORS). */
export type MemberRelation = 'direct' | 'inherited' | 'shared';

const today = () => new Date(new Date().toISOString().slice(0, 10));

/** Where memberships of the parent (and, for `inherited`, of its ancestor groups) live. */
function membershipScopes(parent: Parent, relations: MemberRelation[]) {
  const scopes: ({ projectId: number } | { namespaceId: { in: number[] } })[] = [];
  const ancestors = ancestorGroupIds(parent);
  if (relations.includes('direct')) {
    scopes.push(parent.kind === 'project' ? { projectId: parent.project.id } : { namespaceId: { in: [parent.group.id] } });
  }
  if (relations.includes('inherited') && ancestors.length) scopes.push({ namespaceId: { in: ancestors } });
  return scopes;
}

/**
 * Members through a share: the members (direct, or through a group above) of every group that a
 * group at or above the parent is shared with, each at the lower of their level and the share's.
 */
async function sharedMembers(ctx: Context, parent: Parent, filter: Prisma.MemberWhereInput): Promise<MemberWithUser[]> {
  const groups = parent.kind === 'group' ? parent.group.traversalIds : ancestorGroupIds(parent);
  if (!groups.length) return [];
  const links = await ctx.db.groupGroupLink.findMany({
    where: { sharedGroupId: { in: groups }, OR: [{ expiresAt: null }, { expiresAt: { gte: today() } }] },
    include: { sharedWithGroup: { select: { traversalIds: true } } },
  });
  if (!links.length) return [];
  const through = [...new Set(links.flatMap((l) => l.sharedWithGroup.traversalIds))];
  const rows = await ctx.db.member.findMany({ where: { AND: [filter, { namespaceId: { in: through } }] }, include: { user: true } });
  return rows.map((row) => {
    const reaching = links.filter((l) => l.sharedWithGroup.traversalIds.includes(row.namespaceId!));
    return { ...row, accessLevel: Math.max(...reaching.map((l) => Math.min(row.accessLevel, l.groupAccess))) };
  });
}

/**
 * Members of a project or group. With inherited or shared relations a user who belongs at several
 * levels appears once, with the highest access level, as GitLab's `/members/all` does.
 */
export function listMembers(
  ctx: Context,
  parent: Parent,
  opts: { relations: MemberRelation[]; search?: string | null; userIds?: number[] },
): Listing<MemberWithUser> {
  const filter: Prisma.MemberWhereInput = {
    AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gte: today() } }] }],
    ...(opts.userIds && { userId: { in: opts.userIds } }),
    ...(opts.search && {
      user: { OR: [{ username: containsIgnoringCase(opts.search) }, { name: containsIgnoringCase(opts.search) }] },
    }),
  };
  const where = { ...filter, OR: membershipScopes(parent, opts.relations) };
  if (!opts.relations.includes('inherited') && !opts.relations.includes('shared')) {
    return {
      fetch: ({ offset, limit }) => ctx.db.member.findMany({ where, include: { user: true }, orderBy: { id: 'asc' }, skip: offset, take: limit }),
      count: () => ctx.db.member.count({ where, take: ctx.countLimit }),
    };
  }
  // Membership lists are short; deduplicating in memory keeps the query portable and simple.
  const all = (async () => {
    const rows = [
      ...(await ctx.db.member.findMany({ where, include: { user: true } })),
      ...(opts.relations.includes('shared') ? await sharedMembers(ctx, parent, filter) : []),
    ].sort((a, b) => b.accessLevel - a.accessLevel || a.id - b.id);
    const best = new Map<number, MemberWithUser>();
    for (const row of rows) if (!best.has(row.userId)) best.set(row.userId, row);
    return [...best.values()].sort((a, b) => a.id - b.id);
  })();
  return {
    fetch: async ({ offset, limit }) => (await all).slice(offset, offset + limit),
    count: async () => (await all).length,
  };
}

export async function findMember(ctx: Context, parent: Parent, userId: number, inherited = false): Promise<MemberWithUser | null> {
  const [member] = await listMembers(ctx, parent, { relations: inherited ? ['direct', 'inherited'] : ['direct'], userIds: [userId] }).fetch({
    offset: 0,
    limit: 1,
  });
  return member ?? null;
}

/**
 * Who manages memberships, and answers access requests: Maintainers of a project, Owners of a group
 * (GitLab's `admin_project_member` / `admin_group_member`).
 */
export const manageLevel = (parent: Parent) => (parent.kind === 'project' ? AccessLevel.MAINTAINER : AccessLevel.OWNER);

/** GitLab's access levels for a membership; Minimal Access exists for groups only. */
const grantable = (parent: Parent) => (level: number) =>
  (MEMBER_ACCESS_LEVELS as readonly number[]).includes(level) && !(level === AccessLevel.MINIMAL_ACCESS && parent.kind === 'project');

/**
 * Managers (`manageLevel` in the parent) may not hand out more than they hold (CVE-2023-6396);
 * administrators may. Shared by member changes and access request approvals.
 */
export async function assertCanGrant(ctx: Context, parent: Parent, level: number) {
  checkInput(rules.values({ accessLevel: level }, { accessLevel: 'access_level' }, grantable(parent)));
  await requireParentAccess(ctx, parent, manageLevel(parent));
  if (level > (await parentAccessLevel(ctx, parent))) throw new ForbiddenError();
}

const directScope = (parent: Parent) => (parent.kind === 'project' ? { projectId: parent.project.id } : { namespaceId: parent.group.id });

async function assertNotLastOwner(ctx: Context, parent: Parent, member: Member) {
  if (parent.kind !== 'group' || member.accessLevel !== AccessLevel.OWNER) return;
  const owners = await ctx.db.member.count({ where: { namespaceId: parent.group.id, accessLevel: AccessLevel.OWNER } });
  if (owners <= 1) throw new ForbiddenError('A group must keep at least one owner');
}

export type MemberInput = { userId: number; accessLevel: number; expiresAt?: Date | null };

declare module '../../core/events.ts' {
  interface DomainEvents {
    /** A membership of a project or group was added, changed or removed (by its parent's id). */
    member: {
      projectId: number | null;
      groupId: number | null;
      userId: number;
      actorId: number | null;
      accessLevel: number;
      action: 'added' | 'updated' | 'removed';
    };
  }
}

/** The parent's ids as events name it. */
export const parentIds = (parent: Parent) =>
  parent.kind === 'project' ? { projectId: parent.project.id, groupId: null } : { projectId: null, groupId: parent.group.id };

function announceMember(ctx: Context, parent: Parent, member: Member, action: DomainEvents['member']['action']) {
  return ctx.deps.events.publish('member', {
    ...parentIds(parent),
    userId: member.userId,
    actorId: ctx.viewer.userId,
    accessLevel: member.accessLevel,
    action,
  });
}

/** A new member is named by user id or by username (GitLab's `exactly_one_of :user_id, :username`). */
export type NewMemberInput = Omit<MemberInput, 'userId'> & { userId?: number | null; username?: string | null };

export async function addMember(ctx: Context, parent: Parent, input: NewMemberInput): Promise<MemberWithUser> {
  checkInput(rules.exactlyOneOf(input, { userId: 'user_id', username: 'username' }));
  await assertCanGrant(ctx, parent, input.accessLevel);
  const user =
    input.username != null
      ? await ctx.db.user.findFirst({ where: { username: equalsIgnoringCase(input.username) } })
      : await ctx.loaders.user.load(input.userId!);
  if (!user) throw new NotFoundError('User');
  const member = await ctx.db.member
    .create({
      data: { ...directScope(parent), userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: ctx.viewer.userId },
      include: { user: true },
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Member already exists');
      throw error;
    });
  await announceMember(ctx, parent, member, 'added');
  return member;
}

export async function updateMember(ctx: Context, parent: Parent, input: MemberInput): Promise<MemberWithUser> {
  await assertCanGrant(ctx, parent, input.accessLevel);
  const member = await ctx.db.member.findFirst({ where: { ...directScope(parent), userId: input.userId } });
  if (!member) throw new NotFoundError('Member');
  if (member.accessLevel > (await parentAccessLevel(ctx, parent))) throw new ForbiddenError();
  if (input.accessLevel < AccessLevel.OWNER) await assertNotLastOwner(ctx, parent, member);
  const updated = await ctx.db.member.update({
    where: { id: member.id },
    data: { accessLevel: input.accessLevel, ...(input.expiresAt !== undefined && { expiresAt: input.expiresAt }) },
    include: { user: true },
  });
  await announceMember(ctx, parent, updated, 'updated');
  return updated;
}

/** Members may always leave; removing others needs the manager role. */
export async function removeMember(ctx: Context, parent: Parent, userId: number): Promise<MemberWithUser> {
  const member = await ctx.db.member.findFirst({ where: { ...directScope(parent), userId }, include: { user: true } });
  if (userId !== ctx.viewer.userId) await requireParentAccess(ctx, parent, manageLevel(parent));
  if (!member) throw new NotFoundError('Member');
  if (userId !== ctx.viewer.userId && member.accessLevel > (await parentAccessLevel(ctx, parent))) throw new ForbiddenError();
  await assertNotLastOwner(ctx, parent, member);
  await ctx.db.member.delete({ where: { id: member.id } });
  await announceMember(ctx, parent, member, 'removed');
  return member;
}

export type MembershipSourceType = 'Project' | 'Namespace';
export type UserMembership = Member & { project: { name: string } | null; namespace: { name: string } | null };

/**
 * A user's direct memberships, of projects and groups (`Namespace`, as GitLab names the source
 * type), for administrators: GitLab's `GET /users/:id/memberships`.
 */
export async function listUserMemberships(ctx: Context, userId: number, type: MembershipSourceType | null): Promise<Listing<UserMembership>> {
  ctx.policy.requireAdmin();
  if (!(await ctx.loaders.user.load(userId))) throw new NotFoundError('User');
  const where = {
    userId,
    ...(type === 'Project' && { projectId: { not: null } }),
    ...(type === 'Namespace' && { namespaceId: { not: null } }),
  };
  const source = { select: { name: true } };
  return {
    fetch: ({ offset, limit }) =>
      ctx.db.member.findMany({ where, include: { project: source, namespace: source }, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.member.count({ where, take: ctx.countLimit }),
  };
}
