import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Serializes a critical section across every process sharing the database: a transaction-scoped
 * advisory lock on a named key, released at commit or rollback. Use it where a check and the
 * write it guards must not interleave with another writer (e.g. no cycles in a tree).
 */
export async function lockKey(tx: Prisma.TransactionClient, key: string): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text`;
}
