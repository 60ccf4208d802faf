import type { InputFieldMap, ObjectRef, SchemaTypes } from '@pothos/core';
import { builder } from './builder.ts';
import type { Context } from '../core/context.ts';
import { isPayloadError } from '../core/errors.ts';

type Payload<K extends string, T> = { [key in K]: T | null } & { errors: string[]; clientMutationId?: string | null };

/** What every mutation input carries besides its own fields (GitLab's, from Relay). */
export type MutationInput = { clientMutationId?: string | null };

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;
export type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;

/**
 * GitLab's mutation input: the mutation's own fields and `clientMutationId`, which the payload
 * echoes. Every mutation takes exactly one argument, `input`, of such a type.
 */
export function mutationInput<Fields extends InputFieldMap>(name: string, fields: (t: InputFields) => Fields) {
  return builder.inputType(name, {
    fields: (t) => ({
      ...fields(t),
      clientMutationId: t.string({ description: 'A unique identifier for the client performing the mutation.' }),
    }),
  });
}

/**
 * GitLab's mutation payload: the object and `errors: [String!]!` (empty on success). Validation
 * and conflict failures land in `errors` and are kept on the context with their codes, so the
 * REST facade can answer GitLab's status and body; not-found and forbidden stay GraphQL errors.
 */
export async function asPayload<K extends string, T>(ctx: Context, key: K, run: () => Promise<T>, input?: MutationInput): Promise<Payload<K, T>> {
  const clientMutationId = input?.clientMutationId ?? null;
  try {
    return { [key]: await run(), errors: [], clientMutationId } as unknown as Payload<K, T>;
  } catch (error) {
    if (!isPayloadError(error)) throw error;
    ctx.payloadErrors.push(error);
    return { [key]: null, errors: [error.message], clientMutationId } as unknown as Payload<K, T>;
  }
}

export function payloadType<K extends string, T>(name: string, key: K, type: ObjectRef<Context extends never ? never : any, T>) {
  return builder.objectRef<Payload<K, T>>(name).implement({
    fields: (t) => ({
      // The object field's type is only known per payload; Pothos cannot infer it from a computed key.
      [key]: t.field({ type, nullable: true, resolve: (p: Payload<K, T>) => p[key] as never }),
      errors: t.stringList({ description: 'Errors encountered during the mutation.', resolve: (p) => p.errors }),
      clientMutationId: t.string({
        nullable: true,
        description: 'A unique identifier for the client performing the mutation.',
        resolve: (p) => p.clientMutationId ?? null,
      }),
    }),
  });
}
