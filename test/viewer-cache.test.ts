// Token lookups are cached per process for a few seconds; a change to a token or a user reaches
// every process at once through PostgreSQL LISTEN/NOTIFY (a trigger announces it on commit).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // Two processes of one installation: one database, one digest key.
  const env = { TOKEN_DIGEST_KEY: randomBytes(32).toString('hex'), AUTH_CACHE_MS: '5000' };
  a = await createTestApp({ env });
  b = await createTestApp({ env, databaseUrl: a.url });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

/** The statements of one request on an app that reads the token table. */
async function tokenLookups(t: TestApp, run: () => Promise<unknown>) {
  t.queryCounter.reset();
  t.queryCounter.record = true;
  await run();
  t.queryCounter.record = false;
  return t.queryCounter.statements.filter((s) => s.includes('FROM "public"."personal_access_tokens"')).length;
}

describe('token lookup cache', () => {
  it('reads a token once per process while nothing changes', async () => {
    const user = await a.user('cached');
    const get = () => b.api('get', '/user', user.token).expect(200);
    // Positive control: the first request looks the token up.
    expect(await tokenLookups(b, get)).toBe(1);
    await new Promise((r) => setTimeout(r, 50)); // last_used_at was touched: the next one reads it back
    expect(await tokenLookups(b, get)).toBe(1);
    expect(await tokenLookups(b, get)).toBe(0);
    expect(await tokenLookups(b, get)).toBe(0);
  });

  it('refuses a revoked token at once in every process', async () => {
    const user = await a.user('revoked-soon');
    for (const t of [a, b]) for (let i = 0; i < 3; i++) await t.api('get', '/user', user.token).expect(200);
    expect(await tokenLookups(b, () => b.api('get', '/user', user.token).expect(200))).toBe(0);
    await a.api('delete', '/personal_access_tokens/self', user.token).expect(204);
    const other = await b.api('get', '/user', user.token);
    expect(other.status).toBe(401);
    expect(other.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect((await a.api('get', '/user', user.token)).status).toBe(401);
  });

  it('refuses a blocked user at once in every process', async () => {
    const user = await a.user('blocked-soon');
    for (let i = 0; i < 3; i++) await b.api('get', '/user', user.token).expect(200);
    await a.db.user.update({ where: { id: user.id }, data: { state: 'blocked' } });
    expect((await b.api('get', '/user', user.token)).status).toBe(403);
  });

  it('sees a changed user at once in every process', async () => {
    const user = await a.user('renamed-soon');
    for (let i = 0; i < 3; i++) await b.api('get', '/user', user.token).expect(200);
    await a.db.user.update({ where: { id: user.id }, data: { name: 'Renamed' } });
    expect((await b.api('get', '/user', user.token).expect(200)).body.name).toBe('Renamed');
  });
});
