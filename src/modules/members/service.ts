import type { Member, User } from '../../generated/prisma/client.ts';
import { AccessLevel, MEMBER_ACCESS_LEVELS } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { Listing } from '../../graphql/connections.ts';
import { ConflictError, ForbiddenError, NotFoundError, ParamError } from '../../graphql/errors.ts';
import { requireSourceAccess, sourceAccessLevel, type Source } from '../namespaces/source.ts';

export type MemberWithUser = Member & { user: User };
export type MemberRelation = 'direct' | 'inherited';

const today = () => new Date(new Date().toISOString().slice(0, 10));

/** Where memberships of the source (and, for `inherited`, of its ancestor groups) live. */
function membershipScopes(source: Source, relations: MemberRelation[]) {
  const scopes: ({ projectId: number } | { namespaceId: { in: number[] } })[] = [];
  const ancestors =
    source.kind === 'group'
      ? source.group.traversalIds.slice(0, -1)
      : source.project.namespace.kind === 'group'
        ? source.project.namespace.traversalIds
        : [];
  if (relations.includes('direct')) {
    scopes.push(source.kind === 'project' ? { projectId: source.project.id } : { namespaceId: { in: [source.group.id] } });
  }
  if (relations.includes('inherited') && ancestors.length) scopes.push({ namespaceId: { in: ancestors } });
  return scopes;
}

/**
 * Members of a project or group. With inherited relations a user who belongs at several levels
 * appears once, with the highest access level, as GitLab's `/members/all` does.
 */
export function listMembers(ctx: Context, source: Source, opts: { relations: MemberRelation[]; search?: string | null; userIds?: number[] }): Listing<MemberWithUser> {
  const where = {
    OR: membershipScopes(source, opts.relations),
    AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gte: today() } }] }],
    ...(opts.userIds && { userId: { in: opts.userIds } }),
    ...(opts.search && {
      user: { OR: [{ username: { contains: opts.search, mode: 'insensitive' as const } }, { name: { contains: opts.search, mode: 'insensitive' as const } }] },
    }),
  };
  if (!opts.relations.includes('inherited')) {
    return {
      fetch: ({ offset, limit }) => ctx.db.member.findMany({ where, include: { user: true }, orderBy: { id: 'asc' }, skip: offset, take: limit }),
      count: () => ctx.db.member.count({ where }),
    };
  }
  // Membership lists are short; deduplicating in memory keeps the query portable and simple.
  const all = (async () => {
    const rows = await ctx.db.member.findMany({ where, include: { user: true }, orderBy: [{ accessLevel: 'desc' }, { id: 'asc' }] });
    const best = new Map<number, MemberWithUser>();
    for (const row of rows) if (!best.has(row.userId)) best.set(row.userId, row);
    return [...best.values()].sort((a, b) => a.id - b.id);
  })();
  return {
    fetch: async ({ offset, limit }) => (await all).slice(offset, offset + limit),
    count: async () => (await all).length,
  };
}

export async function findMember(ctx: Context, source: Source, userId: number, inherited = false): Promise<MemberWithUser | null> {
  const [member] = await listMembers(ctx, source, { relations: inherited ? ['direct', 'inherited'] : ['direct'], userIds: [userId] }).fetch({ offset: 0, limit: 1 });
  return member ?? null;
}

const manageLevel = (source: Source) => (source.kind === 'project' ? AccessLevel.MAINTAINER : AccessLevel.OWNER);

/** Managers may not hand out more than they hold (CVE-2023-6396); administrators may. */
async function assertCanGrant(ctx: Context, source: Source, level: number) {
  if (!(MEMBER_ACCESS_LEVELS as readonly number[]).includes(level) || (level === AccessLevel.MINIMAL_ACCESS && source.kind === 'project')) {
    throw new ParamError('access_level does not have a valid value');
  }
  await requireSourceAccess(ctx, source, manageLevel(source));
  if (level > (await sourceAccessLevel(ctx, source))) throw new ForbiddenError();
}

const directScope = (source: Source) => (source.kind === 'project' ? { projectId: source.project.id } : { namespaceId: source.group.id });

async function assertNotLastOwner(ctx: Context, source: Source, member: Member) {
  if (source.kind !== 'group' || member.accessLevel !== AccessLevel.OWNER) return;
  const owners = await ctx.db.member.count({ where: { namespaceId: source.group.id, accessLevel: AccessLevel.OWNER } });
  if (owners <= 1) throw new ForbiddenError('A group must keep at least one owner');
}

export type MemberInput = { userId: number; accessLevel: number; expiresAt?: Date | null };

export async function addMember(ctx: Context, source: Source, input: MemberInput): Promise<MemberWithUser> {
  await assertCanGrant(ctx, source, input.accessLevel);
  const user = await ctx.loaders.user.load(input.userId);
  if (!user) throw new NotFoundError('User');
  return ctx.db.member
    .create({
      data: { ...directScope(source), userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: ctx.viewer.userId },
      include: { user: true },
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Member already exists');
      throw error;
    });
}

export async function updateMember(ctx: Context, source: Source, input: MemberInput): Promise<MemberWithUser> {
  await assertCanGrant(ctx, source, input.accessLevel);
  const member = await ctx.db.member.findFirst({ where: { ...directScope(source), userId: input.userId } });
  if (!member) throw new NotFoundError('Member');
  if (member.accessLevel > (await sourceAccessLevel(ctx, source))) throw new ForbiddenError();
  if (input.accessLevel < AccessLevel.OWNER) await assertNotLastOwner(ctx, source, member);
  return ctx.db.member.update({
    where: { id: member.id },
    data: { accessLevel: input.accessLevel, ...(input.expiresAt !== undefined && { expiresAt: input.expiresAt }) },
    include: { user: true },
  });
}

/** Members may always leave; removing others needs the manager role. */
export async function removeMember(ctx: Context, source: Source, userId: number): Promise<MemberWithUser> {
  const member = await ctx.db.member.findFirst({ where: { ...directScope(source), userId }, include: { user: true } });
  if (userId !== ctx.viewer.userId) await requireSourceAccess(ctx, source, manageLevel(source));
  if (!member) throw new NotFoundError('Member');
  if (userId !== ctx.viewer.userId && member.accessLevel > (await sourceAccessLevel(ctx, source))) throw new ForbiddenError();
  await assertNotLastOwner(ctx, source, member);
  await ctx.db.member.delete({ where: { id: member.id } });
  return member;
}
