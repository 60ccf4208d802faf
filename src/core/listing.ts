/** One page of a list, as an offset and a size: both interfaces page through the same listings. */
export type Page = { offset: number; limit: number };

/**
 * A row's position in a list ordered by unique keys (the sort columns and the id that breaks their
 * ties): each key's value as text, as GitLab's keyset cursors carry them (`{"name":"a","id":"7"}`),
 * null for an empty value of a key that may be empty (`{"ended_at":null,"id":"7"}`).
 */
export type Keys = Record<string, string | null>;

/** The cursor of a row's keys: base64url of their JSON, as GitLab's keyset cursors (REST's and GraphQL's). */
export const keysCursor = (keys: Keys) => Buffer.from(JSON.stringify(keys)).toString('base64url');

/**
 * How a key's text is read back: an integer (ids), a timestamp (ISO 8601), a timestamp or null
 * (`time?`), any text, or one of an enum's values (listed in the enum's order).
 */
export type KeyKind = 'int' | 'time' | 'time?' | 'text' | readonly string[];

/**
 * One page read by seeking: the rows strictly between `after` and `before` (either may be absent),
 * `limit` of them from the start of that range, or from its end when `backward` (answered in the
 * list's order all the same). The statement is `WHERE (key, id) > (…) ORDER BY key, id LIMIT n`,
 * which an index on the keys answers reading its page alone, where an OFFSET reads every row it skips.
 */
export type Seek = { after: Keys | null; before: Keys | null; limit: number; backward: boolean };

/** A list that can seek: its keys (in sort order), a row's values of them, and a page by seeking. */
export type Keyset<T> = {
  keys: Record<string, KeyKind>;
  keysOf(row: T): Keys;
  fetch(seek: Seek): Promise<T[]>;
};

/**
 * A filtered list that can be read a page at a time and counted; one sorted by unique keys also
 * seeks (`keyset`), which GraphQL cursors and REST's `pagination=keyset` use.
 */
export type Listing<T> = { fetch(page: Page): Promise<T[]>; count(): Promise<number>; keyset?: Keyset<T> };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * The listing with each row it reads, by offset or by seeking, turned by `map` (a row dressed for
 * its answer); the cursors still read the row's own keys, which the turned row keeps.
 */
export function mappedListing<T, U extends T>(listing: Listing<T>, map: (row: T) => U): Listing<U> {
  const { keyset } = listing;
  return {
    fetch: async (page) => (await listing.fetch(page)).map(map),
    count: listing.count,
    ...(keyset && { keyset: { ...keyset, fetch: async (seek: Seek) => (await keyset.fetch(seek)).map(map) } }),
  };
}
