import { containsIgnoringCase, equalsIgnoringCase } from '../../core/input.ts';
import type { Prisma, User } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import type { Listing } from '../../core/listing.ts';
import { pathProblems } from '../namespaces/paths.ts';

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
  state?: 'active' | 'blocked' | null;
};

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Users are public profiles: any viewer may look one up (e-mails are gated on the type). */
export async function findUser(ctx: Context, by: { id?: number | null; username?: string | null }): Promise<User | null> {
  if (by.id != null) return ctx.loaders.user.load(by.id);
  if (by.username) return ctx.db.user.findFirst({ where: { username: equalsIgnoringCase(by.username) } });
  return null;
}

export function listUsers(
  ctx: Context,
  filter: { usernames?: string[] | null; search?: string | null; active?: boolean | null; blocked?: boolean | null },
): Listing<User> {
  const where: Prisma.UserWhereInput = {
    ...(filter.usernames?.length && { OR: filter.usernames.map((u) => ({ username: equalsIgnoringCase(u) })) }),
    ...(filter.search && {
      AND: [
        {
          OR: [
            { username: containsIgnoringCase(filter.search) },
            { name: containsIgnoringCase(filter.search) },
            // Searching by e-mail is for administrators only, so it cannot enumerate addresses.
            ...(ctx.viewer.isAdmin ? [{ email: equalsIgnoringCase(filter.search) }] : []),
          ],
        },
      ],
    }),
    ...(filter.active && { state: 'active' as const }),
    ...(filter.blocked && { state: 'blocked' as const }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.user.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.user.count({ where, take: ctx.countLimit }),
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
  if (input.email != null && (await db.user.findFirst({ where: { ...other, email: equalsIgnoringCase(input.email) } }))) {
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
  return createUserRecord(ctx.db, input);
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
  return ctx.db
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
}

/** Two concurrent creates can both pass validation; the unique index decides, answered as 409. */
function rethrowUniqueAsConflict(error: unknown): never {
  if (!isUniqueViolation(error)) throw error;
  const fields =
    (error as { meta?: { driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } } }).meta?.driverAdapterError?.cause?.constraint?.fields ?? [];
  throw new ConflictError(fields.some((f) => f.includes('email')) ? 'Email has already been taken' : 'Username has already been taken');
}
