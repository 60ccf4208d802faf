import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServer } from '../src/http-server.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function serve(server: http.Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function jsonApp() {
  const app = express();
  app.set('query parser', 'extended');
  app.get('/things/:id', (req, res) => {
    res.set('X-Thing', req.params.id);
    res.status(201).json({ id: req.params.id, query: req.query });
  });
  app.post('/echo', express.json(), (req, res) => res.json(req.body));
  return app;
}

describe('createAppServer', () => {
  it("builds an Express app's requests and responses on the app's own prototypes, which Express then leaves alone", async () => {
    const app = jsonApp();
    const seen: Array<{ request: boolean; response: boolean }> = [];
    const base = await serve(
      createAppServer(app, (req, res) => {
        // Before Express's handle: what Node built, not what Express made of it.
        seen.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
        app(req, res);
      }),
    );
    const res = await fetch(`${base}/things/7?a[b]=1`);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-thing')).toBe('7');
    expect(await res.json()).toEqual({ id: '7', query: { a: { b: '1' } } });
    const head = await fetch(`${base}/things/8`, { method: 'HEAD' });
    expect([head.status, head.headers.get('x-thing'), await head.text()]).toEqual([201, '8', '']);
    const echo = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ many: 'x'.repeat(100_000) }),
    });
    expect((await echo.json()).many).toHaveLength(100_000);
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    expect(seen).toHaveLength(4);
    expect(seen.every((s) => s.request && s.response)).toBe(true);
    // Still Node's messages underneath.
    expect(app.request).toBeInstanceOf(http.IncomingMessage);
    expect(app.response).toBeInstanceOf(http.ServerResponse);
  });

  it("gives a plain listener Node's own classes", async () => {
    const seen: boolean[] = [];
    const base = await serve(
      createAppServer((req, res) => {
        seen.push(Object.getPrototypeOf(req) === http.IncomingMessage.prototype && Object.getPrototypeOf(res) === http.ServerResponse.prototype);
        res.end('plain');
      }),
    );
    expect(await (await fetch(base)).text()).toBe('plain');
    expect(seen).toEqual([true]);
  });
});
