import type { Prisma, User } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { hashPassword } from '../../auth/passwords.ts';
import type { Context } from '../../graphql/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../graphql/errors.ts';
import type { Listing } from '../../graphql/connections.ts';
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
  if (by.username) return ctx.db.user.findFirst({ where: { username: { equals: by.username, mode: 'insensitive' } } });
  return null;
}

export function listUsers(ctx: Context, filter: { usernames?: string[] | null; search?: string | null; active?: boolean | null; blocked?: boolean | null }): Listing<User> {
  const where: Prisma.UserWhereInput = {
    ...(filter.usernames?.length && { OR: filter.usernames.map((u) => ({ username: { equals: u, mode: 'insensitive' as const } })) }),
    ...(filter.search && {
      AND: [{
        OR: [
          { username: { contains: filter.search, mode: 'insensitive' as const } },
          { name: { contains: filter.search, mode: 'insensitive' as const } },
          // Searching by e-mail is for administrators only, so it cannot enumerate addresses.
          ...(ctx.viewer.isAdmin ? [{ email: { equals: filter.search, mode: 'insensitive' as const } }] : []),
        ],
      }],
    }),
    ...(filter.active && { state: 'active' as const }),
    ...(filter.blocked && { state: 'blocked' as const }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.user.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.user.count({ where }),
  };
}

async function validateUser(db: Db, input: UserInput, existing?: User) {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (input.username != null) for (const m of pathProblems(input.username, { topLevel: true })) add('username', m);
  if (input.email != null && !EMAIL_PATTERN.test(input.email)) add('email', 'is invalid');
  if (input.name != null && input.name.trim() === '') add('name', "can't be blank");
  if (input.password != null && input.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
  if (input.projectsLimit != null && input.projectsLimit < 0) add('projects_limit', 'must be greater than or equal to 0');
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const other = existing ? { id: { not: existing.id } } : {};
  if (input.username != null) {
    const taken =
      (await db.user.findFirst({ where: { ...other, username: { equals: input.username, mode: 'insensitive' } } })) ||
      (await db.namespace.findFirst({
        where: { parentId: null, path: { equals: input.username, mode: 'insensitive' }, ...(existing && { NOT: { ownerId: existing.id } }) },
      }));
    if (taken) throw new ConflictError('Username has already been taken');
  }
  if (input.email != null && (await db.user.findFirst({ where: { ...other, email: { equals: input.email, mode: 'insensitive' } } }))) {
    throw new ConflictError('Email has already been taken');
  }
}

/** Creates a user with its personal namespace (administrators only). */
export async function createUser(ctx: Context, input: UserInput & { username: string; name: string; email: string }): Promise<User> {
  ctx.policy.requireAdmin();
  return createUserRecord(ctx.db, input);
}

export async function createUserRecord(db: Db, input: UserInput & { username: string; name: string; email: string }): Promise<User> {
  await validateUser(db, input);
  const passwordDigest = input.password ? await hashPassword(input.password) : null;
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: {
        username: input.username,
        name: input.name,
        email: input.email,
        passwordDigest,
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
  }).catch(rethrowUniqueAsConflict);
}

/** Updates a user (administrators only); renaming the user moves its namespace along. */
export async function updateUser(ctx: Context, id: number, input: UserInput): Promise<User> {
  ctx.policy.requireAdmin();
  const user = await ctx.db.user.findUnique({ where: { id } });
  if (!user) throw new NotFoundError('User');
  await validateUser(ctx.db, input, user);
  const passwordDigest = input.password ? await hashPassword(input.password) : undefined;
  return ctx.db.$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id },
      data: {
        username: input.username ?? undefined,
        name: input.name ?? undefined,
        email: input.email ?? undefined,
        passwordDigest,
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
  }).catch(rethrowUniqueAsConflict);
}

/** Two concurrent creates can both pass validation; the unique index decides, answered as 409. */
function rethrowUniqueAsConflict(error: unknown): never {
  if (!isUniqueViolation(error)) throw error;
  const fields = (error as { meta?: { driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } } }).meta
    ?.driverAdapterError?.cause?.constraint?.fields ?? [];
  throw new ConflictError(fields.some((f) => f.includes('email')) ? 'Email has already been taken' : 'Username has already been taken');
}
