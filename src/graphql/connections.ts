import { offsetForArgs, offsetToCursor, type resolveArrayConnection } from '@pothos/plugin-relay';
import { getNamedType, isObjectType, type GraphQLFieldResolver, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { ParamError } from '../core/errors.ts';
import { MAX_ID } from '../core/input.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, keysCursor, type Keys, type KeyKind, type Keyset, type Listing } from '../core/listing.ts';
import { executionRoot } from './execution-root.ts';

/** Set on the arguments of a connection that answers its whole list (see `withWholeLists`). */
const WHOLE = Symbol('whole list');

type ConnectionArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null; [WHOLE]?: true };

/** A list's size bound where it is read whole: the largest LIMIT or `take` a statement accepts. */
const WHOLE_SIZE = MAX_ID - 1;

/** Page sizes: GitLab's GraphQL default and maximum, or the whole list. */
const sizesFor = (args: ConnectionArgs) =>
  args[WHOLE] ? { defaultSize: WHOLE_SIZE, maxSize: WHOLE_SIZE } : { defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE };

/** A Relay connection type: the types whose fields page (GitLab's `…Connection` with `pageInfo`). */
export const isConnectionType = (type: GraphQLNamedType) => isObjectType(type) && type.name.endsWith('Connection') && 'pageInfo' in type.getFields();

/**
 * GitLab's REST answers carry nested lists whole (every link, milestone and evidence of each
 * release, every label of an epic, every rule of a project) where its GraphQL pages them, 100 at
 * most. So in an operation whose root reads whole lists (`ExecutionRoot.wholeLists`: the REST
 * facade's, never /api/graphql's) every connection selected without `first` or `last` answers
 * its whole list; one with them answers the page they ask for. The arguments carry the mark,
 * which no client can send.
 */
export function withWholeLists(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve || !isConnectionType(getNamedType(field.type))) continue;
      field.resolve = wholeWhenAsked(field.resolve);
    }
  }
  return schema;
}

function wholeWhenAsked(resolve: GraphQLFieldResolver<unknown, unknown, ConnectionArgs>): GraphQLFieldResolver<unknown, unknown, ConnectionArgs> {
  return (source, args, ctx, info) => {
    const whole = executionRoot(info)?.wholeLists === true && args.first == null && args.last == null;
    return resolve(source, whole ? { ...args, [WHOLE]: true } : args, ctx, info);
  };
}

const CURSOR = /^OffsetConnection:(0|[1-9][0-9]*)$/;

const INVALID_CURSOR = 'Please provide a valid cursor';

/** A cursor read: an offset (Pothos's `OffsetConnection:<n>`), or a row's keys in a list that seeks. */
type Cursor = { offset: number } | { keys: Keys };

/** Whether a key's text is one its column can hold (a bad one is the client's 400, never the database's 500). */
const KEY_TEXT: Record<KeyKind, (text: string) => boolean> = {
  int: (text) => /^(0|[1-9][0-9]{0,9})$/.test(text) && Number(text) <= MAX_ID,
  time: (text) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(text) && !Number.isNaN(Date.parse(text)),
  text: (text) => text.length <= 1024 && !text.includes('\0'),
};

/**
 * A list's keys from a cursor's JSON (GitLab's keyset cursors: `{"name":"a","id":"7"}`), each key
 * the list sorts by and no other; `_kd`, the direction GitLab's REST cursors carry, is not a key.
 */
function keysFrom(json: string, keyset: Keyset<unknown>): Keys | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { _kd: _direction, ...keys } = parsed as Record<string, unknown>;
  const names = Object.keys(keyset.keys);
  if (Object.keys(keys).length !== names.length) return undefined;
  for (const name of names) {
    const text = keys[name];
    if (text === null && keyset.nullable?.includes(name)) continue;
    if (typeof text !== 'string' || !KEY_TEXT[keyset.keys[name]!](text)) return undefined;
  }
  return keys as Keys;
}

/**
 * A cursor as this server hands them out, or none. An empty string is no cursor: GitLab's
 * frontend passes `after: ""` by default. Offset cursors (`OffsetConnection:<n>`) stay valid on
 * every list, those handed out before its list seeked included; a list that seeks also takes its
 * keys. Anything else (`OffsetConnection:1.5`, another list's keys) is the client's mistake,
 * GitLab's "Please provide a valid cursor", never a 500 nor a page read from a guessed position.
 */
function readCursor(cursor: string | null | undefined, keyset?: Keyset<unknown>): Cursor | null {
  if (cursor == null || cursor === '') return null;
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  const offset = CURSOR.exec(text)?.[1];
  if (offset !== undefined && Number.isSafeInteger(Number(offset))) return { offset: Number(offset) };
  const keys = keyset && keysFrom(text, keyset);
  if (!keys) throw new ParamError(INVALID_CURSOR);
  return { keys };
}

/** The arguments with their cursors checked (`readCursor`), as offset cursors; the whole-list mark kept. */
function withCheckedCursors<A extends ConnectionArgs>(args: A): A {
  const offsetCursor = (cursor: string | null | undefined) => {
    const read = readCursor(cursor);
    return read && 'offset' in read ? offsetToCursor(read.offset) : null;
  };
  return { ...args, after: offsetCursor(args.after), before: offsetCursor(args.before) };
}

/**
 * An edge whose cursor is encoded when a query reads it, not before: queries and the REST
 * operations select `nodes` far more often than `edges { cursor }`, and a page of 100 releases
 * has ~1,100 edges below it (links, milestones, sources), each cursor a base64 string.
 */
class OffsetEdge<T> {
  constructor(
    readonly node: T,
    private readonly offset: number,
  ) {}

  get cursor() {
    return offsetToCursor(this.offset);
  }
}

/** Page info with its cursors made on demand too. */
class OffsetPageInfo {
  constructor(
    private readonly offset: number,
    private readonly size: number,
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
  ) {}

  get startCursor() {
    return offsetToCursor(this.offset);
  }

  get endCursor() {
    return offsetToCursor(this.offset + this.size - 1);
  }
}

type Window = ReturnType<typeof offsetForArgs>;

/** The shape Pothos types its array connections with (null nodes as null edges). */
type Connection<T> = ReturnType<typeof resolveArrayConnection<T>>;

/**
 * A page as Pothos's connection fields read it (`edges`, `pageInfo`, `totalCount`), with its count
 * read when the field is selected. A class, where an object literal with a getter made a new
 * accessor for each of the ~300 connections a page of 100 releases has below it.
 */
class PagedConnection<T> {
  constructor(
    readonly edges: (OffsetEdge<T> | KeysetEdge<T> | null)[],
    readonly pageInfo: OffsetPageInfo | KeysetPageInfo,
    private readonly count: () => number | Promise<number>,
  ) {}

  get totalCount() {
    return this.count();
  }
}

/**
 * Pothos's offset connection (resolveOffsetConnection, resolveArrayConnection: the same page
 * arithmetic, the same cursors), with cursors made on demand. `nodes` is the fetched slice,
 * one more than the page when there is a next page. `totalCount` is read when the field is
 * selected, and may answer a promise (see `pagedConnection`).
 */
function offsetConnection<T>(nodes: readonly T[], window: Window, totalCount: () => number | Promise<number>): Connection<T> {
  const size = Math.min(nodes.length, window.expectedSize);
  const edges: (OffsetEdge<T> | null)[] = [];
  for (let i = 0; i < size; i++) edges.push(nodes[i] == null ? null : new OffsetEdge(nodes[i]!, window.offset + i));
  const pageInfo = new OffsetPageInfo(window.offset, size, window.hasPreviousPage, window.hasNextPage(nodes.length));
  // Edges and page info with getters where Pothos builds plain objects: the same fields.
  return new PagedConnection(edges, pageInfo, totalCount) as unknown as Connection<T>;
}

/** An edge of a page read by seeking: its cursor is its row's keys, encoded when read. */
class KeysetEdge<T> {
  constructor(
    readonly node: T,
    private readonly keyset: Keyset<T>,
  ) {}

  get cursor() {
    return keysCursor(this.keyset.keysOf(this.node));
  }
}

class KeysetPageInfo {
  constructor(
    private readonly edges: { readonly cursor: string }[],
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
  ) {}

  get startCursor() {
    return this.edges[0]?.cursor ?? null;
  }

  get endCursor() {
    return this.edges.at(-1)?.cursor ?? null;
  }
}

/**
 * A page read by seeking (`Listing.keyset`): `first` rows after the `after` row (and before the
 * `before` row), or the `last` rows before `before` (or at the end); one row more than the page
 * is read, for `hasNextPage` (`hasPreviousPage` reading backward). As GitLab's keyset connections,
 * a page after a cursor has a previous page and one before a cursor a next one. No count, no
 * OFFSET: the statement reads its page alone whatever the position.
 */
async function seekConnection<T>(args: ConnectionArgs, keyset: Keyset<T>, after: Keys | null, before: Keys | null, count: () => Promise<number>) {
  const { defaultSize, maxSize } = sizesFor(args);
  const clamp = (n: number) => Math.max(0, Math.min(n, maxSize));
  const backward = args.last != null && args.first == null;
  const limit = backward ? clamp(args.last!) : clamp(args.first ?? defaultSize);
  const seek = { after, before, limit: limit + 1, backward };
  const read = await keyset.fetch(seek);
  const more = read.length > limit;
  const rows = read.slice(0, limit);
  if (backward) rows.reverse();
  const edges = rows.map((row) => new KeysetEdge(row, keyset));
  const pageInfo = backward ? new KeysetPageInfo(edges, more, before != null) : new KeysetPageInfo(edges, after != null, more);
  let counted: Promise<number> | undefined;
  return new PagedConnection(edges, pageInfo, () => (counted ??= count())) as unknown as Connection<T>;
}

/**
 * Relay connection with `totalCount`; page sizes are clamped to 100 like GitLab's (a whole list is
 * read whole: `withWholeLists`). A list that seeks (`Listing.keyset`) is read by seeking unless an
 * offset cursor is given (`seekConnection`); any other by offset, with offset cursors.
 * By offset, the page depends on the count only when it is counted back from the end (`last`);
 * otherwise the count is a statement only where `totalCount` (or `count`) is selected, read once,
 * and a page ends where the rows do (one row more than the page is read, for `hasNextPage`).
 */
export async function pagedConnection<T>(given: ConnectionArgs, listing: Listing<T>) {
  const { keyset } = listing;
  if (keyset) {
    const after = readCursor(given.after, keyset as Keyset<unknown>);
    const before = readCursor(given.before, keyset as Keyset<unknown>);
    const keysOf = (cursor: Cursor | null) => (cursor && 'keys' in cursor ? cursor.keys : null);
    if (!(after && 'offset' in after) && !(before && 'offset' in before)) return seekConnection(given, keyset, keysOf(after), keysOf(before), listing.count);
  }
  const args = withCheckedCursors(given);
  const clamp = (n?: number | null) => (n == null ? n : Math.max(0, Math.min(n, MAX_PAGE_SIZE)));
  const bounded = { ...args, first: clamp(args.first), last: clamp(args.last) };
  const counted = bounded.last != null ? await listing.count() : undefined;
  const window = offsetForArgs({ args: bounded, ...sizesFor(args), totalCount: counted });
  const nodes = await listing.fetch({ offset: window.offset, limit: window.limit });
  let count: Promise<number> | undefined;
  return offsetConnection(nodes, window, counted !== undefined ? () => counted : () => (count ??= listing.count()));
}

/** A list loaded whole (children loaded in one batch) as a Relay connection with totalCount. */
export function listConnection<T>(given: ConnectionArgs, list: readonly T[]) {
  const args = withCheckedCursors(given);
  // Pothos's defaults for arrays (20 by default, 100 at most), as resolveArrayConnection pages them.
  const window = offsetForArgs({ args, ...sizesFor(args), totalCount: list.length });
  return offsetConnection(list.slice(window.offset, window.offset + window.limit), window, () => list.length);
}
