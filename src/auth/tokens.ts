import { createHmac, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'glpat-';

/** Keyed SHA-256: tokens carry 192 random bits, so a fast keyed hash and an indexed lookup suffice. */
export const tokenDigest = (key: string, token: string) => createHmac('sha256', key).update(token).digest('hex');

export const generateToken = () => TOKEN_PREFIX + randomBytes(24).toString('base64url');

/** Today's date (UTC midnight), the unit token expiry is counted in. */
export const utcToday = () => new Date(new Date().toISOString().slice(0, 10));

/** A token's `expires_at` is a date: it works through that whole day and is expired the day after. */
export const isExpired = (expiresAt: Date | null, today: Date = utcToday()) => expiresAt !== null && expiresAt < today;

export type TokenAttributes = {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt?: Date | null;
  description?: string | null;
  impersonation?: boolean;
  /** The token this one replaces by rotation. */
  previousTokenId?: number | null;
};

type TokenDb<R> = {
  personalAccessToken: { create(args: { data: Omit<TokenAttributes, 'expiresAt'> & { digest: string; expiresAt: Date | null } }): Promise<R> };
};

/** Stores a new token's digest; the clear text is returned once (with the stored row) and never kept. */
export async function issueToken<R extends { id: number }>(
  db: TokenDb<R>,
  digestKey: string,
  opts: TokenAttributes & { value?: string },
): Promise<{ id: number; token: string; row: R }> {
  const { value, ...attributes } = opts;
  const token = value ?? generateToken();
  const row = await db.personalAccessToken.create({
    data: { ...attributes, digest: tokenDigest(digestKey, token), expiresAt: opts.expiresAt ?? null },
  });
  return { id: row.id, token, row };
}
