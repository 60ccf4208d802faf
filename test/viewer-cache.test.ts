// Token lookups are cached per process for a few seconds; a change to a token or a user reaches
// every process at once through PostgreSQL LISTEN/NOTIFY (a trigger announces it on commit). The
// cache lives 60 s here, so a change seen within the 2 s the tests allow the notification to
// travel can only have come from the invalidation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // Two processes of one installation: one database, one digest key.
  const env = { TOKEN_DIGEST_KEY: randomBytes(32).toString('hex'), AUTH_CACHE_MS: '60000' };
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
  return t.queryCounter.statements.filter((s) => s.includes('FROM personal_access_tokens t JOIN users')).length;
}

/** Asks again until `ok`, for up to 2 s: the notification arrives a moment after the commit. */
async function eventually<T>(ask: () => Promise<T>, ok: (answer: T) => boolean): Promise<T> {
  const until = Date.now() + 2000;
  for (;;) {
    const answer = await ask();
    if (ok(answer) || Date.now() > until) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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
    const other = await eventually(
      () => b.api('get', '/user', user.token),
      (res) => res.status !== 200,
    );
    expect(other.status).toBe(401);
    expect(other.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect(
      (
        await eventually(
          () => a.api('get', '/user', user.token),
          (res) => res.status !== 200,
        )
      ).status,
    ).toBe(401);
  });

  it('refuses a blocked user at once in every process', async () => {
    const user = await a.user('blocked-soon');
    for (let i = 0; i < 3; i++) await b.api('get', '/user', user.token).expect(200);
    await a.db.user.update({ where: { id: user.id }, data: { state: 'blocked' } });
    expect(
      (
        await eventually(
          () => b.api('get', '/user', user.token),
          (res) => res.status !== 200,
        )
      ).status,
    ).toBe(403);
  });

  it('sees a changed user at once in every process', async () => {
    const user = await a.user('renamed-soon');
    for (let i = 0; i < 3; i++) await b.api('get', '/user', user.token).expect(200);
    await a.db.user.update({ where: { id: user.id }, data: { name: 'Renamed' } });
    const renamed = await eventually(
      () => b.api('get', '/user', user.token).expect(200),
      (res) => res.body.name !== 'RENAMED-SOON',
    );
    expect(renamed.body.name).toBe('Renamed');
  });
});
