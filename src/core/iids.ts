import type { Db } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { handBackIid, nextIid } from './store.ts';

/**
 * Creates a row with the next iid without a transaction (two statements: the iid, then `create`).
 * When the database refuses the row (a unique index: a title in use), the iid is handed back while
 * it is still the last one taken, so a refused create leaves no gap, as in GitLab, where the iid is
 * taken inside the record's transaction. If a concurrent create took a later iid meanwhile, the
 * refused one stays a gap: an iid is never handed out twice.
 */
export async function withNextIid<T>(
  db: Pick<Db, '$queryRaw' | '$executeRaw'>,
  scope: string,
  ownerId: number,
  create: (iid: number) => Promise<T>,
): Promise<T> {
  const iid = await nextIid(db, scope, ownerId);
  try {
    return await create(iid);
  } catch (error) {
    // Only a refusal proves the row was not written; after a lost connection it may have been.
    if (isUniqueViolation(error)) {
      await handBackIid(db, scope, ownerId, iid);
    }
    throw error;
  }
}
