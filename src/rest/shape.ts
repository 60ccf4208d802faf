import type { ConnectionResult } from './route.ts';
import { NotFoundError } from '../core/errors.ts';

/** A root field the viewer cannot see resolves to null; REST answers GitLab's 404 for it. */
export function found<T>(value: T | null | undefined, resource: string): T {
  if (value == null) throw new NotFoundError(resource);
  return value;
}

/**
 * The entity without `keys`, the others in their order, after the keys `leading` already holds.
 * Shapers use it instead of object rest (`({ web_url, ...commit }) =>`) and instead of a spread
 * that is not the first of its object literal (`{ ...user, ...membership }`), both many times
 * slower for a page of entities (bench/RESULTS.md, "Figures behind the code"); a literal's first spread is a plain clone.
 */
export function omit<T extends object, K extends keyof T, L extends object = object>(entity: T, keys: readonly K[], leading?: L): L & Omit<T, K> {
  const copy = (leading ?? {}) as Record<string, unknown>;
  for (const key in entity) if (!keys.includes(key as unknown as K)) copy[key] = entity[key];
  return copy as L & Omit<T, K>;
}

/**
 * Drops viewer-gated attributes that resolved to null, as GitLab leaves them out of the entity.
 * A key holding `undefined` (a field graphql-jit skipped) counts as absent too.
 */
export function withoutNull<T extends Record<string, unknown>>(entity: T, keys: (keyof T)[]): T {
  // Copied without the keys, not copied then deleted from: an object that lost a key is slower
  // for everything after, JSON.stringify included.
  const copy = {} as Record<string, unknown>;
  for (const key in entity) if (entity[key] != null || !keys.includes(key)) copy[key] = entity[key];
  return copy as T;
}

type Connection<T> = { totalCount: number | null; nodes: readonly (T | null)[] | null } | null | undefined;

/** The nodes of a connection the operation selected (the schema's lists are nullable, as GitLab's are). */
export const nodesOf = <T>(connection: Connection<T> | { nodes: readonly (T | null)[] | null }): T[] =>
  (connection?.nodes ?? []).filter((node): node is T => node !== null);

/** A connection of the operation's data as the page a paginated route answers. */
export function page<T>(connection: Connection<T>): ConnectionResult<T>;
/** The same, each node shaped as GitLab's entity. */
export function page<T, U>(connection: Connection<T>, entity: (node: T) => U): ConnectionResult<U>;
export function page<T, U>(connection: Connection<T>, entity?: (node: T) => U): ConnectionResult<T | U> {
  const nodes = nodesOf(connection);
  return { totalCount: connection?.totalCount ?? 0, nodes: entity ? nodes.map(entity) : nodes };
}

/** A REST value in lower case as the GraphQL enum value of the same name: `released_at` → `RELEASED_AT`. */
export const enumValue = <S extends string>(value: S) => value.toUpperCase() as Uppercase<S>;

/**
 * A field the schema declares nullable (as GitLab's schema does) that the operation always fills,
 * such as a mutation's object once the mutation succeeded. Null here is a bug, not a 404.
 */
export function expected<T>(value: T | null | undefined, what: string): T {
  if (value == null) throw new Error(`the operation returned no ${what}`);
  return value;
}
