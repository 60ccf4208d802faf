import { expect } from 'vitest';
import type { TestApp } from './app.ts';

export type Json = Record<string, unknown>;

/** Where a GraphQL value is: a dot path in the object, or a function for values GitLab words differently per interface. */
export type GraphqlField = string | ((node: Json) => unknown);

/** One object read through both interfaces, and the fields both expose (a field map per area). */
export type Twin = {
  /** GET path under /api/v4. */
  rest: string;
  /** The object in the REST body (default: the body itself), e.g. one element of a list. */
  restPick?: (body: unknown) => unknown;
  /** A GraphQL query; `at` finds the object in its `data` (a dot path, or a function of `data`). */
  graphql: string;
  variables?: Record<string, unknown>;
  at: string | ((data: Json) => unknown);
  /** REST field (dot path) → GraphQL field. A field REST leaves out counts as null. */
  fields: Record<string, GraphqlField>;
};

/** What a viewer got: the object, GitLab's 404 (null over GraphQL), 403 (FORBIDDEN) or 401 (UNAUTHORIZED over GraphQL). */
export type Outcome = 'visible' | 'not-found' | 'forbidden' | 'unauthorized';

/** The value at a dot path of a JSON answer; undefined where the path leaves it. */
export const at = (value: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Json)[key] : undefined), value);

/** The objects of the list at a dot path (a connection's `nodes`, a REST list); undefined where there is none. */
export const listAt = (value: unknown, path: string): Json[] | undefined => {
  const list = at(value, path);
  return Array.isArray(list) ? (list as Json[]) : undefined;
};

const orNull = (value: unknown) => (value === undefined ? null : value);

function restOutcome(status: number): Outcome {
  if (status === 200) return 'visible';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 401) return 'unauthorized';
  throw new Error(`REST answered ${status}`);
}

/** The GraphQL error codes that are an outcome (a refusal), not a failure of the query. */
const GRAPHQL_OUTCOMES: Record<string, Outcome> = { FORBIDDEN: 'forbidden', NOT_FOUND: 'not-found', UNAUTHORIZED: 'unauthorized' };

/** Fetches one object through REST and GraphQL as the same viewer. */
export async function readTwins(t: TestApp, token: string | null, twin: Twin) {
  const rest = await t.api('get', twin.rest, token);
  const graphql = await t.graphql(twin.graphql, twin.variables, token);
  const code = graphql.body.errors?.[0]?.extensions?.code as string | undefined;
  if (graphql.body.errors && !(code && code in GRAPHQL_OUTCOMES)) throw new Error(`GraphQL failed: ${JSON.stringify(graphql.body.errors)}`);
  const node = code ? null : typeof twin.at === 'string' ? at(graphql.body.data, twin.at) : twin.at(graphql.body.data);
  const restNode = rest.status === 200 ? (twin.restPick ?? ((b) => b))(rest.body) : undefined;
  return {
    outcomes: {
      rest: restNode === undefined && rest.status === 200 ? 'not-found' : restOutcome(rest.status),
      graphql: code ? GRAPHQL_OUTCOMES[code] : node == null ? 'not-found' : 'visible',
    } as { rest: Outcome; graphql: Outcome },
    rest: restNode as Json | undefined,
    graphql: node as Json | null,
  };
}

/**
 * Asserts that a viewer gets the same answer through both interfaces: the same outcome and,
 * when the object is visible, the same value for every field of the map. `expected` names the
 * outcome, or both outcomes where GitLab itself answers differently per interface.
 */
export async function expectTwins(t: TestApp, token: string | null, twin: Twin, expected: Outcome | { rest: Outcome; graphql: Outcome }) {
  const read = await readTwins(t, token, twin);
  const outcomes = typeof expected === 'string' ? { rest: expected, graphql: expected } : expected;
  expect(read.outcomes, `${twin.rest}: outcomes`).toEqual(outcomes);
  if (read.outcomes.rest !== 'visible' || read.outcomes.graphql !== 'visible') return read;
  for (const [restField, graphqlField] of Object.entries(twin.fields)) {
    const graphqlValue = typeof graphqlField === 'string' ? at(read.graphql, graphqlField) : graphqlField(read.graphql!);
    // GraphQL answers every field it was asked for: undefined is a mistake in the map, not a null.
    expect(graphqlValue, `${twin.rest}: ${restField} ← ${String(graphqlField)} is not selected`).not.toBeUndefined();
    expect(orNull(at(read.rest, restField)), `${twin.rest}: ${restField}`).toEqual(orNull(graphqlValue));
  }
  return read;
}
