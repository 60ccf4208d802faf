import type { Keyset, KeyKind, Keys, Seek } from '../core/listing.ts';

/**
 * A sort key: the name its cursor carries, the column (or Prisma field) it compares, its kind,
 * and the row's field that holds it when that is not the column's own name. Two kinds of column
 * let a row comparison (one direction for every key) follow orders it could not otherwise:
 * - `negated`: the column is the key's value negated (`(-a.id)`), for ids that break ties against
 *   the direction of the sort before them;
 * - a `time?` key's column reads an empty value as `'infinity'` (`COALESCE(a.ended_at, 'infinity')`),
 *   where PostgreSQL sorts NULLs by default (last ascending, first descending).
 * The index that serves the order is on the same expressions. A Prisma list ordered with empty
 * values last both ways (GitLab's roadmap dates) cannot compare rows: it seeks by `nullsLastSeek`.
 */
export type SortKey = { key: string; column: string; kind: KeyKind; field?: string; negated?: boolean };

/** A key's text as the value its column holds (cursors are checked before: graphql/connections.ts). */
function keyValue(k: SortKey, text: string | null): unknown {
  if (text === null) return 'infinity';
  if (k.kind === 'int') return k.negated ? -Number(text) : Number(text);
  return k.kind === 'time' || k.kind === 'time?' ? new Date(text) : text;
}

/** A row's key values as a cursor carries them: text, timestamps in ISO 8601, null when empty. */
function keysOf(keys: readonly SortKey[], row: Record<string, unknown>): Keys {
  return Object.fromEntries(
    keys.map(({ key, column, field }) => {
      const value = row[field ?? column];
      return [key, value instanceof Date ? value.toISOString() : value == null ? null : String(value)];
    }),
  );
}

/** The comparison that keeps the rows past `keys` in a list sorted `ascending` (or not). */
const past = (ascending: boolean) => (ascending ? '>' : '<');

/**
 * A seek in SQL over columns sorted all one way (the id last, breaking ties): the row comparisons
 * for `after` and `before`, and the ORDER BY to read in (reversed when reading backward; the caller
 * (graphql/connections.ts) puts the rows back in the list's order). Row comparisons, which PostgreSQL answers from an index
 * on the same columns in one range scan.
 */
export function seekSql(keys: readonly SortKey[], ascending: boolean, seek: Seek, bind: (value: unknown) => string) {
  const columns = `(${keys.map((k) => k.column).join(', ')})`;
  const tuple = (at: Keys) => `(${keys.map((k) => bind(keyValue(k, at[k.key] ?? null))).join(', ')})`;
  const conditions = [
    seek.after && `${columns} ${past(ascending)} ${tuple(seek.after)}`,
    seek.before && `${columns} ${past(!ascending)} ${tuple(seek.before)}`,
  ];
  const reading = ascending !== seek.backward ? 'ASC' : 'DESC';
  return { where: conditions.filter(Boolean).join(' AND ') || null, order: `ORDER BY ${keys.map((k) => `${k.column} ${reading}`).join(', ')}` };
}

type FieldWhere = Record<string, unknown>;

/**
 * The same seek as Prisma conditions (Prisma has no row comparison): `a > x OR (a = x AND id > y)`,
 * and the order to read in.
 */
export function seekWhere(keys: readonly SortKey[], ascending: boolean, seek: Seek) {
  const beyond = (at: Keys, up: boolean): FieldWhere => ({
    OR: keys.map((k, i) => ({
      ...Object.fromEntries(keys.slice(0, i).map((e) => [e.column, keyValue(e, at[e.key] ?? null)])),
      [k.column]: { [up ? 'gt' : 'lt']: keyValue(k, at[k.key] ?? null) },
    })),
  });
  const where = [seek.after && beyond(seek.after, ascending), seek.before && beyond(seek.before, !ascending)].filter((w): w is FieldWhere => !!w);
  const reading = ascending !== seek.backward ? 'asc' : 'desc';
  return { where, orderBy: keys.map((k) => ({ [k.column]: reading })) };
}

/** A list's `keyset` (core/listing.ts) over its sort keys, its pages read by `fetch`. */
export function keysetOf<T extends object>(keys: readonly SortKey[], fetch: (seek: Seek) => Promise<T[]>): Keyset<T> {
  return {
    keys: Object.fromEntries(keys.map((k) => [k.key, k.kind])),
    keysOf: (row) => keysOf(keys, row as Record<string, unknown>),
    fetch,
  };
}

type FieldOrder = Record<string, 'asc' | 'desc' | { sort: 'asc' | 'desc'; nulls: 'last' | 'first' }>;

/** One range of a seek that an index on (column, id) reads in order: its conditions and its order. */
export type SeekPart = { where: FieldWhere; orderBy: FieldOrder[] };

/**
 * A seek over GitLab's order by a nullable column (`keyset_pagination_for`): the column either way,
 * rows without a value last, then the id descending. No row comparison spans that order, nor a
 * single range of an index: the rows past a cursor are up to three ranges (its value's rows past
 * its id, the rows past its value, the rows without one), each read in order from an index on
 * (column, id DESC) by a statement of its own. The caller reads the parts in turn until the page
 * is full, with `filter` (the other cursor's bound, if any) added to each.
 */
export function nullsLastSeek(key: SortKey, ascending: boolean, seek: Seek): { parts: SeekPart[]; filter: FieldWhere | null } {
  const column = key.column;
  const value = (at: Keys) => at[key.key] ?? null;
  const typed = (text: string) => keyValue(key, text);
  const idOf = (at: Keys) => Number(at.id);
  const later = ascending ? 'gt' : 'lt';
  const earlier = ascending ? 'lt' : 'gt';
  // In the list's order, and in reverse (reading backward): the valued rows, then those without.
  const forward: FieldOrder[] = [{ [column]: ascending ? 'asc' : 'desc' }, { id: 'desc' }];
  const backward: FieldOrder[] = [{ [column]: ascending ? 'desc' : 'asc' }, { id: 'asc' }];
  const idsDown: FieldOrder[] = [{ id: 'desc' }];
  const idsUp: FieldOrder[] = [{ id: 'asc' }];
  const valued = { [column]: { not: null } };
  const empty = { [column]: null };
  /** The rows after `at` in the list's order, as ranges in that order. */
  const after = (at: Keys): SeekPart[] => {
    const v = value(at);
    if (v === null) return [{ where: { ...empty, id: { lt: idOf(at) } }, orderBy: idsDown }];
    return [
      { where: { [column]: typed(v), id: { lt: idOf(at) } }, orderBy: idsDown },
      { where: { [column]: { [later]: typed(v) } }, orderBy: forward },
      { where: empty, orderBy: idsDown },
    ];
  };
  /** The rows before `at` in the list's order, as ranges in reverse order. */
  const before = (at: Keys): SeekPart[] => {
    const v = value(at);
    if (v === null)
      return [
        { where: { ...empty, id: { gt: idOf(at) } }, orderBy: idsUp },
        { where: valued, orderBy: backward },
      ];
    return [
      { where: { [column]: typed(v), id: { gt: idOf(at) } }, orderBy: idsUp },
      { where: { [column]: { [earlier]: typed(v) } }, orderBy: backward },
    ];
  };
  const either = (parts: SeekPart[]): FieldWhere => ({ OR: parts.map((p) => p.where) });
  if (seek.backward) {
    const parts = seek.before
      ? before(seek.before)
      : [
          { where: empty, orderBy: idsUp },
          { where: valued, orderBy: backward },
        ];
    return { parts, filter: seek.after && either(after(seek.after)) };
  }
  const parts = seek.after
    ? after(seek.after)
    : [
        { where: valued, orderBy: forward },
        { where: empty, orderBy: idsDown },
      ];
  return { parts, filter: seek.before && either(before(seek.before)) };
}

/** The rows of a seek read part by part (`nullsLastSeek`), each statement taking what the page still needs. */
export async function readParts<T>(parts: SeekPart[], limit: number, read: (part: SeekPart, take: number) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (const part of parts) {
    if (rows.length >= limit) break;
    rows.push(...(await read(part, limit - rows.length)));
  }
  return rows;
}
