// Abusive GraphQL documents (issue #37): fragments that spread each other twice (a kilobyte that
// expands to millions of selections), nesting past GitLab's depths, introspection cycles, and
// variables nested thousands deep. Each is refused with a 400 and a message before it is walked;
// the walks themselves follow a fragment once per selection set. Counts and answers only: the
// time each takes is bench/graphql-abuse.ts's.
import { getIntrospectionQuery, parse } from 'graphql';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Viewer } from '../src/auth/viewer.ts';
import { MAX_SELECTIONS, operationComplexity } from '../src/graphql/operation-checks.ts';
import { selectionVisits } from '../src/graphql/selections.ts';
import { schema } from '../src/kernel.ts';
import { OperationRegistry } from '../src/rest/operations.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedProject(t);
});
afterAll(() => t.close());

/** `{...F0}` where each fragment spreads the next twice: 2^levels copies of the last one's selection. */
function doubling(levels: number, last: string, on = 'Query', root = `query{...F0}`) {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on ${on}{...F${i + 1} ...F${i + 1}}`);
  return `${root} ${fragments.join(' ')} fragment F${levels} on ${on}{${last}}`;
}

const ATTACK = doubling(22, '__typename x:__typename');

describe('fragments spread twice over', () => {
  it('refuses the 1 KB document of 2^23 selections, anonymous and signed in, before any walk', async () => {
    expect(ATTACK.length).toBeLessThan(1024);
    const message = `Query has 8388608 selections once its fragments are expanded, which exceeds max selections of ${MAX_SELECTIONS}`;
    for (const token of [null, t.root.token]) {
      const before = selectionVisits.fields;
      const res = await t.graphql(ATTACK, {}, token);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ message, extensions: expect.objectContaining({ code: 'QUERY_TOO_LARGE' }) })]);
      expect(selectionVisits.fields - before).toBe(0);
    }
  });

  it('runs a document of the same shape but small, and walks each fragment once per selection set', async () => {
    const before = selectionVisits.fields;
    const res = await t.graphql(doubling(4, '__typename x:__typename'), {}, null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { __typename: 'Query', x: 'Query' } });
    // The cost walk (anonymous), then the scope walk (signed in; the cost is remembered): each
    // sees the 2 fields once, not the 16 copies.
    expect((await t.graphql(doubling(4, '__typename x:__typename'))).status).toBe(200);
    expect(selectionVisits.fields - before).toBe(4);
  });

  it('costs a field reached through repeated spreads once, as graphql-js runs it once', async () => {
    // 256 copies of `currentUser { username }`: costed per copy, 512 (past the anonymous 200).
    const document = doubling(8, 'currentUser { username }');
    expect(operationComplexity(schema, parse(document))).toBe(2);
    const res = await t.graphql(document, {}, null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { currentUser: null } });
  });

  it('looks ahead through repeated spreads once per selection set', async () => {
    const document = doubling(6, 'name', 'Project', 'query{ projects { nodes { ...F0 } } }');
    const before = selectionVisits.fields;
    const res = await t.graphql(document);
    expect(res.status).toBe(200);
    expect(res.body.data.projects.nodes.length).toBeGreaterThan(0);
    // 64 copies walked per copy would be hundreds of visits.
    expect(selectionVisits.fields - before).toBeGreaterThan(0);
    expect(selectionVisits.fields - before).toBeLessThan(40);
  });

  it('bounds the REST operations with the same walk', () => {
    const registry = new OperationRegistry(schema, [parse(doubling(14, '__typename', 'Query', 'query Abuse {...F0}'))]);
    expect(() => registry.document('Abuse')).toThrow(/Query has 16384 selections once its fragments are expanded/);
    const small = new OperationRegistry(schema, [parse(doubling(4, '__typename', 'Query', 'query Small {...F0}'))]);
    expect(small.document('Small').definitions).toHaveLength(6);
  });
});

describe("GitLab's depth and recursion ceilings", () => {
  // 16 levels, no field repeated more than twice down the branch.
  const chain = [
    'accessRequests',
    'edges',
    'node',
    'user',
    'namespace',
    'projects',
    'edges',
    'node',
    'accessRequests',
    'edges',
    'node',
    'user',
    'namespace',
    'projects',
  ];
  const deep = `{ project(fullPath: "a/b") { ${chain.join(' { ')} { __typename ${' }'.repeat(chain.length)} } }`;

  it('refuses 16 levels anonymously (15) and runs them signed in (20)', async () => {
    const anonymous = await t.graphql(deep, {}, null);
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.errors[0].message).toBe('Query has depth of 16, which exceeds max depth of 15');
    const signedIn = await t.graphql(deep);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({ data: { project: null } });
  });

  it('refuses a branch that unrolls a cycle of the schema, as GitLab does', async () => {
    const cycle = `{ project(fullPath: "a/b") { ${'group { projects { nodes { '.repeat(3)}name${' } } }'.repeat(3)} } }`;
    for (const token of [null, t.root.token]) {
      const res = await t.graphql(cycle, {}, token);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toBe(`Recursive query - too many of fields '{"group"=>3, "projects"=>3}' detected in single branch of the query`);
    }
  });

  it("answers GraphiQL's introspection anonymously; graphql-js refuses introspection cycles", async () => {
    const graphiql = await t.graphql(getIntrospectionQuery({ inputValueDeprecation: true }), {}, null);
    expect(graphiql.status).toBe(200);
    expect(graphiql.body.data.__schema.queryType.name).toBe('Query');
    const cycle = await t.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', {}, null);
    expect(cycle.body.errors[0].message).toBe('Maximum introspection depth exceeded');
  });
});

describe('variables', () => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
  const post = (body: string) =>
    request(t.base).post('/api/graphql').set('Authorization', `Bearer ${t.root.token}`).set('content-type', 'application/json').send(body);

  it('refuses variables nested 5,000 deep with a 400 and a message, whatever reads them', async () => {
    const bodies = [
      `{"query":"{ __typename }","variables":${nested(5000)}}`,
      `{"query":"query($x: String) { x: __typename }","variables":{"x":${nested(5000)}}}`,
      `{"query":"mutation($input: ReleaseCreateInput!) { releaseCreate(input: $input) { errors } }","variables":{"input":{"projectPath":"a/b","tagName":"v1","assets":{"links":[${nested(5000)}]}}}}`,
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ message: 'Variables are nested deeper than 100 levels' })]);
    }
    // A hundred levels are read as ever (the variable is not used, so it is not coerced).
    await post(`{"query":"{ __typename }","variables":{"x":${nested(99)}}}`).expect(200);
  });

  it('refuses a deep JSON body from its bytes, before parsing it; other request shapes after', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const deep = `{"query":"{ __typename }","variables":{"x":${nested(5000)}}}`;
      const res = await post(deep);
      expect(res.status).toBe(400);
      // The same answer as for variables refused once parsed (the GET below).
      expect(res.body.errors).toEqual([{ message: 'Variables are nested deeper than 100 levels', extensions: { code: 'VARIABLES_TOO_DEEP', status: 400 } }]);
      expect(parse.mock.calls.filter(([text]) => text === deep)).toEqual([]);
      // Positive control: a body within the limit is parsed by the same spy.
      const fine = `{"query":"{ __typename }","variables":{"x":${nested(99)}}}`;
      await post(fine).expect(200);
      expect(parse.mock.calls.filter(([text]) => text === fine)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
    // GET reads variables from the query string: Yoga parses them, the operation checks refuse them.
    const viaGet = await request(t.base)
      .get('/api/graphql')
      .query({ query: '{ __typename }', variables: nested(150) })
      .set('Authorization', `Bearer ${t.root.token}`)
      .set('accept', 'application/json');
    expect(viaGet.status).toBe(400);
    expect(viaGet.body.errors).toEqual([{ message: 'Variables are nested deeper than 100 levels', extensions: { code: 'VARIABLES_TOO_DEEP', status: 400 } }]);
  });
});

describe('unexpected errors', () => {
  it('are logged at error level with the request id and answered with a message, never as {}', async () => {
    const failure = new RangeError('forced');
    const check = vi.spyOn(Viewer.prototype, 'requireUsableCredential').mockImplementation(() => {
      throw failure;
    });
    const logged = vi.spyOn(t.deps.log, 'error');
    try {
      const res = await t.graphql('{ currentUser { username } }');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ errors: [expect.objectContaining({ message: 'Unexpected error.' })] });
      expect(logged).toHaveBeenCalledWith(expect.objectContaining({ err: failure, requestId: res.headers['x-request-id'] }), 'unhandled GraphQL error');
    } finally {
      check.mockRestore();
      logged.mockRestore();
    }
  });
});
