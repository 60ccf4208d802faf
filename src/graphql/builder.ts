import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { DateResolver, DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { GLOBAL_ID_CLASSES, globalIdScalar, gid, isoTimestamps, parseGlobalId, storableDates, uploadScalar, type GlobalIdScalarName } from './scalars.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import type { Scope } from '../auth/scopes.ts';
import type { Context } from '../core/context.ts';
import AbilitiesPlugin from './abilities.ts';
import type { Upload } from '../core/upload.ts';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: Context;
  Scalars: {
    Time: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    /** A multipart file (see `core/upload.ts`). */
    Upload: { Input: Upload; Output: never };
    /** A JSON document as its text (alert endpoints' sample payloads). */
    JsonString: { Input: string; Output: string };
    /** A key or an array index of a path into an alert payload. */
    PayloadAlertFieldPathSegment: { Input: string; Output: string };
  } & { [K in GlobalIdScalarName]: { Input: number; Output: number | string } };
  /** A promise where the count is read only when asked for (graphql/connections.ts). */
  Connection: { totalCount: number | Promise<number> };
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  // Abilities first: a field's permission guards the resolver the other plugins make.
  plugins: [AbilitiesPlugin, PrismaPlugin, RelayPlugin],
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

// GitLab's name for timestamps (ISO 8601); `Date` is a calendar date, as in GitLab.
builder.addScalarType('Time', isoTimestamps(storableDates(DateTimeResolver)), {
  description: 'Time represented in ISO 8601. For example: "2021-03-09T14:58:50+00:00".',
});
builder.addScalarType('Date', storableDates(DateResolver));
builder.addScalarType('JSON', JSONResolver);
// Files of multipart requests, taken by the areas that import relations and reassignment CSVs.
builder.addScalarType('Upload', uploadScalar);
// GitLab's typed global ids (`UserID`, `ProjectID`, …): arguments take them, the input is the database id.
for (const name of Object.keys(GLOBAL_ID_CLASSES) as GlobalIdScalarName[]) builder.addScalarType(name, globalIdScalar(name));

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

builder.globalConnectionFields((t) => ({
  totalCount: t.int({ description: 'Total number of items across all pages.', resolve: (c) => c.totalCount }),
  count: t.int({ description: 'Same as totalCount (GitLab name).', resolve: (c) => c.totalCount }),
}));

/**
 * Token scopes a field (or, on a type, each of its fields) accepts. Every field a query selects is
 * checked, so a field open to e.g. `read_repository` does not open the fields below it.
 */
export const scopes = (...list: Scope[]) => ({ scopes: list });

/**
 * Token scopes that cover a field and everything selected below it: for a field whose whole
 * answer is the caller's own (the token it authenticated with), not a door into other data.
 */
export const scopesWithSelection = (...list: Scope[]) => ({ scopes: list, scopesCoverSelection: true });

export { gid };

/**
 * The database id in a global id of `type` (`gid://gitlab/Packages::Protection::Rule/7`), or in a
 * bare number as the REST facade passes it; null for anything else (another type, garbage).
 */
export function databaseIdOf(type: string, value: string | number): number | null {
  const text = String(value);
  if (/^\d{1,15}$/.test(text)) return Number(text) <= 2_147_483_647 ? Number(text) : null;
  const parsed = parseGlobalId(text);
  return parsed && parsed.className === type ? parsed.id : null;
}
