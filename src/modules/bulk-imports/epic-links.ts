// Epic parents of a migration. An epic's record names its parent by iid and source group; the
// parent may come in a later batch, or live in another group of the same migration whose epics
// are imported later (an ancestor group's, as GitLab allows). So every imported epic's parent is
// kept as a pending link, and each entity whose epics finish links every pending link of the
// migration whose two ends now exist: whichever of the two groups finishes last links them.
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { MAX_HIERARCHY_DEPTH, recomputeEpicDates } from '../epics/service.ts';
import type { EpicParentRef } from '../relation-exports/import.ts';

/** A link left out, and why (GitLab's validation messages of an epic's parent). */
export type RefusedLink = { childEpicId: number; childGroupId: number; message: string };

const refusal = (message: string) => `Validation failed: Parent This epic cannot be added. ${message}`;
const CYCLE = refusal('It is already an ancestor of the parent epic.');
const OUTSIDE = refusal('An epic must belong to the same group or subgroup as its parent epic.');
const TOO_DEEP = refusal(`One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`);

/** Records the parents of a group's freshly imported epics (a re-run records nothing twice). */
export async function keepEpicParents(ctx: Context, bulkImportId: number, groupId: number, refs: EpicParentRef[]) {
  if (!refs.length) return;
  const children = await ctx.db.epic.findMany({ where: { groupId, iid: { in: refs.map((r) => r.childIid) } }, select: { id: true, iid: true } });
  const idOf = new Map(children.map((e) => [e.iid, e.id]));
  const data = refs.flatMap((r) => {
    const childEpicId = idOf.get(r.childIid);
    return childEpicId === undefined ? [] : [{ bulkImportId, childEpicId, parentGroupXid: r.parentGroupId, parentIid: r.parentIid }];
  });
  await ctx.db.bulkImportEpicLink.createMany({ data, skipDuplicates: true });
}

type Node = { id: number; groupId: number; parentId: number | null };

/**
 * Links every pending link of the migration whose parent now exists, within the product's rules:
 * the parent in the child's group or an ancestor, no loop, no chain past GitLab's depth. A link
 * that breaks one is dropped (the epic stays, top-level) and returned. Runs under a lock on the
 * migration's row, so two entities finishing together do not link the same epics twice.
 */
export async function linkEpicParents(ctx: Context, bulkImportId: number): Promise<RefusedLink[]> {
  return ctx.db.$transaction(async (tx) => {
    await tx.bulkImport.update({ where: { id: bulkImportId }, data: { updatedAt: new Date() } });
    const pending = await tx.bulkImportEpicLink.findMany({ where: { bulkImportId }, orderBy: { id: 'asc' } });
    if (!pending.length) return [];
    const groupOfXid = await migratedGroups(tx, bulkImportId);
    const children = new Map(
      (await tx.epic.findMany({ where: { id: { in: pending.map((p) => p.childEpicId) } }, select: { id: true, groupId: true, parentId: true } })).map((e) => [
        e.id,
        e,
      ]),
    );
    const targets = pending.flatMap((link) => {
      const child = children.get(link.childEpicId);
      if (!child) return [];
      const parentGroupId = link.parentGroupXid === null ? child.groupId : groupOfXid.get(link.parentGroupXid);
      return parentGroupId === undefined ? [] : [{ link, child, parentGroupId }];
    });
    const parents = await epicsByIid(
      tx,
      targets.map((t) => ({ groupId: t.parentGroupId, iid: t.link.parentIid })),
    );
    const resolved = targets.flatMap(({ link, child, parentGroupId }) => {
      const parent = parents.get(`${parentGroupId}:${link.parentIid}`);
      return parent ? [{ link, child, parent }] : [];
    });
    if (!resolved.length) return [];
    const forest = await Forest.load(tx, [...new Set(resolved.flatMap((r) => [r.child.groupId, r.parent.groupId]))]);
    const refused: RefusedLink[] = [];
    const accepted = new Map<number, number[]>();
    for (const { child, parent } of resolved) {
      const problem = forest.problem(child, parent);
      if (problem) refused.push({ childEpicId: child.id, childGroupId: child.groupId, message: problem });
      else {
        forest.link(child.id, parent.id);
        accepted.set(parent.id, [...(accepted.get(parent.id) ?? []), child.id]);
      }
    }
    // One statement per parent, each setting all its children.
    for (const [parentId, ids] of accepted) await tx.epic.updateMany({ where: { id: { in: ids } }, data: { parentId } });
    // The parents' stored dates now inherit from their children (GitLab's importer runs its dates service too).
    await recomputeEpicDates(tx, [...accepted.keys()]);
    await tx.bulkImportEpicLink.deleteMany({ where: { id: { in: resolved.map((r) => r.link.id) } } });
    return refused;
  });
}

/** The migration's groups on the destination, by their id on the source. */
async function migratedGroups(tx: Prisma.TransactionClient, bulkImportId: number): Promise<Map<number, number>> {
  const rows = await tx.bulkImportEntity.findMany({
    where: { bulkImportId, sourceType: 'group_entity', sourceXid: { not: null }, namespaceId: { not: null } },
    select: { sourceXid: true, namespaceId: true },
  });
  return new Map(rows.map((r) => [r.sourceXid!, r.namespaceId!]));
}

/** Epics by (group, iid): one query per group. */
async function epicsByIid(tx: Prisma.TransactionClient, keys: { groupId: number; iid: number }[]): Promise<Map<string, Node>> {
  const byGroup = new Map<number, Set<number>>();
  for (const { groupId, iid } of keys) byGroup.set(groupId, (byGroup.get(groupId) ?? new Set()).add(iid));
  const found = new Map<string, Node>();
  for (const [groupId, iids] of byGroup) {
    const rows = await tx.epic.findMany({ where: { groupId, iid: { in: [...iids] } }, select: { id: true, iid: true, groupId: true, parentId: true } });
    for (const e of rows) found.set(`${groupId}:${e.iid}`, e);
  }
  return found;
}

/** The epic trees of the groups involved, held in memory while links are checked and added. */
class Forest {
  private readonly parentOf = new Map<number, number | null>();
  private readonly childrenOf = new Map<number, number[]>();

  private constructor(
    nodes: { id: number; parentId: number | null }[],
    private readonly ancestorsOfGroup: Map<number, number[]>,
  ) {
    for (const { id } of nodes) this.parentOf.set(id, null);
    for (const { id, parentId } of nodes) if (parentId !== null) this.link(id, parentId);
  }

  static async load(tx: Prisma.TransactionClient, groupIds: number[]): Promise<Forest> {
    const groups = await tx.namespace.findMany({ where: { id: { in: groupIds } }, select: { id: true, traversalIds: true } });
    const nodes = await tx.epic.findMany({ where: { groupId: { in: groupIds } }, select: { id: true, parentId: true } });
    return new Forest(nodes, new Map(groups.map((g) => [g.id, g.traversalIds])));
  }

  link(childId: number, parentId: number) {
    const previous = this.parentOf.get(childId);
    if (previous != null)
      this.childrenOf.set(
        previous,
        (this.childrenOf.get(previous) ?? []).filter((id) => id !== childId),
      );
    this.parentOf.set(childId, parentId);
    this.childrenOf.set(parentId, [...(this.childrenOf.get(parentId) ?? []), childId]);
  }

  /** The parent and its ancestors, nearest first (a loop ends the walk). */
  private chain(epicId: number): number[] {
    const chain: number[] = [];
    for (let at: number | null | undefined = epicId; at != null && !chain.includes(at); at = this.parentOf.get(at)) chain.push(at);
    return chain;
  }

  /** Epics on the longest path down from `epicId`, itself included, counted up to `limit`. */
  private depth(epicId: number, limit: number): number {
    if (limit <= 1) return 1;
    let deepest = 0;
    for (const child of this.childrenOf.get(epicId) ?? []) deepest = Math.max(deepest, this.depth(child, limit - 1));
    return 1 + deepest;
  }

  /** Why `child` may not take `parent` (the epics module's rules for a move), or null. */
  problem(child: Node, parent: Node): string | null {
    const chain = this.chain(parent.id);
    if (chain.includes(child.id)) return CYCLE;
    if (!(this.ancestorsOfGroup.get(child.groupId) ?? []).includes(parent.groupId)) return OUTSIDE;
    if (this.depth(child.id, MAX_HIERARCHY_DEPTH) + chain.length >= MAX_HIERARCHY_DEPTH) return TOO_DEEP;
    return null;
  }
}
