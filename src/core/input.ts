// The input rules every area gets at the edge, whatever the transport: REST parameters are read
// through `Params` and GraphQL variables and literals through the operation checks and scalars,
// and both ask here. A new area inherits them without writing a line.

/** PostgreSQL `integer` ids: anything larger cannot name a row. */
export const MAX_ID = 2_147_483_647;

/** Years PostgreSQL `date`/`timestamp` columns and ISO 8601 both accept (PostgreSQL has no year 0). */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

/**
 * The name of the first text value that holds a NUL byte, or null. PostgreSQL cannot store NUL in
 * text, and git would cut a commit message at it; GitLab refuses such requests with 400.
 * Walks nested objects and arrays (form hashes, JSON bodies, GraphQL input objects).
 */
export function findNulByte(value: unknown, name = ''): string | null {
  if (typeof value === 'string') return value.includes('\0') ? name || 'value' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulByte(value[i], `${name}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes('\0')) return name ? `${name}[${key.replaceAll('\0', '')}]` : key.replaceAll('\0', '');
      const found = findNulByte(inner, name ? `${name}[${key}]` : key);
      if (found) return found;
    }
  }
  return null;
}

/** A decimal id that can name a row: digits only, 1 to 2^31-1; null otherwise. */
export function parseId(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_ID ? n : null;
}

/** True when PostgreSQL can store the instant and it prints as a four-digit ISO 8601 year. */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= MIN_YEAR && year <= MAX_YEAR;
}

/** Escapes LIKE wildcards so a search for `%` or `_` matches those characters, not everything. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Case-insensitive filters for Prisma. Prisma turns `mode: 'insensitive'` into ILIKE without
 * escaping, so `%` and `_` in a search — or in a username or path being looked up — would match
 * anything. Every case-insensitive comparison goes through these.
 */
export const equalsIgnoringCase = (text: string) => ({ equals: escapeLike(text), mode: 'insensitive' as const });
export const containsIgnoringCase = (text: string) => ({ contains: escapeLike(text), mode: 'insensitive' as const });
