import { NotFoundError } from '../graphql/errors.ts';

/** A root field the viewer cannot see resolves to null; REST answers GitLab's 404 for it. */
export function found<T>(value: T | null | undefined, resource: string): T {
  if (value == null) throw new NotFoundError(resource);
  return value;
}

/** Drops viewer-gated attributes that resolved to null, as GitLab leaves them out of the entity. */
export function withoutNull<T extends Record<string, unknown>>(entity: T, keys: (keyof T)[]): T {
  const copy = { ...entity };
  for (const key of keys) if (copy[key] === null) delete copy[key];
  return copy;
}
