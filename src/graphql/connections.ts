import { resolveOffsetConnection } from '@pothos/plugin-relay';

export type Page = { offset: number; limit: number };

/** A filtered list that can be read a page at a time and counted. */
export type Listing<T> = { fetch(page: Page): Promise<T[]>; count(): Promise<number> };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

type ConnectionArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** Offset-cursor Relay connection with `totalCount`; page sizes are clamped to 100 like GitLab's. */
export async function pagedConnection<T>(args: ConnectionArgs, listing: Listing<T>) {
  const clamp = (n?: number | null) => (n == null ? n : Math.max(0, Math.min(n, MAX_PAGE_SIZE)));
  const bounded = { ...args, first: clamp(args.first), last: clamp(args.last) };
  const totalCount = await listing.count();
  const connection = await resolveOffsetConnection(
    { args: bounded, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount },
    (page) => listing.fetch(page),
  );
  return { ...connection, totalCount };
}
