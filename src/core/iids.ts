import type { Db } from '../db/client.ts';

/**
 * Next per-parent iid (milestones of a project, epics of a group, alerts of a project, …),
 * incremented atomically in one statement so concurrent creates, in any process, never share one.
 * `scope` names the kind and the parent's kind, e.g. `milestones:project`.
 */
export async function nextIid(db: Pick<Db, '$queryRaw'>, scope: string, ownerId: number): Promise<number> {
  const [row] = await db.$queryRaw<{ last: number }[]>`
    INSERT INTO internal_ids (scope, owner_id, last) VALUES (${scope}, ${ownerId}, 1)
    ON CONFLICT (scope, owner_id) DO UPDATE SET last = internal_ids.last + 1
    RETURNING last`;
  return row.last;
}
