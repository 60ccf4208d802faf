import type { Namespace, Prisma } from '../../generated/prisma/client.ts';

/** Moves the full paths of every namespace below `group` from its current full path to `fullPath`, each keeping its own tail. */
export async function moveDescendantPaths(tx: Prisma.TransactionClient, group: Pick<Namespace, 'id' | 'fullPath'>, fullPath: string): Promise<void> {
  await tx.$executeRaw`UPDATE namespaces SET full_path = ${fullPath} || substr(full_path, ${group.fullPath.length + 1})
    WHERE ${group.id} = ANY(traversal_ids) AND id <> ${group.id}`;
}
