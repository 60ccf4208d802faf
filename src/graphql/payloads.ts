import type { ObjectRef } from '@pothos/core';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { isPayloadError } from './errors.ts';

type Payload<K extends string, T> = { [key in K]: T | null } & { errors: string[] };

/**
 * GitLab's mutation payload: the object and `errors: [String!]!` (empty on success). Validation
 * and conflict failures land in `errors` and are kept on the context with their codes, so the
 * REST facade can answer GitLab's status and body; not-found and forbidden stay GraphQL errors.
 */
export async function asPayload<K extends string, T>(ctx: Context, key: K, run: () => Promise<T>): Promise<Payload<K, T>> {
  try {
    return { [key]: await run(), errors: [] } as unknown as Payload<K, T>;
  } catch (error) {
    if (!isPayloadError(error)) throw error;
    ctx.payloadErrors.push(error);
    return { [key]: null, errors: [error.message] } as unknown as Payload<K, T>;
  }
}

export function payloadType<K extends string, T>(name: string, key: K, type: ObjectRef<Context extends never ? never : any, T>) {
  return builder.objectRef<Payload<K, T>>(name).implement({
    fields: (t) => ({
      // The object field's type is only known per payload; Pothos cannot infer it from a computed key.
      [key]: t.field({ type, nullable: true, resolve: (p: Payload<K, T>) => p[key] as never }),
      errors: t.stringList({ description: 'Errors encountered during the mutation.', resolve: (p) => p.errors }),
    }),
  });
}
