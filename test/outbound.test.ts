import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, OutboundError, sendOutbound, sendWithPolicy } from '../src/http/outbound.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

/** A receiver on loopback that counts what reaches it. */
function receiver() {
  const seen: { method?: string; url?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, body });
      if (req.url === '/redirect') return res.writeHead(302, { Location: 'http://127.0.0.1:1/' }).end();
      if (req.url === '/big') return res.end(Buffer.alloc(64 * 1024, 'x'));
      if (req.url === '/stall') return; // never answers
      if (req.url === '/trickle') return trickle(res, 10);
      if (req.url === '/falls-silent') return trickle(res, 1, true);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  return { server, seen };
}

/** A body sent in `chunks` pieces 100 ms apart (then never finished, when `hang`). */
function trickle(res: http.ServerResponse, chunks: number, hang = false) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  let sent = 0;
  const next = () => {
    res.write(`chunk ${sent}\n`);
    if (++sent < chunks) setTimeout(next, 100);
    else if (!hang) res.end();
  };
  next();
}

describe('outbound HTTP client (SSRF guard)', () => {
  const { server, seen } = receiver();
  let base = '';
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('classifies addresses: public unicast passes, loopback/private/link-local/mapped only when local is allowed', () => {
    const closed = { allowLocal: false };
    const open = { allowLocal: true };
    expect(addressAllowed('93.184.216.34', closed)).toBe(true);
    expect(addressAllowed('2606:2800:220:1:248:1893:25c8:1946', closed)).toBe(true);
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '::1', '::ffff:127.0.0.1', 'fd00::1', 'fe80::1']) {
      expect(addressAllowed(a, closed), a).toBe(false);
      expect(addressAllowed(a, open), a).toBe(true);
    }
    // Never a destination, whatever the setting.
    for (const a of ['0.0.0.0', '255.255.255.255', '224.0.0.1', '::']) expect(addressAllowed(a, open), a).toBe(false);
  });

  it('refuses loopback, private, link-local and IPv4-mapped targets before connecting', async () => {
    const targets = [
      base,
      `http://localhost:${port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
      `http://[::1]:${port}/`,
    ];
    for (const url of targets) {
      await expect(sendWithPolicy(url, {}, { allowLocal: false }), url).rejects.toMatchObject({ reason: 'blocked' });
    }
    expect(seen).toHaveLength(0);
  });

  it('delivers to a local receiver when local networks are allowed (positive control)', async () => {
    const before = seen.length;
    const res = await sendWithPolicy(
      `${base}/hook`,
      { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } },
      { allowLocal: true },
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ ok: true });
    expect(seen.slice(before)).toEqual([{ method: 'POST', url: '/hook', body: '{"a":1}' }]);
  });

  it('follows no redirect, refuses other schemes, caps size and time', async () => {
    const before = seen.length;
    const res = await sendWithPolicy(`${base}/redirect`, {}, { allowLocal: true });
    expect(res.status).toBe(302);
    expect(seen.length - before).toBe(1);
    await expect(sendWithPolicy('ftp://example.com/x', {}, { allowLocal: true })).rejects.toMatchObject({ reason: 'blocked' });
    await expect(sendWithPolicy('not a url', {}, { allowLocal: true })).rejects.toBeInstanceOf(OutboundError);
    await expect(sendWithPolicy(`${base}/big`, { maxResponseBytes: 1024 }, { allowLocal: true })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(sendWithPolicy(`${base}/stall`, { timeoutMs: 200 }, { allowLocal: true })).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('times a download by its silences: a body that keeps coming is saved, one that stops is not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-'));
    const saveTo = path.join(dir, 'body');
    // Ten chunks 100 ms apart: past a 500 ms whole-request timeout (the positive control), never 500 ms silent.
    await expect(sendWithPolicy(`${base}/trickle`, { timeoutMs: 500 }, { allowLocal: true })).rejects.toMatchObject({ reason: 'timeout' });
    const res = await sendWithPolicy(`${base}/trickle`, { timeoutMs: 500, saveTo }, { allowLocal: true });
    expect(res.status).toBe(200);
    expect(fs.readFileSync(saveTo, 'utf8').split('\n').filter(Boolean)).toHaveLength(10);
    await expect(sendWithPolicy(`${base}/falls-silent`, { timeoutMs: 500, saveTo: path.join(dir, 'silent') }, { allowLocal: true })).rejects.toMatchObject({
      reason: 'timeout',
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('under the administrator setting', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('is refused by default and delivered once an administrator allows local requests', async () => {
      await expect(sendOutbound(t.db, `${base}/setting`)).rejects.toMatchObject({ reason: 'blocked' });
      await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
      expect((await sendOutbound(t.db, `${base}/setting`)).status).toBe(200);
      expect(seen.at(-1)?.url).toBe('/setting');
    });
  });
});
