import type { Listing } from '../../core/listing.ts';
import { Conditions, selectList, type SqlReader } from '../../db/rows.ts';
import type { CommitStatus } from '../../generated/prisma/client.ts';

/** A commit's statuses as GitLab's `commits/:sha/statuses` filters and orders them. */
export type StatusQuery = {
  projectId: number;
  sha: string;
  ref?: string | null;
  name?: string | null;
  pipelineId?: number | null;
  /** Every status, not only the newest of each name in each pipeline. */
  all?: boolean | null;
  byPipeline: boolean;
  descending: boolean;
};

const STATUS = selectList('CommitStatus', 's');

/**
 * The statuses of one pipeline `p` that the query keeps, as conditions over `commit_statuses s`:
 * the latest of each name are those not retried, read from their partial index on (pipeline_id, id).
 */
function statusConditions(query: StatusQuery, where: Conditions): Conditions {
  where.and('s.pipeline_id = p.id');
  if (!query.all) where.and('s.retried = false');
  if (query.ref) where.and(`s.ref = ${where.bind(query.ref)}`);
  if (query.name) where.and(`s.name = ${where.bind(query.name)}`);
  return where;
}

/** The commit's pipelines, `p` (a commit has few: one or two per ref it was pushed to). */
function pipelineConditions(query: StatusQuery, where: Conditions): string {
  const pipeline = query.pipelineId != null ? ` AND p.id = ${where.bind(query.pipelineId)}` : '';
  return `p.project_id = ${where.bind(query.projectId)} AND p.sha = ${where.bind(query.sha)}${pipeline}`;
}

/**
 * A commit's statuses a page at a time, in GitLab's order (by id, or by pipeline then id): each
 * pipeline's statuses are read from its (pipeline_id, id) index in that order, no further than the
 * page's end (a LATERAL with a LIMIT), and those few merged; one statement for the page, one for the
 * count (bounded as every list's), whatever the number of statuses.
 */
export function commitStatusPages(sql: SqlReader, query: StatusQuery, countLimit?: number): Listing<CommitStatus> {
  // The direction comes from the query's flags, never from the request's text.
  const direction = query.descending ? 'DESC' : 'ASC';
  const order = `ORDER BY ${query.byPipeline ? `s.pipeline_id ${direction}, ` : ''}s.id ${direction}`;
  return {
    fetch: ({ offset, limit }) => {
      const page = new Conditions();
      const pipelines = pipelineConditions(query, page);
      const kept = statusConditions(query, new Conditions(page.values));
      const end = kept.bind(offset + limit);
      const own = `SELECT s.id, s.pipeline_id FROM commit_statuses s WHERE ${kept} ORDER BY s.id ${direction} LIMIT ${end}`;
      const window = `SELECT s.id FROM ci_pipelines p CROSS JOIN LATERAL (${own}) s WHERE ${pipelines} ${order} OFFSET ${kept.bind(offset)} LIMIT ${kept.bind(limit)}`;
      return sql.rows<CommitStatus>(`SELECT ${STATUS} FROM commit_statuses s WHERE s.id IN (${window}) ${order}`, kept.values);
    },
    count: async () => {
      const counted = new Conditions();
      const pipelines = pipelineConditions(query, counted);
      const kept = statusConditions(query, new Conditions(counted.values));
      const bound = countLimit == null ? '' : ` LIMIT ${kept.bind(countLimit)}`;
      const statement = `SELECT count(*)::int AS count FROM (SELECT 1 FROM ci_pipelines p JOIN commit_statuses s ON ${kept} WHERE ${pipelines}${bound}) c`;
      return (await sql.rows<{ count: number }>(statement, kept.values))[0]!.count;
    },
  };
}
