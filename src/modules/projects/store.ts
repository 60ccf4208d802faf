import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { escapeLike } from '../../core/input.ts';
import type { Listing } from '../../core/listing.ts';
import { PROJECTS_JOIN, projectWithNamespaceColumns, readProjects } from '../../core/store.ts';
import { Conditions, type SqlReader } from '../../db/rows.ts';
import type { ProjectFilter } from './service.ts';

const PROJECT_COLUMNS = projectWithNamespaceColumns();
/** The project's columns under a key of its own (the row's `project`), so that the viewer's level beside it is not one of its fields. */
const PROJECT_UNDER_ITS_KEY = projectWithNamespaceColumns('project.');

/** A project by id, or by its namespace's full path and its own path (both compared case-insensitively, as GitLab does). */
export type ProjectKey = { id: number } | { namespacePath: string; path: string };

/**
 * A project with its namespace, read with the viewer's level in it where the policy reads levels
 * from memberships (`viewerLevel`, absent otherwise): the check that follows then sends no
 * statement of its own.
 */
export async function readProject(ctx: Context, key: ProjectKey): Promise<{ project: ProjectWithNamespace; viewerLevel?: number | null } | null> {
  const where = new Conditions();
  const { bind } = where;
  if ('id' in key) where.and(`p.id = ${bind(key.id)}`);
  else where.and(`lower(n.full_path) = lower(${bind(key.namespacePath)}) AND lower(p.path) = lower(${bind(key.path)})`);
  const level = ctx.policy.projectLevelColumn(where);
  const select = `SELECT ${PROJECT_UNDER_ITS_KEY}${level ? `, ${level} AS "viewerLevel"` : ''} FROM ${PROJECTS_JOIN} WHERE ${where}`;
  const [row] = await ctx.deps.sql.rows<{ project: ProjectWithNamespace; viewerLevel?: number | null }>(select, where.values);
  return row ?? null;
}

/** The column each order reads; the id breaks ties so that pages never overlap. */
export const ORDER_COLUMNS = {
  id: 'id',
  name: 'name',
  path: 'path',
  created_at: 'created_at',
  updated_at: 'updated_at',
  last_activity_at: 'last_activity_at',
} as const;

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
 * The projects under `where`, in the filter's order: the page and the count are one plain
 * statement each over the pool; the count stops at `countLimit` rows when given.
 */
export function projectPages(
  sql: SqlReader,
  where: Conditions,
  filter: Pick<ProjectFilter, 'orderBy' | 'sort'>,
  countLimit?: number,
): Listing<ProjectWithNamespace> {
  // The column and direction come from the lists above, never from the request.
  const column = ORDER_COLUMNS[filter.orderBy ?? 'created_at'];
  const direction = filter.sort === 'asc' ? 'ASC' : 'DESC';
  const from = `SELECT ${PROJECT_COLUMNS} FROM ${PROJECTS_JOIN} WHERE ${where}`;
  const order = `ORDER BY p.${column} ${direction}, p.id ${direction}`;
  return {
    fetch: ({ offset, limit }) => {
      const page = new Conditions(where.values);
      return readProjects(sql, `${from} ${order} OFFSET ${page.bind(offset)} LIMIT ${page.bind(limit)}`, page.values);
    },
    count: async () => {
      const counted = new Conditions(where.values);
      const limit = countLimit == null ? '' : ` LIMIT ${counted.bind(countLimit)}`;
      const statement = `SELECT count(*)::int AS count FROM (SELECT 1 FROM ${PROJECTS_JOIN} WHERE ${where}${limit}) c`;
      return (await sql.rows<{ count: number }>(statement, counted.values))[0]!.count;
    },
  };
}
