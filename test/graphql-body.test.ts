// GraphQL request bodies: read before graphql-yoga (src/graphql/request-body.ts) with Yoga's own
// answers kept for everything the reader leaves to it, and its size limit kept for both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_BODY_LIMIT, graphqlJsonBody } from '../src/graphql/request-body.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const post = (body: string, type = 'application/json') =>
  request(t.base).post('/api/graphql').set('Authorization', `Bearer ${t.root.token}`).set('content-type', type).send(body);

/** A POST written by hand: `declared` as Content-Length (chunked when absent), `chunks` sent as they are. */
function rawPost(base: string, path: string, chunks: Buffer[], headers: Record<string, string>) {
  const url = new URL(base);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => {
        // The answer may come before the body is all sent: the rest is not needed.
        req.destroy();
        resolve({ status: res.statusCode!, body });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    const write = (i: number): void => {
      if (i === chunks.length || req.destroyed) {
        req.end();
        return;
      }
      if (req.write(chunks[i]!)) write(i + 1);
      else req.once('drain', () => write(i + 1));
    };
    write(0);
  });
}

describe('the GraphQL endpoint', () => {
  it('answers JSON bodies in every content type Yoga reads as JSON', async () => {
    const query = JSON.stringify({ query: '{ currentUser { username } }' });
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/graphql+json']) {
      const res = await post(query, type).expect(200);
      expect(res.body, type).toEqual({ data: { currentUser: { username: 'root' } } });
    }
  });

  it("keeps Yoga's answers for bodies that are not a GraphQL request", async () => {
    const cases: Array<[string, number, string]> = [
      ['{"query": ', 400, 'POST body sent invalid JSON.'],
      ['', 400, 'POST body sent invalid JSON.'],
      ['null', 400, 'POST body is expected to be object but received null'],
      ['"x"', 400, 'POST body is expected to be object but received string'],
      ['[]', 400, 'A batched request needs at least one operation.'],
      ['{}', 200, 'Must provide query string.'],
    ];
    for (const [body, status, message] of cases) {
      const res = await post(body);
      expect([res.status, res.body.errors?.[0]?.message], body).toEqual([status, message]);
    }
  });

  it('refuses a declared length past the limit without reading the body', async () => {
    const res = await rawPost(t.base, '/api/graphql', [Buffer.from('{"query":')], {
      Authorization: `Bearer ${t.root.token}`,
      'content-type': 'application/json',
      'content-length': String(GRAPHQL_BODY_LIMIT + 1),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
  });
});

describe('graphqlJsonBody', () => {
  let base: string;
  let server: http.Server;
  /** What reached the route and the error handler, and a promise per closed response. */
  const reached = { route: 0, errors: [] as unknown[] };
  let closed: Promise<void> = Promise.resolve();
  beforeAll(async () => {
    const app = express();
    app.use((_req, res, next) => {
      closed = new Promise((resolve) => res.once('close', () => resolve()));
      next();
    });
    // What the reader hands on: the parsed body, the text, or nothing (and the stream unread).
    app.post('/graphql', graphqlJsonBody(64), async (req, res) => {
      reached.route += 1;
      let unread = '';
      if (req.body === undefined) for await (const chunk of req) unread += chunk;
      res.json({ body: req.body ?? null, unread });
    });
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      reached.errors.push(error);
      res.status(500).end();
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = (body: string, headers: Record<string, string> = {}) =>
    request(base).post('/graphql').set('content-type', 'application/json').set(headers).send(body).expect(200);

  it('hands on a GraphQL request parsed, anything else as text', async () => {
    expect((await send('{"query":"{ a }"}')).body).toEqual({ body: { query: '{ a }' }, unread: '' });
    for (const text of ['null', '[]', '{}', '{"query": ']) expect((await send(text)).body, text).toEqual({ body: text, unread: '' });
  });

  it('leaves other content types, encoded bodies and over-long declared lengths to the next reader', async () => {
    expect((await send('{"query":"{ a }"}', { 'content-type': 'text/plain' })).body).toEqual({ body: null, unread: '{"query":"{ a }"}' });
    expect((await send('{"query":"{ a }"}', { 'content-encoding': 'br' })).body).toEqual({ body: null, unread: '{"query":"{ a }"}' });
    const long = JSON.stringify({ query: `{ a }${' '.repeat(64)}` });
    expect((await send(long)).body).toEqual({ body: null, unread: long });
  });

  it('answers a client that leaves mid-body itself, with nothing for the route or the error handler', async () => {
    const before = reached.route;
    const url = new URL(base);
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => {});
    req.write('{"query":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    req.destroy();
    await closed;
    expect([reached.route - before, reached.errors]).toEqual([0, []]);
  });

  it('answers 413 when a chunked body passes the limit', async () => {
    const chunks = Array.from({ length: 4 }, () => Buffer.from(' '.repeat(40)));
    const res = await rawPost(base, '/graphql', chunks, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
  });
});
