import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { tokenDigest } from './tokens.ts';

export const JOB_TOKEN_PREFIX = 'glcbt-';
export const DEFAULT_JOB_TOKEN_MINUTES = 60;
export const MAX_JOB_TOKEN_MINUTES = 24 * 60;

/**
 * Stores a CI job token bound to one project and the user the job runs as. Only its keyed digest
 * is kept; the clear text is returned once.
 */
export async function issueJobToken(
  db: Db,
  digestKey: string,
  opts: { projectId: number; userId: number; minutes?: number },
): Promise<{ token: string; expiresAt: Date }> {
  const minutes = Math.min(Math.max(1, opts.minutes ?? DEFAULT_JOB_TOKEN_MINUTES), MAX_JOB_TOKEN_MINUTES);
  const token = JOB_TOKEN_PREFIX + randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + minutes * 60_000);
  await db.jobToken.create({ data: { projectId: opts.projectId, userId: opts.userId, digest: tokenDigest(digestKey, token), expiresAt } });
  return { token, expiresAt };
}
