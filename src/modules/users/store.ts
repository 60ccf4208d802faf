import type { Db } from '../../db/client.ts';

/**
 * The users whose e-mail is `email`, case aside, through `users_lower_email_idx`: Prisma writes an
 * insensitive equality as `ILIKE`, which only the e-mail's trigram index serves, reading every
 * entry of the query's trigrams (most rows share `@example.com`'s).
 */
export async function userIdsWithEmail(db: Db, email: string): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
  return rows.map((r) => r.id);
}
