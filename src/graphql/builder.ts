import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { DateResolver, DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { getDatamodel } from '../generated/pothos-types.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import type { Scope } from '../auth/scopes.ts';
import type { Context } from './context.ts';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: Context;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  Connection: { totalCount: number };
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgeCursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: true,
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('Date', DateResolver);
builder.addScalarType('JSON', JSONResolver);

builder.queryType({});
builder.mutationType({});

builder.globalConnectionFields((t) => ({
  totalCount: t.int({ description: 'Total number of items across all pages.', resolve: (c) => c.totalCount }),
  count: t.int({ description: 'Same as totalCount (GitLab name).', resolve: (c) => c.totalCount }),
}));

/** Token scopes a root field accepts; checked once per operation before execution. */
export const scopes = (...list: Scope[]) => ({ scopes: list });

/** GitLab's global id format, `gid://gitlab/Project/1`. */
export const gid = (type: string, id: number) => `gid://gitlab/${type}/${id}`;
