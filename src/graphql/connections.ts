import { cursorToOffset, resolveOffsetConnection } from '@pothos/plugin-relay';
import { ParamError } from '../core/errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Listing } from '../core/listing.ts';

type ConnectionArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** A cursor this server did not hand out is the client's mistake (GitLab: "Please provide a valid cursor"), not a 500. */
function checkCursor(cursor: string | null | undefined) {
  if (cursor == null) return;
  let offset: number;
  try {
    offset = cursorToOffset(cursor);
  } catch {
    throw new ParamError('Please provide a valid cursor');
  }
  if (!Number.isSafeInteger(offset) || offset < 0) throw new ParamError('Please provide a valid cursor');
}

/** Offset-cursor Relay connection with `totalCount`; page sizes are clamped to 100 like GitLab's. */
export async function pagedConnection<T>(args: ConnectionArgs, listing: Listing<T>) {
  checkCursor(args.after);
  checkCursor(args.before);
  const clamp = (n?: number | null) => (n == null ? n : Math.max(0, Math.min(n, MAX_PAGE_SIZE)));
  const bounded = { ...args, first: clamp(args.first), last: clamp(args.last) };
  const totalCount = await listing.count();
  const connection = await resolveOffsetConnection(
    { args: bounded, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, totalCount },
    (page) => listing.fetch(page),
  );
  return { ...connection, totalCount };
}
