import type { FieldNullability, InputFieldMap, MaybePromise, SchemaTypes, TypeParam } from '@pothos/core';
import { getNamedType, isObjectType, type GraphQLField, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import type { Context } from '../core/context.ts';
import { Lookahead } from './lookahead.ts';

/**
 * What a field reads for a whole page of its parents before they resolve, one batch per relation
 * (`loader.preload(ids)`), so that its resolver, reading the same loaders, answers at once (see
 * SettledLoader). It answers what the field resolves to for those parents, as an array, when fields
 * below it preload too (their parents); anything else answered is ignored.
 */
export type Preload<Parent> = (ctx: Context, parents: readonly Parent[]) => MaybePromise<unknown>;

declare global {
  export namespace PothosSchemaTypes {
    export interface FieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveShape,
      ResolveReturnShape,
    > {
      /** Run by the list above this field's parents when a query selects it (`preloadPage`). */
      preload?: Preload<ParentShape>;
    }
  }
}

/** Several preloads as one, run side by side. */
export const preloadAll =
  <Parent>(...preloads: Preload<Parent>[]): Preload<Parent> =>
  async (ctx, parents) => {
    await Promise.all(preloads.map((preload) => preload(ctx, parents)));
  };

type Preloads = readonly (readonly [name: string, field: GraphQLField<unknown, unknown>, preload: Preload<unknown>])[];

/** The fields of each type that declare a preload, found once per type. */
const declared = new WeakMap<GraphQLObjectType, Preloads>();

function preloadsOf(type: GraphQLObjectType): Preloads {
  let found = declared.get(type);
  if (found) return found;
  found = Object.entries(type.getFields()).flatMap(([name, field]) => {
    // Pothos keeps the options a field was declared with in its extensions.
    const preload: unknown = (field.extensions.pothosOptions as { preload?: unknown } | undefined)?.preload;
    return typeof preload === 'function' ? [[name, field, preload as Preload<unknown>] as const] : [];
  });
  declared.set(type, found);
  return found;
}

/** The object type below a field and what the query selects on it: a connection's nodes, or the object itself. */
function below(field: GraphQLField<unknown, unknown>, selected: Lookahead): [GraphQLObjectType, Lookahead] | null {
  const type = getNamedType(field.type);
  if (!isObjectType(type)) return null;
  const nodes = type.getFields().pageInfo && type.getFields().nodes;
  if (!nodes) return [type, selected];
  const node = getNamedType(nodes.type);
  return isObjectType(node) ? [node, selected.nodes()] : null;
}

/** Runs the preloads of the fields `selected` selects on `type` for `parents`, then those of the fields below them. */
async function preloadFields(ctx: Context, type: GraphQLObjectType, parents: readonly unknown[], selected: Lookahead): Promise<void> {
  await Promise.all(
    preloadsOf(type).map(async ([name, field, preload]) => {
      if (!selected.has(name)) return;
      const children = await preload(ctx, parents);
      if (!Array.isArray(children) || children.length === 0) return;
      const next = below(field, selected.child(name));
      if (next) await preloadFields(ctx, next[0], children, next[1]);
    }),
  );
}

/**
 * Preloads what the fields a query selects below a list read, for its page of `nodes`: the one
 * preload mechanism of lists. A list resolver (a connection field) calls it with its page before
 * answering; each field declares its own `preload` beside its resolver, so a field cannot be
 * selected without its relations being read for the whole page.
 */
export async function preloadPage(ctx: Context, info: GraphQLResolveInfo, nodes: readonly unknown[]): Promise<void> {
  if (nodes.length === 0) return;
  const connection = getNamedType(info.returnType);
  const field = isObjectType(connection) ? connection.getFields().nodes : undefined;
  const type = field && getNamedType(field.type);
  if (isObjectType(type)) await preloadFields(ctx, type, nodes, Lookahead.of(info).nodes());
}

/** A page of a connection whose nodes have what their selected fields read preloaded (see `preloadPage`). */
export async function preloadedPage<C extends { edges: readonly ({ node: unknown } | null)[] }>(
  ctx: Context,
  info: GraphQLResolveInfo,
  paging: Promise<C>,
): Promise<C> {
  const page = await paging;
  await preloadPage(
    ctx,
    info,
    page.edges.flatMap((edge) => (edge ? [edge.node] : [])),
  );
  return page;
}
