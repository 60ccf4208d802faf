import type { Listing } from '../../core/listing.ts';
import { keysetOf, seekSql, type SortKey } from '../../db/keyset.ts';
import { PROJECTS_JOIN } from '../../core/store.ts';
import { Conditions, selectList, type SqlReader } from '../../db/rows.ts';
import type { Milestone, Release, ReleaseEvidence } from '../../generated/prisma/client.ts';
import type { LinkRow } from './loaders.ts';
import type { ReleaseFilter, ReleaseSort } from './service.ts';

/** The column and direction of a sort; the id breaks ties so that pages never overlap. */
function ordering(sort: ReleaseSort | null | undefined) {
  return {
    CREATED_DESC: { column: 'created_at', direction: 'desc' },
    CREATED_ASC: { column: 'created_at', direction: 'asc' },
    RELEASED_AT_DESC: { column: 'released_at', direction: 'desc' },
    RELEASED_AT_ASC: { column: 'released_at', direction: 'asc' },
  }[sort ?? 'RELEASED_AT_DESC'];
}

/**
 * A project's releases, one condition per filter; the bounds are instants, compared with the UTC
 * the columns hold whatever the session's time zone.
 */
const PROJECT_RELEASES = `FROM releases r WHERE r.project_id = $1
  AND ($2::timestamptz IS NULL OR r.updated_at < ($2::timestamptz AT TIME ZONE 'UTC'))
  AND ($3::timestamptz IS NULL OR r.updated_at > ($3::timestamptz AT TIME ZONE 'UTC'))`;
const RELEASE_COLUMNS = selectList('Release', 'r');

/**
 * Releases read a page at a time over the pool (SqlReader), 100 rows without Prisma's per-row
 * cost: `from` names them `r` and binds `values`. test/release-loaders.test.ts compares the pages
 * with Prisma's for every sort and filter.
 */
function releasePages(sql: SqlReader, from: string, values: unknown[], sort: ReleaseSort | null | undefined, countLimit?: number): Listing<Release> {
  // The column and direction come from the four sorts above, never from the request.
  const { column, direction } = ordering(sort);
  const order = `ORDER BY r.${column} ${direction}, r.id ${direction}`;
  const keys: SortKey[] = [
    { key: column, column: `r.${column}`, field: column === 'created_at' ? 'createdAt' : 'releasedAt', kind: 'time' },
    { key: 'id', column: 'r.id', field: 'id', kind: 'int' },
  ];
  return {
    fetch: ({ offset, limit }) => {
      const page = new Conditions(values);
      return sql.rows<Release>(`SELECT ${RELEASE_COLUMNS} ${from} ${order} OFFSET ${page.bind(offset)} LIMIT ${page.bind(limit)}`, page.values);
    },
    // The same page found by seeking past the cursor's row (`from` ends in its WHERE's conditions).
    keyset: keysetOf(keys, (seek) => {
      const page = new Conditions(values);
      const { where: past, order: reading } = seekSql(keys, direction === 'asc', seek, page.bind);
      return sql.rows<Release>(`SELECT ${RELEASE_COLUMNS} ${from}${past ? ` AND ${past}` : ''} ${reading} LIMIT ${page.bind(seek.limit)}`, page.values);
    }),
    count: async () => {
      // Bounded like every list's count (`ctx.countLimit`): the rows past the bound are not read.
      const counted = new Conditions(values);
      const limit = countLimit == null ? '' : ` LIMIT ${counted.bind(countLimit)}`;
      return (await sql.rows<{ count: number }>(`SELECT count(*)::int AS count FROM (SELECT 1 ${from}${limit}) c`, counted.values))[0]!.count;
    },
  };
}

/** A project's releases, filtered. */
export const projectReleasePages = (sql: SqlReader, projectId: number, filter: ReleaseFilter, countLimit?: number): Listing<Release> =>
  releasePages(sql, PROJECT_RELEASES, [projectId, filter.updatedBefore ?? null, filter.updatedAfter ?? null], filter.sort, countLimit);

/** The releases of the projects under `where` (project conditions over `projects p JOIN namespaces n`). */
export const groupReleasePages = (sql: SqlReader, where: Conditions, sort: ReleaseSort | null | undefined, countLimit?: number): Listing<Release> =>
  releasePages(sql, `FROM ${PROJECTS_JOIN} JOIN releases r ON r.project_id = p.id WHERE ${where}`, where.values, sort, countLimit);

/**
 * A list of 100 releases reads ~500 links, ~200 milestones and 100 evidences, over the pool
 * (SqlReader) at half the CPU of Prisma's findMany (bench/RESULTS.md, "Figures behind the code"). The columns are read as the
 * models' fields (selectList); test/release-loaders.test.ts compares the rows with Prisma's.
 */
const LINKS = `SELECT ${selectList('ReleaseLink', 'l', { omit: ['createdAt', 'updatedAt'] })} FROM release_links l WHERE l.release_id = ANY($1) ORDER BY l.created_at DESC, l.id DESC`;
const MILESTONES = `SELECT ${selectList('Milestone', 'm')}, rm.release_id AS "releaseId"
  FROM release_milestones rm JOIN milestones m ON m.id = rm.milestone_id WHERE rm.release_id = ANY($1) ORDER BY rm.milestone_id, rm.release_id`;
const EVIDENCES = `SELECT ${selectList('ReleaseEvidence', 'e')} FROM release_evidences e WHERE e.release_id = ANY($1) ORDER BY e.id DESC`;

/** The links of releases, newest first, as GitLab lists a release's links. */
export const linksOfReleases = (sql: SqlReader, ids: readonly number[]) => sql.rows<LinkRow>(LINKS, [ids]);
/** The milestones of releases, each with the release it belongs to. */
export const milestonesOfReleases = (sql: SqlReader, ids: readonly number[]) => sql.rows<Milestone & { releaseId: number }>(MILESTONES, [ids]);
export const evidencesOfReleases = (sql: SqlReader, ids: readonly number[]) => sql.rows<ReleaseEvidence>(EVIDENCES, [ids]);
