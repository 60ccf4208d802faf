import type { AccessRequest, User } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { Context } from '../../core/context.ts';
import { ConflictError, ForbiddenError, RecordNotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { assertCanGrant, manageLevel, parentIds, type MemberWithUser } from '../members/service.ts';
import { parentAccessLevel, requireParentAccess, resolveParent, type Parent, type ParentInput } from '../parents/parent.ts';

export type AccessRequestWithUser = AccessRequest & { user: User };

declare module '../../core/events.ts' {
  interface DomainEvents {
    /** A user asked to join a project or group; the request was approved, denied or withdrawn. */
    accessRequest: {
      projectId: number | null;
      groupId: number | null;
      userId: number;
      actorId: number | null;
      action: 'requested' | 'approved' | 'denied' | 'withdrawn';
    };
  }
}

function announceRequest(ctx: Context, parent: Parent, userId: number, action: 'requested' | 'approved' | 'denied' | 'withdrawn') {
  return ctx.deps.events.publish('accessRequest', { ...parentIds(parent), userId, actorId: ctx.viewer.userId, action });
}

/** What an approval grants unless the approver says otherwise. */
export const DEFAULT_APPROVAL_LEVEL = AccessLevel.DEVELOPER;

const scopeOf = (parent: Parent) => (parent.kind === 'project' ? { projectId: parent.project.id } : { namespaceId: parent.group.id });

function requireSignedIn(ctx: Context): User {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  return ctx.viewer.user;
}

/** GitLab authenticates these routes before it looks the project or group up: anonymous is 401, not 404. */
async function signedInParent(ctx: Context, input: ParentInput): Promise<{ user: User; parent: Parent }> {
  const user = requireSignedIn(ctx);
  return { user, parent: await resolveParent(ctx, input) };
}

/**
 * Pending requests of a project or group, oldest first; for those who manage its members (a
 * project's Maintainers, a group's Owners: GitLab's `admin_member_access_request`).
 */
export async function listAccessRequests(ctx: Context, parent: Parent): Promise<Listing<AccessRequestWithUser>> {
  requireSignedIn(ctx);
  await requireParentAccess(ctx, parent, manageLevel(parent));
  const where = scopeOf(parent);
  return {
    fetch: ({ offset, limit }) => ctx.db.accessRequest.findMany({ where, include: { user: true }, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.accessRequest.count({ where, take: ctx.countLimit }),
  };
}

/** Groups can turn requests off (`request_access_enabled`); projects always accept them. */
const acceptsRequests = (parent: Parent) => parent.kind === 'project' || parent.group.requestAccessEnabled;

/**
 * The viewer asks to join. Members (directly or through a parent group) and sources that refuse
 * requests answer 403; a second request by the same user is GitLab's uniqueness error (400).
 */
export async function requestAccess(ctx: Context, input: ParentInput): Promise<AccessRequestWithUser> {
  const { user, parent } = await signedInParent(ctx, input);
  if (!acceptsRequests(parent) || (await parentAccessLevel(ctx, parent)) > AccessLevel.NO_ACCESS) throw new ForbiddenError();
  const request = await ctx.db.accessRequest.create({ data: { ...scopeOf(parent), userId: user.id }, include: { user: true } }).catch((error) => {
    if (isUniqueViolation(error)) throw new ValidationError({ user_id: ['already exists in source'] });
    throw error;
  });
  await announceRequest(ctx, parent, user.id, 'requested');
  return request;
}

/**
 * A manager of the members (see `manageLevel`) turns a pending request into a membership at
 * `accessLevel` (Developer by default), never above their own level. The request row is consumed by a DELETE inside the
 * transaction that creates the member, so concurrent approvals of one request in any number of
 * processes create one membership: the others find no request (404), and the members table's
 * unique (parent, user) index backs it.
 */
export async function approveAccessRequest(
  ctx: Context,
  input: ParentInput,
  userId: number,
  accessLevel: number = DEFAULT_APPROVAL_LEVEL,
): Promise<MemberWithUser> {
  const { parent } = await signedInParent(ctx, input);
  await assertCanGrant(ctx, parent, accessLevel);
  const scope = scopeOf(parent);
  const member = await ctx.db
    .$transaction(async (tx) => {
      const { count } = await tx.accessRequest.deleteMany({ where: { ...scope, userId } });
      if (count === 0) throw new RecordNotFoundError();
      return tx.member.create({ data: { ...scope, userId, accessLevel, createdById: ctx.viewer.userId }, include: { user: true } });
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Member already exists');
      throw error;
    });
  await announceRequest(ctx, parent, userId, 'approved');
  return member;
}

/** Denies a request (a manager of the members, see `manageLevel`) or withdraws it (the requester). */
export async function denyAccessRequest(ctx: Context, input: ParentInput, userId: number): Promise<AccessRequestWithUser> {
  const { user: viewer, parent } = await signedInParent(ctx, input);
  const request = await ctx.db.accessRequest.findFirst({ where: { ...scopeOf(parent), userId }, include: { user: true } });
  if (!request) throw new RecordNotFoundError();
  if (userId !== viewer.id) await requireParentAccess(ctx, parent, manageLevel(parent));
  await ctx.db.accessRequest.deleteMany({ where: { id: request.id } });
  await announceRequest(ctx, parent, userId, userId === viewer.id ? 'withdrawn' : 'denied');
  return request;
}
