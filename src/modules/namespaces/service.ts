import { AccessLevel } from '../../auth/access-levels.ts';
import type { Context } from '../../core/context.ts';
import { UnauthorizedError } from '../../core/errors.ts';
import { containsIgnoringCase, equalsIgnoringCase, startsWithIgnoringCase } from '../../core/input.ts';
import type { Listing } from '../../core/listing.ts';
import type { Namespace, Prisma } from '../../generated/prisma/client.ts';
import { pathProblems } from './paths.ts';

export type NamespaceFilter = { search?: string | null; ownedOnly?: boolean | null; topLevelOnly?: boolean | null };

/**
 * GitLab's `GET /namespaces`: every namespace for an administrator; for anyone else their own
 * personal namespace and the groups they belong to (through the group, a group above it or a
 * share), those they own with `ownedOnly`.
 */
export function listNamespaces(ctx: Context, filter: NamespaceFilter): Listing<Namespace> {
  const user = ctx.viewer.user;
  if (!user) throw new UnauthorizedError();
  const level = filter.ownedOnly ? AccessLevel.OWNER : AccessLevel.MINIMAL_ACCESS;
  const mine: Prisma.NamespaceWhereInput =
    ctx.viewer.isAdmin && !filter.ownedOnly
      ? {}
      : { OR: [{ ownerId: user.id }, { authorizations: { some: { userId: user.id, accessLevel: { gte: level } } } }] };
  const where: Prisma.NamespaceWhereInput = {
    AND: [
      mine,
      ...(filter.search ? [{ OR: [{ name: containsIgnoringCase(filter.search) }, { path: containsIgnoringCase(filter.search) }] }] : []),
      ...(filter.topLevelOnly ? [{ parentId: null }] : []),
    ],
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.namespace.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.namespace.count({ where, take: ctx.countLimit }),
  };
}

/**
 * A namespace by id or full path, for those who administer it (GitLab's `admin_namespace`): the
 * owner of a personal namespace, the Owners of a group, administrators. Null otherwise.
 */
export async function findAdministeredNamespace(ctx: Context, ref: { id?: number | null; fullPath?: string | null }): Promise<Namespace | null> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const namespace = ref.id != null ? await ctx.loaders.namespace.load(ref.id) : ref.fullPath ? await namespaceByFullPath(ctx, ref.fullPath) : null;
  if (!namespace) return null;
  return (await ctx.policy.groupAccessLevel(namespace)) >= AccessLevel.OWNER ? namespace : null;
}

export type NamespaceExists = { exists: boolean; suggests: string[] };

/**
 * Whether a path is taken at the top level or under `parentId`, and when it is, the first free
 * path made of it and a number (GitLab's `Namespace.clean_path`), for a form to offer.
 */
export async function namespaceExists(ctx: Context, path: string, parentId: number | null): Promise<NamespaceExists> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  // Every candidate (the path, then the path and a number) starts with the path: one read finds
  // which are taken.
  const siblings = await ctx.db.namespace.findMany({ where: { parentId, path: startsWithIgnoringCase(path) }, select: { path: true } });
  const taken = new Set(siblings.map((s) => s.path.toLowerCase()));
  const base = path.toLowerCase();
  if (!taken.has(base)) return { exists: false, suggests: [] };
  for (let n = 1; ; n++) {
    const candidate = `${base}${n}`;
    if (!taken.has(candidate) && !pathProblems(candidate, { topLevel: parentId == null }).length) return { exists: true, suggests: [candidate] };
  }
}

/**
 * A group or a user's namespace by its full path whatever its case (GitLab compares paths so),
 * whoever asks: an escaped ILIKE, which the paths' trigram index serves and in which a `_` or `%`
 * of the path matches only itself, never another namespace.
 */
export const namespaceByFullPath = (ctx: Context, fullPath: string) => ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) } });

/** A group or a user's namespace by its full path, as the viewer may see it (null otherwise, as GitLab's `namespace` answers). */
export async function findNamespace(ctx: Context, fullPath: string): Promise<Namespace | null> {
  const namespace = await namespaceByFullPath(ctx, fullPath);
  return namespace && (await ctx.policy.canReadNamespace(namespace)) ? namespace : null;
}
