import { escapeLike } from '../../core/input.ts';
import type { KeyKind, Listing } from '../../core/listing.ts';
import { keysetOf, seekSql, type SortKey } from '../../db/keyset.ts';
import type { Db } from '../../db/client.ts';
import { Conditions, selectList, type SqlReader } from '../../db/rows.ts';
import { type Alert, AlertSeverity, AlertStatus, Prisma } from '../../generated/prisma/client.ts';
import type { ParsedAlert } from './payload.ts';

/** An alert a payload made, grouped or resolved: what the intake answers and announces. */
export type Touched = { id: number; iid: number; title: string; issueId: number | null; created: boolean };
const TOUCHED = Prisma.raw(selectList('Alert', 'alerts', { pick: ['id', 'iid', 'title', 'issueId'] }));

/** Counts one payload in the endpoint's window of the current minute (earlier windows cleared); returns the count. */
export async function countIntakeThisMinute(db: Db, integrationId: number): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    WITH cleared AS (
      DELETE FROM alert_intake_windows WHERE integration_id = ${integrationId} AND window_start < date_trunc('minute', now())
    )
    INSERT INTO alert_intake_windows (integration_id, window_start, count) VALUES (${integrationId}, date_trunc('minute', now()), 1)
    ON CONFLICT (integration_id, window_start) DO UPDATE SET count = alert_intake_windows.count + 1
    RETURNING count`;
  return row.count;
}

/** One more event on the project's open alert with `fingerprint`; undefined when there is none. */
export async function addEventToOpenAlert(db: Db, projectId: number, fingerprint: string): Promise<Touched | undefined> {
  const [grouped] = await db.$queryRaw<Touched[]>`
    UPDATE alerts SET events = events + 1, updated_at = now()
    WHERE project_id = ${projectId} AND fingerprint = ${fingerprint} AND status <> 'resolved'
    RETURNING ${TOUCHED}, false AS created`;
  return grouped;
}

/**
 * A new triggered alert, or, when an open alert of the project has its fingerprint (partial unique
 * index `alerts_open_fingerprint`: the insert that loses a race), one more event on that one.
 */
export async function insertOrGroupAlert(
  db: Db,
  { projectId, iid, integrationId, alert, payload }: { projectId: number; iid: number; integrationId: number | null; alert: ParsedAlert; payload: object },
): Promise<Touched> {
  const [row] = await db.$queryRaw<Touched[]>`
    INSERT INTO alerts (project_id, iid, integration_id, title, description, service, monitoring_tool, hosts, severity, status,
                        fingerprint, environment, runbook, events, started_at, payload, updated_at)
    VALUES (${projectId}, ${iid}, ${integrationId}, ${alert.title}, ${alert.description}, ${alert.service}, ${alert.monitoringTool},
            ${alert.hosts}, ${alert.severity}::"AlertSeverity", 'triggered', ${alert.fingerprint}, ${alert.environment}, ${alert.runbook}, 1,
            ${alert.startedAt}, ${JSON.stringify(payload)}::jsonb, now())
    ON CONFLICT (project_id, fingerprint) WHERE status <> 'resolved' AND fingerprint IS NOT NULL
    DO UPDATE SET events = alerts.events + 1, updated_at = now()
    RETURNING ${TOUCHED}, (xmax = 0) AS created`;
  return row;
}

/** Resolves the project's open alert with `fingerprint`; undefined when there is none. */
export async function resolveOpenAlert(db: Db, projectId: number, fingerprint: string, endedAt: Date): Promise<Touched | undefined> {
  const [row] = await db.$queryRaw<Touched[]>`
    UPDATE alerts SET status = 'resolved', ended_at = ${endedAt}, updated_at = now()
    WHERE project_id = ${projectId} AND fingerprint = ${fingerprint} AND status <> 'resolved'
    RETURNING ${TOUCHED}, false AS created`;
  return row;
}

/** Locks the alert's row for the transaction; false when there is no such alert. */
export async function lockAlert(tx: Prisma.TransactionClient, alertId: number): Promise<boolean> {
  const [locked] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM alerts WHERE id = ${alertId} FOR UPDATE`;
  return Boolean(locked);
}

/** A project's alerts as its list filters them; the service decides which filters apply. */
export type AlertQuery = {
  projectId: number;
  none?: boolean;
  iid?: number | null;
  statuses?: readonly AlertStatus[] | null;
  severities?: readonly AlertSeverity[] | null;
  assigneeUsername?: string | null;
  search?: string | null;
};

/** The sortable columns, by the sort's name; the direction comes with the sort. */
export const ALERT_ORDER_COLUMNS = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  startedAt: 'started_at',
  endedAt: 'ended_at',
  events: 'events',
  severity: 'severity',
  status: 'status',
} as const;
export type AlertOrder = { column: keyof typeof ALERT_ORDER_COLUMNS; direction: 'ASC' | 'DESC'; idDirection: 'ASC' | 'DESC' };

const ALERT = selectList('Alert', 'a');

/** How each sorted column's key reads: its kind and the expression that the list orders and seeks by. */
const ALERT_KEY_KINDS: Record<AlertOrder['column'], { kind: KeyKind; column?: string }> = {
  createdAt: { kind: 'time' },
  updatedAt: { kind: 'time' },
  startedAt: { kind: 'time' },
  // An open alert has no end: it sorts as the latest instant, where PostgreSQL puts NULLs.
  endedAt: { kind: 'time?', column: "COALESCE(a.ended_at, 'infinity')" },
  events: { kind: 'int' },
  severity: { kind: Object.values(AlertSeverity) },
  status: { kind: Object.values(AlertStatus) },
};

/**
 * The sort keys of an order, all read in one direction so that a row comparison seeks them: the
 * column, then the id, negated where ties run against the column's direction (severity and
 * status). The indexes are on the same expressions (migration `alert_sort_expression_indexes`).
 */
function alertSortKeys(order: AlertOrder): SortKey[] {
  const name = ALERT_ORDER_COLUMNS[order.column];
  const { kind, column = `a.${name}` } = ALERT_KEY_KINDS[order.column];
  const negated = order.direction !== order.idDirection;
  return [
    { key: name, column, field: order.column, kind },
    { key: 'id', column: negated ? '(-a.id)' : 'a.id', kind: 'int', field: 'id', negated },
  ];
}

/** The conditions over `alerts a`, one per filter given, the project's first (every index leads with it). */
function alertConditions(query: AlertQuery): Conditions {
  const where = new Conditions();
  const { bind } = where;
  where.and(`a.project_id = ${bind(query.projectId)}`);
  if (query.none) where.and('FALSE');
  if (query.iid != null) where.and(`a.iid = ${bind(query.iid)}`);
  if (query.statuses?.length) where.and(`a.status = ANY(${bind(query.statuses)}::"AlertStatus"[])`);
  if (query.severities?.length) where.and(`a.severity = ANY(${bind(query.severities)}::"AlertSeverity"[])`);
  if (query.assigneeUsername) {
    where.and(
      `EXISTS (SELECT 1 FROM alert_assignees aa JOIN users u ON u.id = aa.user_id WHERE aa.alert_id = a.id AND u.username = ${bind(query.assigneeUsername)})`,
    );
  }
  if (query.search) {
    // ILIKE with the search's wildcards escaped, each column through its trigram index; a host matches whole.
    const pattern = bind(`%${escapeLike(query.search)}%`);
    const columns = ['title', 'description', 'service', 'monitoring_tool'].map((c) => `a.${c} ILIKE ${pattern}`);
    where.and(`${columns.join(' OR ')} OR a.hosts @> ARRAY[${bind(query.search)}]::text[]`);
  }
  return where;
}

/**
 * A project's alerts under `query`, in `order`: a page and a count, one statement each.
 * A search's matches are found first (a MATERIALIZED CTE, through the trigram indexes) and then
 * sorted: otherwise the planner, expecting matches spread evenly, may walk the whole order index and
 * filter each row, which reads most of the project when the matches sit together (as GitLab's
 * issuable finder does with its search CTE).
 */
export function alertPages(sql: SqlReader, query: AlertQuery, order: AlertOrder, countLimit?: number): Listing<Alert> {
  const where = alertConditions(query);
  // The columns and direction come from the lists above, never from the request.
  const column = ALERT_ORDER_COLUMNS[order.column];
  const keys = alertSortKeys(order);
  const by = `ORDER BY ${keys.map((k) => `${k.column} ${order.direction}`).join(', ')}`;
  const rows = query.search
    ? `WITH matches AS MATERIALIZED (SELECT a.id, a.${column} FROM alerts a WHERE ${where}) SELECT a.id FROM matches a`
    : `SELECT a.id FROM alerts a WHERE ${where}`;
  return {
    fetch: ({ offset, limit }) => {
      const page = new Conditions(where.values);
      const window = `${rows} ${by} OFFSET ${page.bind(offset)} LIMIT ${page.bind(limit)}`;
      return sql.rows<Alert>(`SELECT ${ALERT} FROM alerts a WHERE a.id IN (${window}) ${by}`, page.values);
    },
    // The same two steps, the window found by seeking past the cursor's row instead of an offset.
    keyset: keysetOf(keys, (seek) => {
      const page = new Conditions(where.values);
      const { where: past, order: reading } = seekSql(keys, order.direction === 'ASC', seek, page.bind);
      const window = `${rows}${past ? ` ${query.search ? 'WHERE' : 'AND'} ${past}` : ''} ${reading} LIMIT ${page.bind(seek.limit)}`;
      return sql.rows<Alert>(`SELECT ${ALERT} FROM alerts a WHERE a.id IN (${window}) ${reading}`, page.values);
    }),
    count: async () => {
      const counted = new Conditions(where.values);
      const limit = countLimit == null ? '' : ` LIMIT ${counted.bind(countLimit)}`;
      const statement = `SELECT count(*)::int AS count FROM (SELECT 1 FROM alerts a WHERE ${where}${limit}) c`;
      return (await sql.rows<{ count: number }>(statement, counted.values))[0]!.count;
    },
  };
}

/** How many of the query's alerts have each status. */
export async function alertCountsByStatus(sql: SqlReader, query: AlertQuery): Promise<Map<AlertStatus, number>> {
  const where = alertConditions(query);
  const rows = await sql.rows<{ status: AlertStatus; count: number }>(
    `SELECT a.status, count(*)::int AS count FROM alerts a WHERE ${where} GROUP BY a.status`,
    where.values,
  );
  return new Map(rows.map((r) => [r.status, r.count]));
}
