import { containsIgnoringCase, equalsIgnoringCase } from '../../core/input.ts';
import type { Prisma, User } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { type Avatar, readAvatar, writeAvatar } from '../../core/avatars.ts';
import type { Upload } from '../../core/upload.ts';
import { ConflictError, DomainError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import type { Listing } from '../../core/listing.ts';
import { keysetOf, seekWhere, type SortKey } from '../../db/keyset.ts';
import { pathProblems } from '../namespaces/paths.ts';
import { userIdsWithEmail } from '../../core/store.ts';

export type UserInput = {
  username?: string | null;
  name?: string | null;
  email?: string | null;
  password?: string | null;
  admin?: boolean | null;
  bio?: string | null;
  canCreateGroup?: boolean | null;
  projectsLimit?: number | null;
  skipConfirmation?: boolean | null;
  state?: User['state'] | null;
  avatar?: Upload | null;
};

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Users are public profiles: any viewer may look one up (e-mails are gated on the type). */
export async function findUser(ctx: Context, by: { id?: number | null; username?: string | null }): Promise<User | null> {
  if (by.id != null) return ctx.loaders.user.load(by.id);
  if (by.username) return ctx.db.user.findFirst({ where: { username: equalsIgnoringCase(by.username) } });
  return null;
}

export type UserFilter = {
  usernames?: string[] | null;
  search?: string | null;
  active?: boolean | null;
  blocked?: boolean | null;
  /** Members of this group, its subgroups or their projects (GitLab's `groupId`: the placeholder page's assignees). */
  groupId?: number | null;
  /** Regular users only: no placeholder of an import, no import user (GitLab's `humans`). */
  humans?: boolean | null;
};

/** Users with a membership in the group's tree: the group, a subgroup, or a project in either. */
async function membersOfGroupTree(ctx: Context, groupId: number): Promise<Prisma.UserWhereInput> {
  const group = await ctx.db.namespace.findFirst({ where: { id: groupId, kind: 'group' } });
  // An unknown group and one the viewer cannot see answer alike.
  if (!group || !(await ctx.policy.canReadNamespace(group))) throw new NotFoundError('Group');
  const inTree = { traversalIds: { has: groupId } };
  return { memberships: { some: { OR: [{ namespace: inTree }, { project: { namespace: inTree } }] } } };
}

/** Users are listed newest first, by id alone (GitLab's default `order_by=id`, its keyset order). */
const USER_SORT_KEYS: SortKey[] = [{ key: 'id', column: 'id', kind: 'int' }];

const HUMANS: Prisma.UserWhereInput = { placeholderFor: { none: {} }, importUserOf: { is: null } };

/**
 * The search: name and username contain it, or (administrators only, so it cannot enumerate
 * addresses) the e-mail is it exactly, case aside, as GitLab's user search matches e-mails. The
 * e-mail's users are looked up first, by their index.
 */
async function userSearch(ctx: Context, search: string): Promise<Prisma.UserWhereInput> {
  const byEmail = ctx.viewer.isAdmin ? await userIdsWithEmail(ctx.db, search) : [];
  return {
    OR: [{ username: containsIgnoringCase(search) }, { name: containsIgnoringCase(search) }, ...(byEmail.length ? [{ id: { in: byEmail } }] : [])],
  };
}

export async function listUsers(ctx: Context, filter: UserFilter): Promise<Listing<User>> {
  const where: Prisma.UserWhereInput = {
    ...(filter.usernames?.length && { OR: filter.usernames.map((u) => ({ username: equalsIgnoringCase(u) })) }),
    AND: [
      ...(filter.search ? [await userSearch(ctx, filter.search)] : []),
      ...(filter.groupId != null ? [await membersOfGroupTree(ctx, filter.groupId)] : []),
      ...(filter.humans ? [HUMANS] : []),
    ],
    ...(filter.active && { state: 'active' as const }),
    ...(filter.blocked && { state: 'blocked' as const }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.user.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.user.count({ where, take: ctx.countLimit }),
    keyset: keysetOf(USER_SORT_KEYS, (seek) => {
      const past = seekWhere(USER_SORT_KEYS, false, seek);
      return ctx.db.user.findMany({ where: { AND: [where, ...past.where] }, orderBy: past.orderBy, take: seek.limit });
    }),
  };
}

async function validateUser(db: Db, input: UserInput, existing?: User) {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] ??= [];
    errors[field].push(message);
  };
  if (input.username != null) for (const m of pathProblems(input.username, { topLevel: true })) add('username', m);
  if (input.email != null && !EMAIL_PATTERN.test(input.email)) add('email', 'is invalid');
  if (input.name != null && input.name.trim() === '') add('name', "can't be blank");
  if (input.password != null && input.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
  if (input.projectsLimit != null && input.projectsLimit < 0) add('projects_limit', 'must be greater than or equal to 0');
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const other = existing ? { id: { not: existing.id } } : {};
  if (input.username != null) {
    const taken =
      (await db.user.findFirst({ where: { ...other, username: equalsIgnoringCase(input.username) } })) ||
      (await db.namespace.findFirst({
        where: { parentId: null, path: equalsIgnoringCase(input.username), ...(existing && { NOT: { ownerId: existing.id } }) },
      }));
    if (taken) throw new ConflictError('Username has already been taken');
  }
  if (input.email != null && (await userIdsWithEmail(db, input.email)).some((id) => id !== existing?.id)) {
    throw new ConflictError('Email has already been taken');
  }
}

export type UserCreateInput = UserInput & {
  username: string;
  name: string;
  email: string;
  /** GitLab mails a reset link; forgegate sends no mail and keeps no password (see createUser). */
  resetPassword?: boolean | null;
  forceRandomPassword?: boolean | null;
};

/**
 * Creates a user with its personal namespace (administrators only). The password is given, or
 * asked to be random (`force_random_password`, `reset_password`): GitLab's `at_least_one_of`.
 * It is checked and not kept: accounts sign in with tokens only (docs/api.md), so nothing would
 * ever read it.
 */
export async function createUser(ctx: Context, input: UserCreateInput): Promise<User> {
  ctx.policy.requireAdmin();
  checkInput(rules.atLeastOneOf(input, { password: 'password', resetPassword: 'reset_password', forceRandomPassword: 'force_random_password' }));
  if (input.password == null && !input.forceRandomPassword && !input.resetPassword) throw new ValidationError({ password: ["can't be blank"] });
  const avatar = input.avatar ? await readAvatar(input.avatar) : null;
  return storeAvatar(ctx, await createUserRecord(ctx.db, input), avatar);
}

/** Keeps a checked avatar as the user's (in place of the one before). */
async function storeAvatar(ctx: Context, user: User, avatar: Avatar | null): Promise<User> {
  if (!avatar) return user;
  const name = await writeAvatar(ctx.deps.config.dataDir, 'user', user.id, avatar);
  ctx.loaders.user.clear(user.id);
  return ctx.db.user.update({ where: { id: user.id }, data: { avatar: name } });
}

export async function createUserRecord(db: Db, input: UserInput & { username: string; name: string; email: string }): Promise<User> {
  await validateUser(db, input);
  return db
    .$transaction(async (tx) => {
      const user = await tx.user.create({
        data: {
          username: input.username,
          name: input.name,
          email: input.email,
          isAdmin: input.admin ?? false,
          bio: input.bio ?? '',
          canCreateGroup: input.canCreateGroup ?? true,
          projectsLimit: input.projectsLimit ?? 100000,
          confirmedAt: input.skipConfirmation === false ? null : new Date(),
        },
      });
      const namespace = await tx.namespace.create({
        data: { kind: 'user', name: input.name, path: input.username, fullPath: input.username, ownerId: user.id, visibility: 'public' },
      });
      await tx.namespace.update({ where: { id: namespace.id }, data: { traversalIds: [namespace.id] } });
      return user;
    })
    .catch(rethrowUniqueAsConflict);
}

/** Updates a user (administrators only); renaming the user moves its namespace along. */
export async function updateUser(ctx: Context, id: number, input: UserInput): Promise<User> {
  ctx.policy.requireAdmin();
  const user = await ctx.db.user.findUnique({ where: { id } });
  if (!user) throw new NotFoundError('User');
  await validateUser(ctx.db, input, user);
  const avatar = input.avatar ? await readAvatar(input.avatar) : null;
  const updated = await ctx.db
    .$transaction(async (tx) => {
      const updated = await tx.user.update({
        where: { id },
        data: {
          username: input.username ?? undefined,
          name: input.name ?? undefined,
          email: input.email ?? undefined,
          isAdmin: input.admin ?? undefined,
          bio: input.bio ?? undefined,
          canCreateGroup: input.canCreateGroup ?? undefined,
          projectsLimit: input.projectsLimit ?? undefined,
          state: input.state ?? undefined,
        },
      });
      if (input.username != null || input.name != null) {
        await tx.namespace.update({
          where: { ownerId: id },
          data: { path: updated.username, fullPath: updated.username, name: updated.name },
        });
      }
      return updated;
    })
    .catch(rethrowUniqueAsConflict);
  return storeAvatar(ctx, updated, avatar);
}

/** Two concurrent creates can both pass validation; the unique index decides, answered as 409. */
function rethrowUniqueAsConflict(error: unknown): never {
  if (!isUniqueViolation(error)) throw error;
  const fields =
    (error as { meta?: { driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } } }).meta?.driverAdapterError?.cause?.constraint?.fields ?? [];
  throw new ConflictError(fields.some((f) => f.includes('email')) ? 'Email has already been taken' : 'Username has already been taken');
}

/** GitLab's administrator actions on a user's state (`POST /users/:id/<action>`). */
export const STATE_ACTIONS = ['block', 'unblock', 'ban', 'unban', 'deactivate', 'activate'] as const;
export type StateAction = (typeof STATE_ACTIONS)[number];

/** How long a user must have been idle before an administrator may deactivate them (GitLab's `MINIMUM_INACTIVE_DAYS`). */
const MINIMUM_INACTIVE_DAYS = 90;

/** `render_api_error!(message, 403)`: the sentence alone, without `forbidden!`'s "403 Forbidden - " prefix. */
const refused = (message: string) => new DomainError('FORBIDDEN', 403, { message }, message);

/**
 * The outcome GitLab's REST answers with its 201: true when the state changed, false when
 * activating a user who is already active (`user.activate` refuses the transition), null when
 * there was nothing to do (`break` for an already blocked or deactivated user).
 */
export type StateChange = { user: User; result: boolean | null };

/** The most recent use of the user's own tokens (impersonation is the administrator's doing, not the user's activity). */
async function lastActivity(ctx: Context, userId: number): Promise<Date | null> {
  const { _max } = await ctx.db.personalAccessToken.aggregate({ where: { userId, impersonation: false }, _max: { lastUsedAt: true } });
  return _max.lastUsedAt;
}

/** The state an action moves a user to, or the refusal / no-op GitLab answers instead. */
async function nextState(ctx: Context, user: User, action: StateAction): Promise<User['state'] | null | false> {
  switch (action) {
    case 'block':
      if (user.state === 'ldap_blocked') throw new ForbiddenError('LDAP blocked users cannot be modified by the API');
      return user.state === 'blocked' ? null : 'blocked';
    case 'unblock':
      if (user.state === 'ldap_blocked') throw new ForbiddenError('LDAP blocked users cannot be unblocked by the API');
      if (user.state === 'deactivated') throw new ForbiddenError('Deactivated users cannot be unblocked by the API');
      return user.state === 'active' ? false : 'active';
    case 'ban':
      if (user.state !== 'active') throw refused(`You cannot ban ${user.state} users.`);
      return 'banned';
    case 'unban':
      if (user.state !== 'banned') throw refused(`You cannot unban ${user.state} users.`);
      return 'active';
    case 'deactivate': {
      if (user.state === 'deactivated') return null;
      if (user.state !== 'active') throw new ForbiddenError('A blocked user cannot be deactivated by the API');
      const last = await lastActivity(ctx, user.id);
      if (last && Date.now() - last.getTime() < MINIMUM_INACTIVE_DAYS * 86_400_000) {
        throw new ForbiddenError(`The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`);
      }
      return 'deactivated';
    }
    case 'activate':
      if (BLOCKED_STATES.includes(user.state)) throw new ForbiddenError('A blocked user must be unblocked to be activated');
      return user.state === 'active' ? false : 'active';
  }
}

const BLOCKED_STATES: readonly User['state'][] = ['blocked', 'banned', 'ldap_blocked'];

/**
 * Blocks, bans or deactivates a user, or lets them back in (administrators only). The change
 * reaches every process's token cache at once (the users trigger), so the user's tokens stop
 * working with the next request: 403 "Your account has been blocked." (or deactivated).
 */
export async function changeUserState(ctx: Context, id: number, action: StateAction): Promise<StateChange> {
  ctx.policy.requireAdmin();
  const user = await ctx.loaders.user.load(id);
  if (!user) throw new NotFoundError('User');
  const state = await nextState(ctx, user, action);
  if (state === null || state === false) return { user, result: state === null ? null : false };
  const updated = await ctx.db.user.update({ where: { id }, data: { state } });
  ctx.loaders.user.clear(id);
  return { user: updated, result: true };
}

/**
 * Deletes a user (administrators only) with their personal namespace and its projects. GitLab
 * moves a deleted user's contributions to its "Ghost User"; forgegate has no such user and
 * keeps the contributions without an author instead (releases and epics answer no `author`, as
 * GitLab's entities do for a missing one). `hardDelete` deletes the contributions too (the
 * releases and epics the user authored) and the groups the user alone owns, with their projects.
 * Without it, a user who alone owns a group is refused (GitLab's delete job fails the same way).
 */
export async function deleteUser(ctx: Context, id: number, hardDelete: boolean): Promise<User> {
  ctx.policy.requireAdmin();
  const user = await ctx.loaders.user.load(id);
  if (!user) throw new NotFoundError('User');
  const soleGroups = await soleOwnedGroupIds(ctx.db, id);
  if (soleGroups.length && !hardDelete) throw new ConflictError('You must transfer ownership or delete groups before you can remove user');
  const doomed = { OR: [{ ownerId: id }, { id: { in: soleGroups } }] };
  const projects = await ctx.db.project.findMany({
    where: { namespace: { OR: [{ ownerId: id }, ...soleGroups.map((g) => ({ traversalIds: { has: g } }))] } },
    select: { id: true },
  });
  let epicParents: { parentId: number | null }[] = [];
  await ctx.db.$transaction(async (tx) => {
    if (hardDelete) {
      await tx.release.deleteMany({ where: { authorId: id } });
      epicParents = await tx.epic.findMany({ where: { authorId: id, parentId: { not: null } }, select: { parentId: true }, distinct: ['parentId'] });
      await tx.epic.deleteMany({ where: { authorId: id } });
    }
    await tx.namespace.deleteMany({ where: doomed });
    await tx.user.delete({ where: { id } });
  });
  ctx.loaders.user.clear(id);
  // The epics area keeps the dates their parents inherited (users cannot reach it: it reaches users).
  if (epicParents.length) await ctx.deps.events.publish('epicsDeleted', { parentIds: epicParents.map((e) => e.parentId!) });
  await Promise.all(projects.map((p) => ctx.deps.git.remove(p.id)));
  return user;
}

/** Groups with no Owner but the user, directly or through a group above them. */
async function soleOwnedGroupIds(db: Db, userId: number): Promise<number[]> {
  const owned = await db.member.findMany({ where: { userId, accessLevel: AccessLevel.OWNER, namespaceId: { not: null } }, select: { namespaceId: true } });
  const ids = owned.map((m) => m.namespaceId!);
  if (!ids.length) return [];
  const others = await db.groupAuthorization.findMany({
    where: { namespaceId: { in: ids }, accessLevel: AccessLevel.OWNER, userId: { not: userId } },
    select: { namespaceId: true },
    distinct: ['namespaceId'],
  });
  const shared = new Set(others.map((m) => m.namespaceId));
  return ids.filter((g) => !shared.has(g));
}
