import type { Db } from '../../db/client.ts';
import { selectList } from '../../db/rows.ts';
import { Prisma } from '../../generated/prisma/client.ts';
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
