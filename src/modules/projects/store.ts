import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { escapeLike } from '../../core/input.ts';
import type { Listing, Seek } from '../../core/listing.ts';
import { seekSql, type SortKey } from '../../db/keyset.ts';
import { PROJECTS_JOIN, projectWithNamespaceColumns } from '../../core/store.ts';
import { Conditions, type SqlReader } from '../../db/rows.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { ProjectFilter } from './service.ts';

/** The project's columns under a key of its own (the row's `project`), so that the viewer's level beside it is not one of its fields. */
const PROJECT_UNDER_ITS_KEY = projectWithNamespaceColumns('project.');

/** A project by id, or by its namespace's full path and its own path (both compared case-insensitively, as GitLab does). */
export type ProjectKey = { id: number } | { namespacePath: string; path: string };

export type Levels = { group: number | null; direct: number | null };
/** A project read with the viewer's levels (absent for anonymous viewers). */
export type ProjectWithLevels = { project: ProjectWithNamespace; levels?: Levels };

/**
 * The viewer's levels as columns of a statement over `projects p JOIN namespaces n`, bound in
 * `conditions`: in the project's group and in the project itself (REST's `permissions`), from
 * which the policy knows the project's. None for anonymous viewers.
 */
function levelColumns(ctx: Context, conditions: Conditions): string {
  const levels = ctx.policy.levelColumns(conditions);
  if (!levels) return '';
  return `, ${levels.group} AS "levels.group", ${levels.direct} AS "levels.direct"`;
}

/**
 * A project with its namespace, read with the viewer's levels (`levelColumns`): the checks that
 * follow, and the answer's `permissions`, then send no statement of their own.
 */
export async function readProject(ctx: Context, key: ProjectKey): Promise<ProjectWithLevels | null> {
  const where = new Conditions();
  const { bind } = where;
  if ('id' in key) {
    // The namespace by its id too: with the project's join alone, the planner may merge-join the
    // namespaces in id order and, for a group newer than its statistics, walk every namespace first.
    const id = bind(key.id);
    where.and(`p.id = ${id} AND n.id = (SELECT namespace_id FROM projects WHERE id = ${id})`);
  }
  // Paths match regardless of case: ILIKE without wildcards (escaped) is read through the paths'
  // trigram indexes, where lower(path) = lower(x) would read every project.
  else where.and(`n.full_path ILIKE ${bind(escapeLike(key.namespacePath))} AND p.path ILIKE ${bind(escapeLike(key.path))}`);
  const select = `SELECT ${PROJECT_UNDER_ITS_KEY}${levelColumns(ctx, where)} FROM ${PROJECTS_JOIN} WHERE ${where}`;
  const [row] = await ctx.deps.sql.rows<ProjectWithLevels>(select, where.values);
  return row ?? null;
}

/** A user's own memberships of projects (not through a group), unexpired. */
export const directProjectLevels = (sql: SqlReader, userId: number, projectIds: readonly number[]) =>
  sql.rows<{ id: number; level: number }>(
    `SELECT m.project_id AS id, m.access_level AS level FROM members m WHERE m.user_id = $1 AND m.project_id = ANY($2)
       AND (m.expires_at IS NULL OR m.expires_at >= (now() AT TIME ZONE 'UTC')::date)`,
    [userId, projectIds],
  );

/** The column each order reads; the id breaks ties so that pages never overlap. */
export const ORDER_COLUMNS = {
  id: 'id',
  name: 'name',
  path: 'path',
  created_at: 'created_at',
  updated_at: 'updated_at',
  last_activity_at: 'last_activity_at',
} as const;

const PROJECT_FIELDS = { id: 'id', name: 'name', path: 'path', created_at: 'createdAt', updated_at: 'updatedAt', last_activity_at: 'lastActivityAt' } as const;

/** A project list's sort keys: its order's column, then the id (alone when sorted by id). */
export function projectSortKeys(order: keyof typeof ORDER_COLUMNS | null = 'created_at'): SortKey[] {
  const orderBy = order ?? 'created_at';
  const id: SortKey = { key: 'id', column: 'p.id', field: 'id', kind: 'int' };
  if (orderBy === 'id') return [id];
  const kind = orderBy === 'name' || orderBy === 'path' ? 'text' : 'time';
  return [{ key: orderBy, column: `p.${ORDER_COLUMNS[orderBy]}`, field: PROJECT_FIELDS[orderBy], kind }, id];
}

/**
 * The conditions of a project list, over `projects p JOIN namespaces n`: the viewer's visibility
 * first, then one per filter given (also the projects whose releases a group lists).
 */
export function projectConditions(ctx: Context, filter: ProjectFilter): Conditions {
  const where = new Conditions();
  const { bind } = where;
  where.and(ctx.policy.readableProjects(where));
  if (filter.membership) where.and(ctx.policy.memberProjects(where));
  if (filter.owned) where.and(`n.owner_id = ${bind(ctx.viewer.userId ?? -1)}`);
  if (filter.visibility) where.and(`p.visibility = ${bind(filter.visibility)}`);
  if (filter.ids) where.and(`p.id = ANY(${bind(filter.ids)})`);
  if (filter.forkedFromId != null) where.and(`p.forked_from_id = ${bind(filter.forkedFromId)}`);
  if (filter.search) {
    // ILIKE with the wildcards of the search escaped: `%` and `_` match themselves.
    const pattern = bind(`%${escapeLike(filter.search)}%`);
    const namespace = filter.searchNamespaces ? ` OR n.full_path ILIKE ${pattern}` : '';
    where.and(`p.name ILIKE ${pattern} OR p.path ILIKE ${pattern} OR p.description ILIKE ${pattern}${namespace}`);
  }
  if (filter.namespaceId != null) {
    const id = bind(filter.namespaceId);
    where.and(filter.includeSubgroups ? `n.traversal_ids @> ARRAY[${id}::int]` : `p.namespace_id = ${id}`);
  }
  return where;
}

/**
 * The projects under `where`, in the filter's order, each with the viewer's levels
 * (`levelColumns`): the page and the count are one plain statement each over the pool; the count
 * stops at `countLimit` rows when given.
 */
export function projectPages(
  ctx: Context,
  where: Conditions,
  filter: Pick<ProjectFilter, 'orderBy' | 'sort'>,
  countLimit?: number,
): Listing<ProjectWithLevels> & { seek(seek: Seek): Promise<ProjectWithLevels[]> } {
  const { sql } = ctx.deps;
  // The column and direction come from the lists above, never from the request.
  const column = ORDER_COLUMNS[filter.orderBy ?? 'created_at'];
  const direction = filter.sort === 'asc' ? 'ASC' : 'DESC';
  const order = `ORDER BY p.${column} ${direction}, p.id ${direction}`;
  return {
    fetch: ({ offset, limit }) => {
      // The page's own values: the levels and the window are bound for it alone, not for the count.
      const page = new Conditions(where.values);
      // The window is found by id first: the levels (subqueries of each row) are then read for the
      // page's rows alone, not also for every row the offset skips.
      const window = `SELECT p.id FROM ${PROJECTS_JOIN} WHERE ${where} ${order} OFFSET ${page.bind(offset)} LIMIT ${page.bind(limit)}`;
      const select = `SELECT ${PROJECT_UNDER_ITS_KEY}${levelColumns(ctx, page)} FROM ${PROJECTS_JOIN} WHERE p.id IN (${window})`;
      return sql.rows<ProjectWithLevels>(`${select} ${order}`, page.values);
    },
    // The same two steps, the window found by seeking past the cursor's row instead of an offset.
    seek: (seek) => {
      const page = new Conditions(where.values);
      const { where: past, order: reading } = seekSql(projectSortKeys(filter.orderBy), filter.sort === 'asc', seek, page.bind);
      const window = `SELECT p.id FROM ${PROJECTS_JOIN} WHERE ${where}${past ? ` AND ${past}` : ''} ${reading} LIMIT ${page.bind(seek.limit)}`;
      const select = `SELECT ${PROJECT_UNDER_ITS_KEY}${levelColumns(ctx, page)} FROM ${PROJECTS_JOIN} WHERE p.id IN (${window})`;
      return sql.rows<ProjectWithLevels>(`${select} ${reading}`, page.values);
    },
    count: async () => {
      const counted = new Conditions(where.values);
      const limit = countLimit == null ? '' : ` LIMIT ${counted.bind(countLimit)}`;
      const statement = `SELECT count(*)::int AS count FROM (SELECT 1 FROM ${PROJECTS_JOIN} WHERE ${where}${limit}) c`;
      return (await sql.rows<{ count: number }>(statement, counted.values))[0]!.count;
    },
  };
}

/** What a project answer shows of its repository, kept on the project's row. */
export type RepositoryFacts = { emptyRepo: boolean; readmePath: string | null };

/**
 * The project's default branch, its row locked until the transaction ends: two refreshes of its
 * repository's facts take turns, so the later one reads the repository after the earlier wrote.
 * Null when the project is gone.
 */
export async function lockForRepositoryFacts(tx: Prisma.TransactionClient, projectId: number): Promise<string | null> {
  const [row] = await tx.$queryRaw<{ default_branch: string }[]>`SELECT default_branch FROM projects WHERE id = ${projectId} FOR UPDATE`;
  return row?.default_branch ?? null;
}

/** Stores the repository's facts, leaving `updated_at` as it is (a push is no edit of the project). */
export async function storeRepositoryFacts(tx: Prisma.TransactionClient, projectId: number, facts: RepositoryFacts): Promise<void> {
  await tx.$executeRaw`UPDATE projects SET empty_repo = ${facts.emptyRepo}, readme_path = ${facts.readmePath} WHERE id = ${projectId}`;
}
