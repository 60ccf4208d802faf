import { offsetToCursor, resolveArrayConnection, resolveOffsetConnection } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../src/core/listing.ts';
import { listConnection, pagedConnection } from '../src/graphql/connections.ts';

/** A connection with its getters read, as a query selecting every field sees it. */
const read = (c: { edges: unknown; pageInfo: unknown; totalCount?: unknown }) =>
  JSON.parse(
    JSON.stringify({ edges: c.edges, pageInfo: c.pageInfo, ...('totalCount' in c && { totalCount: c.totalCount }) }, (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) && 'node' in v
        ? { cursor: v.cursor, node: v.node }
        : v && typeof v === 'object' && 'hasNextPage' in v
          ? { startCursor: v.startCursor, endCursor: v.endCursor, hasPreviousPage: v.hasPreviousPage, hasNextPage: v.hasNextPage }
          : v,
    ),
  );

const list = Array.from({ length: 45 }, (_, i) => ({ id: i }));
const cases = [
  {},
  { first: 5 },
  { first: 0 },
  { last: 3, first: 10 },
  { after: offsetToCursor(9), first: 10 },
  { before: offsetToCursor(30), last: 4, first: 40 },
  { first: 500 },
];

describe('offset connections with cursors made on demand', () => {
  it('page and cursor lists as Pothos does', () => {
    for (const args of cases) expect(read(listConnection(args, list)), JSON.stringify(args)).toEqual(read(resolveArrayConnection({ args }, list)));
    expect(read(listConnection({}, []))).toEqual(read(resolveArrayConnection({ args: {} }, [])));
  });

  it('page listings as Pothos does, with the page sizes clamped, counting only when the page or the query needs it', async () => {
    let counts = 0;
    const listing = {
      count: async () => {
        counts += 1;
        return list.length;
      },
      fetch: async ({ offset, limit }: { offset: number; limit: number }) => list.slice(offset, offset + limit),
    };
    // Cursors past the end as well: a page that does not know the count ends where the rows do.
    const pastTheEnd = [
      { after: offsetToCursor(60), first: 5 },
      { before: offsetToCursor(80), first: 10 },
      { after: offsetToCursor(44) },
      { before: offsetToCursor(80), last: 5, first: 100 },
    ];
    for (const args of [...cases, ...pastTheEnd]) {
      const expected = await resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount: list.length }, listing.fetch);
      counts = 0;
      const connection = await pagedConnection(args, listing);
      // `last` counts back from the end: the page needs the count. Otherwise only `totalCount` does.
      expect(counts, JSON.stringify(args)).toBe('last' in args ? 1 : 0);
      const { totalCount: _unread, ...page } = read(connection);
      expect({ ...page, totalCount: await (connection as unknown as { totalCount: Promise<number> }).totalCount }, JSON.stringify(args)).toEqual(
        read({ ...expected, totalCount: list.length }),
      );
      await (connection as unknown as { totalCount: Promise<number> }).totalCount;
      expect(counts, JSON.stringify(args)).toBe(1);
    }
  });

  it('encodes no cursor until one is read', () => {
    const { edges } = listConnection({ first: 2 }, list);
    const [edge] = edges as unknown as { cursor: string; node: unknown }[];
    expect(Object.values(edge)).not.toContain(offsetToCursor(0));
    expect(edge.cursor).toBe(offsetToCursor(0));
  });
});
