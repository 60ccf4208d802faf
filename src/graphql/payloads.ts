import type { InputFieldMap, ObjectRef, SchemaTypes } from '@pothos/core';
import { getArgumentValues, Kind, type FieldNode, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import type { Context } from '../core/context.ts';
import { isPayloadError, type DomainError } from '../core/errors.ts';
import { executionRoot } from './execution-root.ts';

/** The failure a payload answers in `errors`, kept with its code (not a field: no client reads it). */
const FAILURE = Symbol('payload failure');

type Payload<K extends string, T> = { [key in K]: T | null } & { errors: string[]; clientMutationId?: string | null; [FAILURE]?: DomainError };

/** What every mutation input carries besides its own fields (GitLab's, from Relay). */
export type MutationInput = { clientMutationId?: string | null };

export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;
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
 * and conflict failures land in `errors`, and the payload keeps the failure with its code, so the
 * REST facade can answer GitLab's status and body (`withPayloadFailures`); not-found and forbidden
 * stay GraphQL errors.
 */
export async function asPayload<K extends string, T>(key: K, run: () => Promise<T>, input?: MutationInput): Promise<Payload<K, T>> {
  const clientMutationId = input?.clientMutationId ?? null;
  try {
    return { [key]: await run(), errors: [], clientMutationId } as unknown as Payload<K, T>;
  } catch (error) {
    if (!isPayloadError(error)) throw error;
    return { [key]: null, errors: [error.message], clientMutationId, [FAILURE]: error } as unknown as Payload<K, T>;
  }
}

const failureOf = (payload: unknown): DomainError | undefined =>
  payload !== null && typeof payload === 'object' ? (payload as { [FAILURE]?: DomainError })[FAILURE] : undefined;

/**
 * Every mutation of the schema reports the failure its payload answered to the execution's root
 * (`ExecutionRoot.payloadFailures`): the data keep only its message, the executor needs its code.
 */
export function withPayloadFailures(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    if (field.resolve) field.resolve = reportingFailure(field.resolve);
  }
  return schema;
}

function reportingFailure(resolve: GraphQLFieldResolver<unknown, Context>): GraphQLFieldResolver<unknown, Context> {
  return async (source, args, ctx, info) => {
    const payload: unknown = await resolve(source, args, ctx, info);
    const failure = failureOf(payload);
    if (failure) executionRoot(info)?.payloadFailures.push(failure);
    return payload;
  };
}

/**
 * The `clientMutationId` a payload echoes: the one its mutation kept, else the one the
 * mutation's `input` carried (read from the operation, so every mutation echoes it).
 */
export function clientMutationIdOf(payload: { clientMutationId?: string | null }, info: GraphQLResolveInfo): string | null {
  if (payload.clientMutationId != null) return payload.clientMutationId;
  const mutation = info.schema.getMutationType();
  const key = info.path.prev?.key;
  if (info.operation.operation !== 'mutation' || !mutation || info.path.prev?.prev !== undefined) return null;
  const node = info.operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === key);
  const field = node && mutation.getFields()[node.name.value];
  if (!node || !field) return null;
  const input = getArgumentValues(field, node, info.variableValues).input as MutationInput | undefined;
  return input?.clientMutationId ?? null;
}

/** GitLab's `errors: [String!]!` of a mutation payload. */
export const payloadErrorsField = <P extends { errors: string[] }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.stringList({ nullable: false, description: 'Errors encountered during the mutation.', resolve: (p) => p.errors });

/** GitLab's `clientMutationId` of a mutation payload (see `clientMutationIdOf`). */
export const payloadClientMutationIdField = <P extends { clientMutationId?: string | null }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.string({
    nullable: true,
    description: 'A unique identifier for the client performing the mutation.',
    resolve: (p, _a, _ctx, info) => clientMutationIdOf(p, info),
  });

export function payloadType<K extends string, T>(name: string, key: K, type: ObjectRef<Types, T>) {
  return builder.objectRef<Payload<K, T>>(name).implement({
    fields: (t) => ({
      // The object field's type is only known per payload; Pothos cannot infer it from a computed key.
      [key]: t.field({ type, nullable: true, resolve: (p: Payload<K, T>) => p[key] as never }),
      errors: payloadErrorsField(t),
      clientMutationId: payloadClientMutationIdField(t),
    }),
  });
}
