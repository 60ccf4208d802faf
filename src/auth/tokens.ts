import { createHmac, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'glpat-';

/** Keyed SHA-256: tokens carry 192 random bits, so a fast keyed hash and an indexed lookup suffice. */
export const tokenDigest = (key: string, token: string) => createHmac('sha256', key).update(token).digest('hex');

export const generateToken = () => TOKEN_PREFIX + randomBytes(24).toString('base64url');

type TokenDb = { personalAccessToken: { create(args: { data: { userId: number; name: string; digest: string; scopes: string[]; expiresAt: Date | null } }): Promise<{ id: number }> } };

/** Stores a new token's digest; the clear text is returned once and never kept. */
export async function issueToken(
  db: TokenDb,
  digestKey: string,
  opts: { userId: number; name: string; scopes: string[]; expiresAt?: Date | null; value?: string },
): Promise<{ id: number; token: string }> {
  const token = opts.value ?? generateToken();
  const row = await db.personalAccessToken.create({
    data: { userId: opts.userId, name: opts.name, digest: tokenDigest(digestKey, token), scopes: opts.scopes, expiresAt: opts.expiresAt ?? null },
  });
  return { id: row.id, token };
}
