import { containsIgnoringCase, equalsIgnoringCase } from '../../core/input.ts';
import { keysetOf, seekWhere, type SortKey } from '../../db/keyset.ts';
import type { Namespace, Prisma, Visibility } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { readAvatar, writeAvatar } from '../../core/avatars.ts';
import type { Upload } from '../../core/upload.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import { loadExisting } from '../../core/loaders.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { exceedsVisibility, joinPath, pathFromName, pathProblems } from '../namespaces/paths.ts';
import { capVisibility, moveDescendantPaths, moveSubtree } from './store.ts';

export type GroupRef = { id?: number | null; fullPath?: string | null };

/** A group the viewer may see, by id or full path; null otherwise (REST answers 404). */
export async function findGroup(ctx: Context, ref: GroupRef): Promise<Namespace | null> {
  const group =
    ref.id != null
      ? await ctx.loaders.namespace.load(ref.id)
      : ref.fullPath
        ? await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(ref.fullPath) } })
        : null;
  if (group?.kind !== 'group') return null;
  return (await ctx.policy.canReadNamespace(group)) ? group : null;
}

export async function requireGroup(ctx: Context, ref: GroupRef): Promise<Namespace> {
  const group = await findGroup(ctx, ref);
  if (!group) throw new NotFoundError('Group');
  return group;
}

export type GroupFilter = {
  search?: string | null;
  topLevelOnly?: boolean | null;
  allAvailable?: boolean | null;
  owned?: boolean | null;
  parentId?: number | null;
  descendantsOf?: number | null;
  /** GitLab's `skip_groups[]`: ids left out of the list. */
  skipGroups?: number[] | null;
};

/** Groups are listed by name, the id breaking ties (GitLab's `order_by=name`, its keyset order). */
const GROUP_SORT_KEYS: SortKey[] = [
  { key: 'name', column: 'name', kind: 'text' },
  { key: 'id', column: 'id', kind: 'int' },
];

export async function listGroups(ctx: Context, filter: GroupFilter): Promise<Listing<Namespace>> {
  const readable = await ctx.policy.readableGroupsWhere();
  // Like GitLab, a signed-in non-admin sees their own groups unless all_available is asked for.
  const mineOnly = ctx.viewer.user && !ctx.viewer.isAdmin && !filter.allAvailable && filter.parentId == null && filter.descendantsOf == null;
  const where: Prisma.NamespaceWhereInput = {
    kind: 'group',
    AND: [
      readable,
      ...(mineOnly || filter.owned ? [await ctx.policy.memberGroupsWhere(filter.owned ? AccessLevel.OWNER : AccessLevel.MINIMAL_ACCESS)] : []),
      ...(filter.search ? [{ OR: [{ name: containsIgnoringCase(filter.search) }, { path: containsIgnoringCase(filter.search) }] }] : []),
      ...(filter.topLevelOnly ? [{ parentId: null }] : []),
      ...(filter.parentId != null ? [{ parentId: filter.parentId }] : []),
      ...(filter.descendantsOf != null ? [{ traversalIds: { has: filter.descendantsOf } }, { NOT: { id: filter.descendantsOf } }] : []),
      ...(filter.skipGroups?.length ? [{ id: { notIn: filter.skipGroups } }] : []),
    ],
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.namespace.findMany({ where, orderBy: [{ name: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
    count: () => ctx.db.namespace.count({ where, take: ctx.countLimit }),
    keyset: keysetOf(GROUP_SORT_KEYS, (seek) => {
      const past = seekWhere(GROUP_SORT_KEYS, true, seek);
      return ctx.db.namespace.findMany({ where: { AND: [where, ...past.where] }, orderBy: past.orderBy, take: seek.limit });
    }),
  };
}

export type GroupInput = {
  name: string;
  path?: string | null;
  parentId?: number | null;
  visibility?: Visibility | null;
  description?: string | null;
  requestAccessEnabled?: boolean | null;
};

/** Creates a group (top-level, or a subgroup for Owners of the parent); the creator becomes Owner. */
export async function createGroup(ctx: Context, input: GroupInput): Promise<Namespace> {
  const user = ctx.viewer.user;
  if (!user) throw new UnauthorizedError();
  const parent = input.parentId != null ? await requireGroup(ctx, { id: input.parentId }) : null;
  if (parent) await ctx.policy.requireGroupAccess(parent, AccessLevel.OWNER);
  else if (!user.canCreateGroup && !user.isAdmin) throw new ForbiddenError('You are not allowed to create groups');

  const path = input.path ?? pathFromName(input.name);
  const visibility = input.visibility ?? 'private';
  const errors: Record<string, string[]> = {};
  if (input.name.trim() === '') errors.name = ["can't be blank"];
  const pathErrors = pathProblems(path, { topLevel: !parent });
  if (pathErrors.length) errors.path = pathErrors;
  if (parent && exceedsVisibility(visibility, parent.visibility)) {
    errors.visibility_level = [`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const fullPath = joinPath(parent?.fullPath, path);
  const taken = await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) } });
  if (taken) throw new ValidationError({ path: ['has already been taken'] });

  return ctx.db
    .$transaction(async (tx) => {
      const created = await tx.namespace.create({
        data: {
          kind: 'group',
          name: input.name,
          path,
          fullPath,
          parentId: parent?.id ?? null,
          visibility,
          description: input.description ?? '',
          requestAccessEnabled: input.requestAccessEnabled ?? true,
        },
      });
      const group = await tx.namespace.update({
        where: { id: created.id },
        data: { traversalIds: [...(parent?.traversalIds ?? []), created.id] },
      });
      await tx.member.create({ data: { userId: user.id, namespaceId: group.id, accessLevel: AccessLevel.OWNER, createdById: user.id } });
      return group;
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ValidationError({ path: ['has already been taken'] });
      throw error;
    });
}

/** Deletes a group with its subgroups and projects (Owners only); repositories go after the commit. */
export async function deleteGroup(ctx: Context, ref: GroupRef): Promise<Namespace> {
  const group = await requireGroup(ctx, ref);
  await ctx.policy.requireGroupAccess(group, AccessLevel.OWNER);
  const projects = await ctx.db.project.findMany({
    where: { namespace: { traversalIds: { has: group.id } } },
    select: { id: true },
  });
  // Epics of the subtree nested under epics of the groups above lose their dates there.
  const epicParents = await ctx.db.epic.findMany({
    where: { group: { traversalIds: { has: group.id } }, parent: { group: { NOT: { traversalIds: { has: group.id } } } } },
    select: { parentId: true },
    distinct: ['parentId'],
  });
  await ctx.db.namespace.delete({ where: { id: group.id } });
  if (epicParents.length) await ctx.deps.events.publish('epicsDeleted', { parentIds: epicParents.map((e) => e.parentId!) });
  await Promise.all(projects.map((p) => ctx.deps.git.remove(p.id)));
  return group;
}

/**
 * "Parent / Child" names. The namespace's own row is at hand (its id is the last of its
 * traversal ids), so only its ancestors are loaded, batched through the namespace loader: none
 * for a top-level namespace, the usual case of `name_with_namespace`.
 */
export async function fullName(ctx: Context, namespace: Namespace): Promise<string> {
  const ancestors = await loadExisting(ctx.loaders.namespace, namespace.traversalIds.slice(0, -1));
  return [...ancestors.map((n) => n.name), namespace.name].join(' / ');
}

export type GroupChanges = {
  avatar?: Upload | null;
  name?: string | null;
  path?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  requestAccessEnabled?: boolean | null;
};

/**
 * GitLab's group update (Owners only): a new path moves the full path of the group and of
 * everything below it in one transaction; visibility stays within the parent's and above that
 * of its subgroups and projects.
 */
export async function updateGroup(ctx: Context, ref: GroupRef, changes: GroupChanges): Promise<Namespace> {
  const group = await requireGroup(ctx, ref);
  await ctx.policy.requireGroupAccess(group, AccessLevel.OWNER);
  const parent = group.parentId != null ? await ctx.db.namespace.findUnique({ where: { id: group.parentId } }) : null;
  const errors: Record<string, string[]> = {};
  if (changes.name != null && changes.name.trim() === '') errors.name = ["can't be blank"];
  const path = changes.path ?? group.path;
  if (changes.path != null && changes.path !== group.path) {
    const pathErrors = pathProblems(changes.path, { topLevel: !parent });
    if (pathErrors.length) errors.path = pathErrors;
  }
  const visibility = changes.visibility ?? group.visibility;
  if (changes.visibility && changes.visibility !== group.visibility) {
    const below = { traversalIds: { has: group.id }, NOT: { id: group.id } };
    if (parent && exceedsVisibility(visibility, parent.visibility)) {
      errors.visibility_level = [`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`];
    } else if (
      (await ctx.db.namespace.findMany({ where: { ...below, kind: 'group' }, select: { visibility: true } })).some((g) =>
        exceedsVisibility(g.visibility, visibility),
      )
    ) {
      errors.visibility_level = [`${visibility} is not allowed since there are sub-groups with higher visibility.`];
    } else if (
      (await ctx.db.project.findMany({ where: { namespace: { traversalIds: { has: group.id } } }, select: { visibility: true } })).some((p) =>
        exceedsVisibility(p.visibility, visibility),
      )
    ) {
      errors.visibility_level = [`${visibility} is not allowed since this group contains projects with higher visibility.`];
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const avatar = changes.avatar ? await readAvatar(changes.avatar) : null;
  const fullPath = joinPath(parent?.fullPath, path);
  if (fullPath !== group.fullPath) {
    const taken = await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath), NOT: { id: group.id } } });
    if (taken) throw new ValidationError({ path: ['has already been taken'] });
  }
  const updated = await ctx.db
    .$transaction(async (tx) => {
      if (fullPath !== group.fullPath) {
        // Descendants keep their own tail under the new prefix.
        await moveDescendantPaths(tx, group, fullPath);
      }
      return tx.namespace.update({
        where: { id: group.id },
        data: {
          ...(changes.name != null && { name: changes.name }),
          path,
          fullPath,
          visibility,
          ...(changes.description != null && { description: changes.description }),
          ...(changes.requestAccessEnabled != null && { requestAccessEnabled: changes.requestAccessEnabled }),
          ...(avatar && { avatar: await writeAvatar(ctx.deps.config.dataDir, 'group', group.id, avatar) }),
        },
      });
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ValidationError({ path: ['has already been taken'] });
      throw error;
    });
  ctx.loaders.namespace.clearAll();
  ctx.loaders.project.clearAll();
  return updated;
}

/** GitLab's `Gitlab::Access.all_values`: what a group may be shared with. */
const SHARE_ACCESS_LEVELS = [AccessLevel.GUEST, AccessLevel.REPORTER, AccessLevel.DEVELOPER, AccessLevel.MAINTAINER, AccessLevel.OWNER];

export type ShareInput = { sharedWithGroupId: number; groupAccess: number; expiresAt?: Date | null };

/**
 * Shares a group with another group (Owners of the shared group, who can see the other one):
 * the other group's members get the lower of their level and `groupAccess` here, in the
 * subgroups and in their projects, through the authorization views (migration
 * 20261127160340_users_groups_sharing), so every permission check and list sees it at once.
 */
export async function shareGroup(ctx: Context, ref: GroupRef, input: ShareInput): Promise<Namespace> {
  checkInput(rules.values({ groupAccess: input.groupAccess }, { groupAccess: 'group_access' }, (v) => SHARE_ACCESS_LEVELS.includes(v)));
  const group = await requireGroup(ctx, ref);
  const sharedWith = await requireGroup(ctx, { id: input.sharedWithGroupId });
  await ctx.policy.requireGroupAccess(group, AccessLevel.OWNER);
  if (sharedWith.id === group.id) throw new ConflictError('Shared with group cannot be the same as the shared group');
  await ctx.db.groupGroupLink
    .create({ data: { sharedGroupId: group.id, sharedWithGroupId: sharedWith.id, groupAccess: input.groupAccess, expiresAt: input.expiresAt ?? null } })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Shared with group The group has already been shared with this group');
      throw error;
    });
  return group;
}

/** Stops sharing a group with another (Owners of the shared group); 404 `Group Link` when it was not shared. */
export async function unshareGroup(ctx: Context, ref: GroupRef, sharedWithGroupId: number): Promise<Namespace> {
  const group = await requireGroup(ctx, ref);
  await ctx.policy.requireGroupAccess(group, AccessLevel.OWNER);
  const { count } = await ctx.db.groupGroupLink.deleteMany({ where: { sharedGroupId: group.id, sharedWithGroupId } });
  if (count === 0) throw new NotFoundError('Group Link');
  return group;
}

/** The groups a group is shared with, for its `shared_with_groups`: those the viewer may see. */
export async function sharedWithGroups(ctx: Context, group: Namespace) {
  const links = await ctx.db.groupGroupLink.findMany({ where: { sharedGroupId: group.id }, include: { sharedWithGroup: true }, orderBy: { id: 'asc' } });
  const visible = await Promise.all(links.map((link) => ctx.policy.canReadNamespace(link.sharedWithGroup)));
  return links.filter((_, i) => visible[i]);
}

/**
 * Moves a group under another group, or to the top level without one (Owners of the group, and
 * of the new parent). Paths and ancestor ids of the group and everything below it move in one
 * statement; a group more visible than its new parent becomes as visible as the parent, with its
 * subgroups and projects (GitLab's TransferService does the same). Failures are GitLab's
 * "Transfer failed: …" 400s.
 */
export async function transferGroup(ctx: Context, ref: GroupRef, parentId: number | null): Promise<Namespace> {
  const group = await requireGroup(ctx, ref);
  await ctx.policy.requireGroupAccess(group, AccessLevel.OWNER);
  const parent = parentId == null ? null : await requireGroup(ctx, { id: parentId });
  const failed = (reason: string) => new BadRequestError(`Transfer failed: ${reason}`);
  if (!parent && group.parentId == null) throw failed('Group is already a root group.');
  if (parent && parent.id === group.parentId) throw failed('Group is already associated to the parent group.');
  if (parent?.traversalIds.includes(group.id)) throw failed('Cannot transfer group to one of its subgroup.');
  if (parent && (await ctx.policy.groupAccessLevel(parent)) < AccessLevel.OWNER) throw failed("You don't have enough permissions.");
  if (!parent && pathProblems(group.path, { topLevel: true }).length) throw failed('The group path is a reserved name at the top level.');
  const fullPath = joinPath(parent?.fullPath, group.path);
  if (await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) } })) {
    throw failed('The parent group already has a subgroup or a project with the same path.');
  }
  const visibility = parent && exceedsVisibility(group.visibility, parent.visibility) ? parent.visibility : null;
  await ctx.db.$transaction(async (tx) => {
    await moveSubtree(tx, group, { id: parent?.id ?? null, traversalIds: parent?.traversalIds ?? [], fullPath });
    if (visibility) await capVisibility(tx, group.id, visibility);
  });
  ctx.loaders.namespace.clearAll();
  ctx.loaders.project.clearAll();
  return requireGroup(ctx, { id: group.id });
}
