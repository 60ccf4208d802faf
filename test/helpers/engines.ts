import request from 'supertest';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { jitExecutions } from '../../src/graphql/jit.ts';
import type { TestApp } from './app.ts';

type Answer = { status: number; type: string | undefined; text: string };

/**
 * /api/graphql twice over the same deps (same data): executed by graphql-jit and by Yoga's own
 * executor, the reference, each app on a port of its own. `compare` runs a document on both and
 * asserts the same bytes.
 */
export async function graphqlEngines(t: TestApp, deps: TestApp['deps'] = t.deps) {
  const jit = await t.serve(buildApp(deps, { graphqlEngine: 'jit' }));
  const reference = await t.serve(buildApp(deps, { graphqlEngine: 'graphql-js' }));
  let documents = 0;

  async function post(base: string, body: object, token: string | null): Promise<Answer> {
    const r = request(base)
      .post('/api/graphql')
      .send(body)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => done(null, text));
      });
    const res = await (token ? r.set('Authorization', `Bearer ${token}`) : r);
    return { status: res.status, type: res.headers['content-type'], text: res.body as string };
  }

  /**
   * The reference answer to a document, after asserting that graphql-jit answers the same bytes,
   * both the first time it sees the document (still the reference executor) and the second
   * (compiled). `compiled: false` for documents the reference answers on either app: refused
   * before execution (validation, checks) or with variables that do not coerce.
   */
  async function compare(
    query: string,
    variables: Record<string, unknown> = {},
    token: string | null = t.root.token,
    { operationName, compiled = true }: { operationName?: string; compiled?: boolean } = {},
  ) {
    // A document the app has not seen yet (a comment of its own), so the first jit run is a first sighting.
    const body = { query: `${query}\n# ${++documents}`, variables, ...(operationName && { operationName }) };
    const expected = await post(reference, body, token);
    expect(await post(jit, body, token), `first sighting of ${query}`).toEqual(expected);
    const before = jitExecutions.compiled;
    expect(await post(jit, body, token), `second sighting of ${query}`).toEqual(expected);
    expect(jitExecutions.compiled - before, `compiled path taken for ${query}`).toBe(compiled ? 1 : 0);
    return { status: expected.status, body: JSON.parse(expected.text) };
  }

  return { jit, reference, post, compare };
}
