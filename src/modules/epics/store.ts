import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { DescendantCounts, InheritedDates } from './loaders.ts';

// A guard against cycles and runaway trees; GitLab's hierarchy is at most 7 levels deep.
const WALK_LIMIT = 20;

/**
 * Inherited dates of many epics in one statement: the earliest start and the latest due date of
 * each one's children, whose stored (composite) dates already carry their own subtrees.
 */
export async function inheritedDates(db: Db, ids: readonly number[]): Promise<Map<number, InheritedDates>> {
  const rows = await db.epic.groupBy({ by: ['parentId'], where: { parentId: { in: [...ids] } }, _min: { startDate: true }, _max: { dueDate: true } });
  return new Map(rows.map((r) => [r.parentId!, { startDate: r._min.startDate, dueDate: r._max.dueDate }]));
}

/** Stored composite dates that a refresh changed, by epic id. */
export type StoredDates = Map<number, { startDate: Date | null; dueDate: Date | null }>;

type DatesRow = { id: number; start_date: Date | null; due_date: Date | null };

const storedDates = (rows: DatesRow[]): StoredDates => new Map(rows.map((r) => [r.id, { startDate: r.start_date, dueDate: r.due_date }]));

/**
 * Recomputes the stored composite dates of one epic and then of its ancestors, in one statement,
 * after the epic's fixed dates or children changed (GitLab's Epics::UpdateDatesService, walking up
 * at once rather than a job per level). Going up, each parent's inherited date is the new date of
 * the child the walk comes from against the stored dates of its other children; the walk stops
 * where an epic's dates come out unchanged, as nothing above can change then. Only changed rows
 * are written, and returned.
 */
export async function refreshDates(tx: Prisma.TransactionClient, epicId: number): Promise<StoredDates> {
  const rows = await tx.$queryRaw<DatesRow[]>`
    WITH RECURSIVE chain AS (
      SELECT e.id, e.parent_id, 1 AS depth, e.start_date AS old_start, e.due_date AS old_due,
             CASE WHEN e.start_date_is_fixed THEN e.start_date_fixed ELSE k.start_date END AS start_date,
             CASE WHEN e.due_date_is_fixed THEN e.due_date_fixed ELSE k.due_date END AS due_date
      FROM epics e
      CROSS JOIN LATERAL (SELECT MIN(c.start_date) AS start_date, MAX(c.due_date) AS due_date FROM epics c WHERE c.parent_id = e.id) k
      WHERE e.id = ${epicId}
      UNION ALL
      SELECT p.id, p.parent_id, chain.depth + 1, p.start_date, p.due_date,
             CASE WHEN p.start_date_is_fixed THEN p.start_date_fixed ELSE LEAST(chain.start_date, k.start_date) END,
             CASE WHEN p.due_date_is_fixed THEN p.due_date_fixed ELSE GREATEST(chain.due_date, k.due_date) END
      FROM chain JOIN epics p ON p.id = chain.parent_id
      CROSS JOIN LATERAL (
        SELECT MIN(c.start_date) AS start_date, MAX(c.due_date) AS due_date FROM epics c WHERE c.parent_id = p.id AND c.id <> chain.id
      ) k
      WHERE (chain.start_date, chain.due_date) IS DISTINCT FROM (chain.old_start, chain.old_due) AND chain.depth < ${WALK_LIMIT}
    )
    UPDATE epics e SET start_date = chain.start_date, due_date = chain.due_date FROM chain
    WHERE e.id = chain.id AND (chain.start_date, chain.due_date) IS DISTINCT FROM (chain.old_start, chain.old_due)
    RETURNING e.id, e.start_date, e.due_date`;
  return storedDates(rows);
}

/**
 * Recomputes the stored composite dates of many epics and of all their ancestors in one statement
 * (an import's epics, once linked; the parents of epics deleted in bulk). Unlike `refreshDates`
 * it reads no stored date: walking down from each epic, a child with a fixed date contributes it
 * and ends the walk for that date below it, a child without passes the walk on to its children.
 */
export async function recomputeDates(db: Db | Prisma.TransactionClient, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  await db.$executeRaw`
    WITH RECURSIVE up AS (
      SELECT e.id, e.parent_id, 1 AS depth FROM epics e WHERE e.id = ANY(${[...ids]}::int[])
      UNION
      SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN epics p ON p.id = up.parent_id WHERE up.depth < ${WALK_LIMIT}
    ),
    targets AS (SELECT DISTINCT id FROM up),
    walk AS (
      SELECT c.parent_id AS root_id, c.id, 1 AS depth,
             c.start_date_is_fixed AS start_done, c.due_date_is_fixed AS due_done,
             CASE WHEN c.start_date_is_fixed THEN c.start_date_fixed END AS start_candidate,
             CASE WHEN c.due_date_is_fixed THEN c.due_date_fixed END AS due_candidate
      FROM epics c WHERE c.parent_id IN (SELECT id FROM targets)
      UNION ALL
      SELECT w.root_id, c.id, w.depth + 1,
             w.start_done OR c.start_date_is_fixed, w.due_done OR c.due_date_is_fixed,
             CASE WHEN NOT w.start_done AND c.start_date_is_fixed THEN c.start_date_fixed END,
             CASE WHEN NOT w.due_done AND c.due_date_is_fixed THEN c.due_date_fixed END
      FROM walk w JOIN epics c ON c.parent_id = w.id
      WHERE NOT (w.start_done AND w.due_done) AND w.depth < ${WALK_LIMIT}
    ),
    inherited AS (SELECT root_id, MIN(start_candidate) AS start_date, MAX(due_candidate) AS due_date FROM walk GROUP BY root_id),
    computed AS (
      SELECT e.id,
             CASE WHEN e.start_date_is_fixed THEN e.start_date_fixed ELSE i.start_date END AS start_date,
             CASE WHEN e.due_date_is_fixed THEN e.due_date_fixed ELSE i.due_date END AS due_date
      FROM epics e JOIN targets t ON t.id = e.id LEFT JOIN inherited i ON i.root_id = e.id
    )
    UPDATE epics e SET start_date = computed.start_date, due_date = computed.due_date FROM computed
    WHERE e.id = computed.id AND (e.start_date, e.due_date) IS DISTINCT FROM (computed.start_date, computed.due_date)`;
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
