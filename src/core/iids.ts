import type { Db } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';

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

/**
 * Creates a row with the next iid without a transaction (two statements: the iid, then `create`).
 * When the database refuses the row (a unique index: a title in use), the iid is handed back while
 * it is still the last one taken, so a refused create leaves no gap, as in GitLab, where the iid is
 * taken inside the record's transaction. If a concurrent create took a later iid meanwhile, the
 * refused one stays a gap: an iid is never handed out twice.
 */
export async function withNextIid<T>(db: Pick<Db, '$queryRaw' | '$executeRaw'>, scope: string, ownerId: number, create: (iid: number) => Promise<T>): Promise<T> {
  const iid = await nextIid(db, scope, ownerId);
  try {
    return await create(iid);
  } catch (error) {
    // Only a refusal proves the row was not written; after a lost connection it may have been.
    if (isUniqueViolation(error)) {
      await db.$executeRaw`UPDATE internal_ids SET last = last - 1 WHERE scope = ${scope} AND owner_id = ${ownerId} AND last = ${iid}`;
    }
    throw error;
  }
}
