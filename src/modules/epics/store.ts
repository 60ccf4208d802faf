import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { DescendantCounts, InheritedDates } from './loaders.ts';

// A guard against cycles and runaway trees; GitLab's hierarchy is at most 7 levels deep.
const WALK_LIMIT = 20;

/**
 * Inherited dates of many epics in one statement. Walking down from each epic, a start-fixed child
 * contributes its fixed start and ends the walk for starts below it (its own descendants no longer
 * matter); an unfixed child passes the walk on to its children. Due dates likewise, independently.
 */
export async function inheritedDates(db: Db, ids: readonly number[]): Promise<Map<number, InheritedDates>> {
  const rows = await db.$queryRaw<{ root_id: number; start_date: Date | null; due_date: Date | null }[]>`
    WITH RECURSIVE walk AS (
      SELECT c.parent_id AS root_id, c.id, 1 AS depth,
             c.start_date_is_fixed AS start_done, c.due_date_is_fixed AS due_done,
             CASE WHEN c.start_date_is_fixed THEN c.start_date_fixed END AS start_candidate,
             CASE WHEN c.due_date_is_fixed THEN c.due_date_fixed END AS due_candidate
      FROM epics c WHERE c.parent_id = ANY(${[...ids]}::int[])
      UNION ALL
      SELECT w.root_id, c.id, w.depth + 1,
             w.start_done OR c.start_date_is_fixed, w.due_done OR c.due_date_is_fixed,
             CASE WHEN NOT w.start_done AND c.start_date_is_fixed THEN c.start_date_fixed END,
             CASE WHEN NOT w.due_done AND c.due_date_is_fixed THEN c.due_date_fixed END
      FROM walk w JOIN epics c ON c.parent_id = w.id
      WHERE NOT (w.start_done AND w.due_done) AND w.depth < ${WALK_LIMIT}
    )
    SELECT root_id, MIN(start_candidate) AS start_date, MAX(due_candidate) AS due_date FROM walk GROUP BY root_id`;
  return new Map(rows.map((r) => [r.root_id, { startDate: r.start_date, dueDate: r.due_date }]));
}

/** Opened and closed descendants (children, grandchildren, …) of many epics in one statement. */
export async function descendantCounts(db: Db, ids: readonly number[]): Promise<Map<number, DescendantCounts>> {
  const rows = await db.$queryRaw<{ root_id: number; opened: number; closed: number }[]>`
    WITH RECURSIVE walk AS (
      SELECT c.parent_id AS root_id, c.id, c.state, 1 AS depth FROM epics c WHERE c.parent_id = ANY(${[...ids]}::int[])
      UNION ALL
      SELECT w.root_id, c.id, c.state, w.depth + 1 FROM walk w JOIN epics c ON c.parent_id = w.id WHERE w.depth < ${WALK_LIMIT}
    )
    SELECT root_id, COUNT(*) FILTER (WHERE state = 'opened')::int AS opened, COUNT(*) FILTER (WHERE state = 'closed')::int AS closed
    FROM walk GROUP BY root_id`;
  return new Map(rows.map((r) => [r.root_id, { openedEpics: r.opened, closedEpics: r.closed }]));
}

/** Ancestor ids of many epics in one statement, closest first. */
export async function ancestorIds(db: Db, ids: readonly number[]): Promise<Map<number, number[]>> {
  const rows = await db.$queryRaw<{ root_id: number; id: number }[]>`
    WITH RECURSIVE up AS (
      SELECT e.id AS root_id, e.parent_id AS id, 1 AS depth FROM epics e WHERE e.id = ANY(${[...ids]}::int[]) AND e.parent_id IS NOT NULL
      UNION ALL
      SELECT up.root_id, p.parent_id, up.depth + 1 FROM up JOIN epics p ON p.id = up.id WHERE p.parent_id IS NOT NULL AND up.depth < ${WALK_LIMIT}
    )
    SELECT root_id, id FROM up ORDER BY root_id, depth`;
  const byRoot = new Map<number, number[]>();
  for (const row of rows) byRoot.set(row.root_id, [...(byRoot.get(row.root_id) ?? []), row.id]);
  return byRoot;
}

/** Number of epics on the longest chain from `epicId` down (1 for a leaf), walking at most `maxDepth` levels. */
export async function subtreeDepth(tx: Prisma.TransactionClient, epicId: number, maxDepth: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ depth: number }[]>`
    WITH RECURSIVE down AS (
      SELECT id, 1 AS depth FROM epics WHERE id = ${epicId}
      UNION ALL
      SELECT e.id, down.depth + 1 FROM epics e JOIN down ON e.parent_id = down.id WHERE down.depth <= ${maxDepth}
    )
    SELECT MAX(depth)::int AS depth FROM down`;
  return row?.depth ?? 1;
}

/** The epic and its ancestors, the epic first, walking at most `maxDepth` levels. */
export async function selfAndAncestorIds(tx: Prisma.TransactionClient, epicId: number, maxDepth: number): Promise<number[]> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    WITH RECURSIVE up AS (
      SELECT id, parent_id, 1 AS depth FROM epics WHERE id = ${epicId}
      UNION ALL
      SELECT e.id, e.parent_id, up.depth + 1 FROM epics e JOIN up ON e.id = up.parent_id WHERE up.depth <= ${maxDepth}
    )
    SELECT id FROM up ORDER BY depth`;
  return rows.map((r) => r.id);
}
