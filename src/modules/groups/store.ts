import type { Namespace, Prisma, Visibility } from '../../generated/prisma/client.ts';

/** Moves the full paths of every namespace below `group` from its current full path to `fullPath`, each keeping its own tail. */
export async function moveDescendantPaths(tx: Prisma.TransactionClient, group: Pick<Namespace, 'id' | 'fullPath'>, fullPath: string): Promise<void> {
  await tx.$executeRaw`UPDATE namespaces SET full_path = ${fullPath} || substr(full_path, ${group.fullPath.length + 1})
    WHERE ${group.id} = ANY(traversal_ids) AND id <> ${group.id}`;
}

/**
 * Moves `group` with everything below it under a new parent (`id` null: the top level): each
 * namespace's ancestor ids become the parent's followed by its own from `group` down, its full
 * path the new one followed by its own tail.
 */
export async function moveSubtree(
  tx: Prisma.TransactionClient,
  group: Pick<Namespace, 'id' | 'fullPath'>,
  parent: { id: number | null; traversalIds: number[]; fullPath: string },
): Promise<void> {
  await tx.$executeRaw`UPDATE namespaces SET
      traversal_ids = ${parent.traversalIds}::int[] || traversal_ids[array_position(traversal_ids, ${group.id}::int):],
      full_path = ${parent.fullPath} || substr(full_path, ${group.fullPath.length + 1}),
      parent_id = CASE WHEN id = ${group.id} THEN ${parent.id}::int ELSE parent_id END
    WHERE ${group.id} = ANY(traversal_ids)`;
}

/** Lowers the visibility of a group, its subgroups and their projects to at most `visibility`. */
export async function capVisibility(tx: Prisma.TransactionClient, groupId: number, visibility: Visibility): Promise<void> {
  const allowed = visibility === 'private' ? ['private'] : ['private', 'internal'];
  await tx.$executeRaw`UPDATE namespaces SET visibility = ${visibility}::"Visibility"
    WHERE ${groupId} = ANY(traversal_ids) AND visibility::text <> ALL(${allowed}::text[])`;
  await tx.$executeRaw`UPDATE projects p SET visibility = ${visibility}::"Visibility" FROM namespaces n
    WHERE n.id = p.namespace_id AND ${groupId} = ANY(n.traversal_ids) AND p.visibility::text <> ALL(${allowed}::text[])`;
}
