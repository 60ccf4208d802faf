import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;
let alice: { id: number; token: string; username: string };
let bob: { id: number; token: string };

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const ENTITY_KEYS = ['id', 'name', 'revoked', 'created_at', 'description', 'scopes', 'user_id', 'last_used_at', 'active', 'expires_at'];

/** An administrator-created personal token for `userId`, through REST. */
async function adminToken(userId: number, body: Record<string, unknown> = {}) {
  return (
    await t
      .api('post', `/users/${userId}/personal_access_tokens`)
      .send({ name: 'made', scopes: ['api'], ...body })
      .expect(201)
  ).body;
}

async function impersonation(userId: number, body: Record<string, unknown> = {}) {
  return (
    await t
      .api('post', `/users/${userId}/impersonation_tokens`)
      .send({ name: 'imp', scopes: ['api'], expires_at: day(30), ...body })
      .expect(201)
  ).body;
}

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.user('alice');
  bob = await t.user('bob');
});
afterAll(async () => {
  await t.close();
});

describe('administrator-created personal access tokens', () => {
  it('answers the token once, with GitLab fields, a year of lifetime by default, and stores only a digest', async () => {
    const res = await t
      .api('post', `/users/${alice.id}/personal_access_tokens`)
      .send({ name: 'ci', description: 'for CI', scopes: ['api', 'read_repository'] })
      .expect(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual([...ENTITY_KEYS, 'token']);
    expect(res.body).toMatchObject({
      name: 'ci',
      description: 'for CI',
      revoked: false,
      active: true,
      scopes: ['api', 'read_repository'],
      user_id: alice.id,
      last_used_at: null,
      expires_at: day(365),
    });
    expect(res.body.token).toMatch(/^glpat-[A-Za-z0-9_-]{32}$/);
    const row = await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.stringify(row)).not.toContain(res.body.token);
    expect(JSON.stringify(row)).not.toContain(res.body.token.slice(6));
    await t
      .api('get', '/user', res.body.token)
      .expect(200)
      .expect((r) => expect(r.body.username).toBe('alice'));
    // Never shown again.
    const shown = (await t.api('get', `/personal_access_tokens/${res.body.id}`).expect(200)).body;
    expect(shown.token).toBeUndefined();
  });

  it('takes scopes as a comma list and validates them, the name and the lifetime', async () => {
    expect((await adminToken(alice.id, { scopes: 'read_api,read_user' })).scopes).toEqual(['read_api', 'read_user']);
    const url = `/users/${alice.id}/personal_access_tokens`;
    await t
      .api('post', url)
      .send({ scopes: ['api'] })
      .expect(400, { error: 'name is missing' });
    await t.api('post', url).send({ name: 'x' }).expect(400, { error: 'scopes is missing' });
    await t
      .api('post', url)
      .send({ name: 'x', scopes: ['api', 'everything'] })
      .expect(400, { error: 'scopes does not have a valid value' });
    await t
      .api('post', url)
      .send({ name: 'x', scopes: ['api'], expires_at: 'soon' })
      .expect(400, { error: 'expires_at is invalid' });
    await t
      .api('post', url)
      .send({ name: 'x', scopes: ['api'], expires_at: day(400) })
      .expect(422, { message: `Expiration date must be before ${day(365)}` });
    await t.api('post', url).send({ name: 'x', scopes: [] }).expect(422, { message: "Scopes can't be blank" });
    // sudo and admin_mode are for administrators' tokens only.
    await t
      .api('post', url)
      .send({ name: 'x', scopes: ['sudo'] })
      .expect(422, { message: 'Scopes can only contain available scopes' });
    expect((await adminToken(t.root.id, { scopes: ['sudo'] })).scopes).toEqual(['sudo']);
    // A past date is accepted: the token is created inactive.
    expect(await adminToken(alice.id, { expires_at: day(-3) })).toMatchObject({ active: false, revoked: false, expires_at: day(-3) });
  });

  it('is for administrators only, checked before the user is looked up', async () => {
    await t
      .api('post', `/users/${alice.id}/personal_access_tokens`, bob.token)
      .send({ name: 'x', scopes: ['api'] })
      .expect(403, { message: '403 Forbidden' });
    await t
      .api('post', `/users/999999/personal_access_tokens`, bob.token)
      .send({ name: 'x', scopes: ['api'] })
      .expect(403);
    await t
      .api('post', `/users/${bob.id}/personal_access_tokens`, bob.token)
      .send({ name: 'x', scopes: ['api'] })
      .expect(403);
    await t
      .api('post', `/users/999999/personal_access_tokens`)
      .send({ name: 'x', scopes: ['api'] })
      .expect(404, { message: '404 User Not Found' });
    await t
      .api('post', `/users/${alice.id}/personal_access_tokens`, null)
      .send({ name: 'x', scopes: ['api'] })
      .expect(401);
  });

  it('is driven by @gitbeaker/rest (PersonalAccessTokens.create, Users.createPersonalAccessToken)', async () => {
    const admin = gitbeaker(t.base, t.root.token);
    const created = await admin.PersonalAccessTokens.create(alice.id, 'beaker', ['read_api'], { expiresAt: day(10) });
    expect(created).toMatchObject({ name: 'beaker', scopes: ['read_api'], user_id: alice.id, expires_at: day(10), token: expect.stringMatching(/^glpat-/) });
    const viaUsers = await admin.Users.createPersonalAccessToken(alice.id, 'beaker2', ['api']);
    expect(viaUsers).toMatchObject({ name: 'beaker2', expires_at: day(365) });
    await expect(gitbeaker(t.base, bob.token).PersonalAccessTokens.create(alice.id, 'nope', ['api'])).rejects.toMatchObject({
      cause: { response: { status: 403 } },
    });
  });
});

describe('self-created personal access tokens (POST /user/personal_access_tokens)', () => {
  it('lets any signed-in user create a k8s_proxy token that expires the day after creation', async () => {
    const res = await t
      .api('post', '/user/personal_access_tokens', bob.token)
      .send({ name: 'agent', scopes: ['k8s_proxy'] })
      .expect(201);
    expect(res.body).toMatchObject({ name: 'agent', scopes: ['k8s_proxy'], user_id: bob.id, expires_at: day(1), active: true });
    // The k8s_proxy scope grants nothing on the API itself.
    expect((await t.api('get', '/user', res.body.token).expect(403)).body.error).toBe('insufficient_scope');
    expect(
      (
        await t
          .api('post', '/user/personal_access_tokens', bob.token)
          .send({ name: 'a', scopes: ['k8s_proxy'], expires_at: day(5) })
          .expect(201)
      ).body.expires_at,
    ).toBe(day(5));
  });

  it('refuses any other scope, and anonymous callers', async () => {
    await t
      .api('post', '/user/personal_access_tokens', bob.token)
      .send({ name: 'x', scopes: ['api'] })
      .expect(400, { error: 'scopes does not have a valid value' });
    await t
      .api('post', '/user/personal_access_tokens', bob.token)
      .send({ name: 'x', scopes: ['k8s_proxy', 'read_api'] })
      .expect(400, { error: 'scopes does not have a valid value' });
    await t
      .api('post', '/user/personal_access_tokens')
      .send({ name: 'x', scopes: ['api'] })
      .expect(400);
    await t
      .api('post', '/user/personal_access_tokens', null)
      .send({ name: 'x', scopes: ['k8s_proxy'] })
      .expect(401, { message: '401 Unauthorized' });
  });
});

describe('impersonation tokens', () => {
  it('are created, listed by state, read without the token and revoked (kept) by administrators', async () => {
    const carol = await t.user('carol');
    const active = await impersonation(carol.id, { name: 'active one', description: 'support' });
    expect(Object.keys(active)).toEqual([...ENTITY_KEYS, 'impersonation', 'token']);
    expect(active).toMatchObject({ impersonation: true, active: true, revoked: false, user_id: carol.id, expires_at: day(30), description: 'support' });
    const old = await impersonation(carol.id, { name: 'old', expires_at: '2016-12-28' });
    expect(old).toMatchObject({ active: false, revoked: false, impersonation: true, expires_at: '2016-12-28' });
    const url = `/users/${carol.id}/impersonation_tokens`;

    const all = await t.api('get', url).expect(200);
    expect(all.body.map((x: { id: number }) => x.id)).toEqual([active.id, old.id]);
    expect(all.headers['x-total']).toBe('2');
    expect(all.body[0].token).toBeUndefined();
    expect((await t.api('get', `${url}?state=active`).expect(200)).body.map((x: { id: number }) => x.id)).toEqual([active.id]);
    expect((await t.api('get', `${url}?state=inactive`).expect(200)).body.map((x: { id: number }) => x.id)).toEqual([old.id]);
    expect((await t.api('get', `${url}?per_page=1&page=2`).expect(200)).body.map((x: { id: number }) => x.id)).toEqual([old.id]);
    await t.api('get', `${url}?state=gone`).expect(400, { error: 'state does not have a valid value' });

    const one = (await t.api('get', `${url}/${active.id}`).expect(200)).body;
    expect(one).toEqual({ ...active, token: undefined, last_used_at: null });

    await t.api('delete', `${url}/${active.id}`).expect(204);
    expect((await t.api('get', `${url}/${active.id}`).expect(200)).body).toMatchObject({ active: false, revoked: true });
    await t.api('get', '/user', active.token).expect(401);
  });

  it('answer 404 for a normal personal token id or an unknown user, 400 for bad input, 403 for non-administrators', async () => {
    const normal = await adminToken(alice.id);
    const url = `/users/${alice.id}/impersonation_tokens`;
    await t.api('get', `${url}/${normal.id}`).expect(404, { message: '404 Impersonation Token Not Found' });
    await t.api('delete', `${url}/${normal.id}`).expect(404, { message: '404 Impersonation Token Not Found' });
    await t.api('get', `${url}/999999`).expect(404, { message: '404 Impersonation Token Not Found' });
    const bobs = await impersonation(bob.id);
    await t.api('get', `${url}/${bobs.id}`).expect(404, { message: '404 Impersonation Token Not Found' });
    await t.api('get', '/users/999999/impersonation_tokens').expect(404, { message: '404 User Not Found' });
    await t
      .api('post', url)
      .send({ scopes: ['api'], expires_at: day(1) })
      .expect(400, { error: 'name is missing' });
    // Without an expiry GitLab gives the token the maximum lifetime, like an administrator's personal token.
    expect(
      (
        await t
          .api('post', url)
          .send({ name: 'x', scopes: ['api'] })
          .expect(201)
      ).body,
    ).toMatchObject({ impersonation: true, expires_at: day(365) });
    await t
      .api('post', url)
      .send({ name: 'x', scopes: [], expires_at: day(1) })
      .expect(400, { message: { scopes: ["can't be blank"] } });
    for (const [method, path] of [
      ['get', url],
      ['get', `${url}/${bobs.id}`],
      ['post', url],
      ['delete', `${url}/${bobs.id}`],
      ['get', '/users/999999/impersonation_tokens'],
    ] as const) {
      await t
        .api(method, path, alice.token)
        .send({ name: 'x', scopes: ['api'], expires_at: day(1) })
        .expect(403, { message: '403 Forbidden' });
    }
    await t.api('get', url, null).expect(401);
  });

  it('act as their user on the API and GraphQL, and are hidden from that user', async () => {
    const dave = await t.user('dave');
    const imp = await impersonation(dave.id);
    expect((await t.api('get', '/user', imp.token).expect(200)).body.username).toBe('dave');
    expect((await t.graphql('{ currentUser { username } }', {}, imp.token)).body.data.currentUser.username).toBe('dave');
    // What dave does with it is done as dave.
    const group = (await t.api('post', '/groups', imp.token).send({ name: 'Dave', path: 'dave-group' }).expect(201)).body;
    expect((await t.api('get', `/groups/${group.id}/members`).expect(200)).body.map((m: { username: string }) => m.username)).toEqual(['dave']);

    const own = (await t.api('get', '/personal_access_tokens', dave.token).expect(200)).body;
    expect(own.map((x: { id: number }) => x.id)).not.toContain(imp.id);
    expect(own).toHaveLength(1);
    const gql = await t.graphql('{ personalAccessTokens { nodes { databaseId impersonation } } }', {}, dave.token);
    expect(gql.body.data.personalAccessTokens.nodes.map((x: { databaseId: number }) => x.databaseId)).not.toContain(imp.id);
    // Dave can neither read nor revoke it (gitlab#332410); the administrator sees it.
    await t.api('get', `/personal_access_tokens/${imp.id}`, dave.token).expect(401);
    await t.api('delete', `/personal_access_tokens/${imp.id}`, dave.token).expect(400, { message: '400 Bad request - Not permitted to revoke' });
    await t.api('post', `/personal_access_tokens/${imp.id}/rotate`, dave.token).expect(401);
    expect((await t.api('get', `/personal_access_tokens?user_id=${dave.id}`).expect(200)).body.map((x: { id: number }) => x.id)).toContain(imp.id);
    // The holder of the impersonation token may read and revoke it as "self".
    expect((await t.api('get', '/personal_access_tokens/self', imp.token).expect(200)).body.id).toBe(imp.id);
    await t.api('get', '/user', imp.token).expect(200);
  });

  it('are driven by @gitbeaker/rest (UserImpersonationTokens)', async () => {
    const erin = await t.user('erin');
    const admin = gitbeaker(t.base, t.root.token);
    const created = await admin.UserImpersonationTokens.create(erin.id, 'beaker', ['read_api'], { expiresAt: day(3) });
    expect(created).toMatchObject({ name: 'beaker', impersonation: true, scopes: ['read_api'], token: expect.stringMatching(/^glpat-/) });
    const shown = await admin.UserImpersonationTokens.show(erin.id, created.id);
    expect(shown.token).toBeUndefined();
    expect((await admin.UserImpersonationTokens.all(erin.id, { state: 'active' })).map((x) => x.id)).toEqual([created.id]);
    await admin.UserImpersonationTokens.revoke(erin.id, created.id);
    expect(await admin.UserImpersonationTokens.all(erin.id, { state: 'active' })).toEqual([]);
    await expect(admin.UserImpersonationTokens.show(erin.id, 999999)).rejects.toThrow('404 Impersonation Token Not Found');
  });
});

describe('the administrator / other user / self matrix', () => {
  type Case = { route: string; admin: number; other: number; self: number };
  const cases: Case[] = [
    { route: 'POST /users/:user/personal_access_tokens', admin: 201, other: 403, self: 403 },
    { route: 'POST /user/personal_access_tokens', admin: 201, other: 201, self: 201 },
    { route: 'GET /users/:user/impersonation_tokens', admin: 200, other: 403, self: 403 },
    { route: 'POST /users/:user/impersonation_tokens', admin: 201, other: 403, self: 403 },
    { route: 'GET /personal_access_tokens?user_id=:user', admin: 200, other: 401, self: 200 },
    { route: 'GET /personal_access_tokens/:token', admin: 200, other: 401, self: 200 },
    { route: 'POST /personal_access_tokens/:token/rotate', admin: 200, other: 401, self: 200 },
    { route: 'DELETE /personal_access_tokens/:token', admin: 204, other: 400, self: 204 },
  ];
  it.each(cases)('$route: administrator $admin, another user $other, oneself $self', async ({ route, ...expected }) => {
    const owner = await t.user();
    const outsider = await t.user();
    const callers = { admin: t.root.token, other: outsider.token, self: owner.token };
    for (const [who, status] of Object.entries(expected) as [keyof typeof callers, number][]) {
      const target = await adminToken(owner.id);
      const [method, path] = route.replace(':user', String(owner.id)).replace(':token', String(target.id)).split(' ');
      const body = path === '/user/personal_access_tokens' ? { name: 'k', scopes: ['k8s_proxy'] } : { name: 'm', scopes: ['read_api'], expires_at: day(5) };
      await t
        .api(method.toLowerCase() as 'get', path, callers[who])
        .send(body)
        .expect(status);
    }
  });
});

describe('token lifecycle on every surface', () => {
  it('expired yesterday → 401, expiring today still works, revoked → 401, missing scope → 403', async () => {
    const yesterday = await t.token(alice.id, ['api'], { expiresAt: new Date(`${day(-1)}T00:00:00Z`) });
    const today = await t.token(alice.id, ['api'], { expiresAt: new Date(`${day(0)}T00:00:00Z`) });
    const expired = await t.api('get', '/user', yesterday).expect(401);
    expect(expired.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    await t.api('get', '/user', today).expect(200);
    const gqlExpired = await t.graphql('{ currentUser { username } }', {}, yesterday);
    expect(gqlExpired.status).toBe(401);
    expect(gqlExpired.body.errors[0].message).toMatch(/expired/);
    expect((await t.graphql('{ currentUser { username } }', {}, today)).body.data.currentUser.username).toBe('alice');

    const revoked = await adminToken(alice.id);
    await t.api('delete', `/personal_access_tokens/${revoked.id}`).expect(204);
    const refused = await t.api('get', '/user', revoked.token).expect(401);
    expect(refused.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect((await t.graphql('{ currentUser { username } }', {}, revoked.token)).status).toBe(401);
    // Revoked before parameters are read: 401, not 400.
    await t.api('post', '/groups', revoked.token).send({}).expect(401);

    const readUser = await t.token(alice.id, ['read_user']);
    const scope = await t.api('get', '/projects', readUser).expect(403);
    expect(scope.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api',
    });
    expect((await t.graphql('mutation { personalAccessTokenRevoke(input: {}) { errors } }', {}, readUser)).body.errors[0].extensions.code).toBe(
      'INSUFFICIENT_SCOPE',
    );
  });

  it('checks scope first, then expiry, then revocation', async () => {
    const both = await t.token(alice.id, ['read_user'], { expiresAt: new Date(`${day(-1)}T00:00:00Z`) });
    await t.db.personalAccessToken.updateMany({
      where: { expiresAt: new Date(`${day(-1)}T00:00:00Z`), scopes: { equals: ['read_user'] } },
      data: { revoked: true },
    });
    // Wrong scope for /projects: the scope answers first.
    expect((await t.api('get', '/projects', both).expect(403)).body.error).toBe('insufficient_scope');
    // Right scope: expiry before revocation.
    expect((await t.api('get', '/user', both).expect(401)).body.error_description).toMatch(/expired/);
    const revokedOnly = await adminToken(alice.id, { scopes: ['read_user'] });
    await t.api('delete', `/personal_access_tokens/${revokedOnly.id}`).expect(204);
    expect((await t.api('get', '/projects', revokedOnly.token).expect(403)).body.error).toBe('insufficient_scope');
    expect((await t.api('get', '/user', revokedOnly.token).expect(401)).body.error_description).toMatch(/revoked/);
    // No scope named at all ({ __typename }) still refuses an unusable token.
    expect((await t.graphql('{ __typename }', {}, revokedOnly.token)).status).toBe(401);
  });

  it('updates last_used_at at most once a minute per token', async () => {
    const token = await adminToken(alice.id);
    await t.api('get', '/user', token.token).expect(200);
    const first = (await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    await Promise.all(Array.from({ length: 5 }, () => t.api('get', '/user', token.token).expect(200)));
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt).toEqual(first);
    // Positive control: a minute later it moves.
    const earlier = new Date(first!.getTime() - 61_000);
    await t.db.personalAccessToken.update({ where: { id: token.id }, data: { lastUsedAt: earlier } });
    await t.api('get', '/user', token.token).expect(200);
    const moved = (await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt!;
    expect(moved.getTime()).toBeGreaterThan(earlier.getTime() + 60_000);
    // Unusable tokens are not "used".
    await t.api('delete', `/personal_access_tokens/${token.id}`).expect(204);
    await t.db.personalAccessToken.update({ where: { id: token.id }, data: { lastUsedAt: earlier } });
    await t.api('get', '/user', token.token).expect(401);
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt).toEqual(earlier);
  });
});

describe('listing, reading and revoking personal access tokens', () => {
  it("shows users their own tokens, administrators everyone's, with GitLab filters and pagination", async () => {
    const frank = await t.user('frank');
    const second = await adminToken(frank.id, { name: 'second token', scopes: ['read_api'] });
    const gone = await adminToken(frank.id, { name: 'gone' });
    await t.api('delete', `/personal_access_tokens/${gone.id}`).expect(204);

    const mine = await t.api('get', '/personal_access_tokens', frank.token).expect(200);
    expect(mine.body.map((x: { name: string }) => x.name)).toEqual(['test', 'second token', 'gone']);
    expect(Object.keys(mine.body[0])).toEqual(ENTITY_KEYS);
    expect(mine.headers).toMatchObject({ 'x-total': '3', 'x-page': '1', 'x-per-page': '20' });
    const names = async (query: string, token = frank.token) =>
      (await t.api('get', `/personal_access_tokens?${query}`, token).expect(200)).body.map((x: { name: string }) => x.name);
    expect(await names('state=inactive')).toEqual(['gone']);
    expect(await names('state=active')).toEqual(['test', 'second token']);
    expect(await names('revoked=true')).toEqual(['gone']);
    expect(await names('search=SECOND')).toEqual(['second token']);
    expect(await names(`user_id=${frank.id}`)).toEqual(['test', 'second token', 'gone']);
    expect(await names('per_page=1&page=2')).toEqual(['second token']);
    expect(
      await names(
        `created_after=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&created_before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      ),
    ).toHaveLength(3);
    expect(await names(`expires_after=${day(300)}`)).toEqual(['second token', 'gone']);

    // Another user's id: 401 for non-administrators; administrators filter by it (404 if unknown).
    await t.api('get', `/personal_access_tokens?user_id=${alice.id}`, frank.token).expect(401, { message: '401 Unauthorized' });
    expect(await names(`user_id=${frank.id}`, t.root.token)).toEqual(['test', 'second token', 'gone']);
    await t.api('get', '/personal_access_tokens?user_id=999999').expect(404, { message: '404 Not Found' });
    const everyone = (await t.api('get', '/personal_access_tokens?per_page=100').expect(200)).body.map((x: { user_id: number }) => x.user_id);
    expect(new Set(everyone)).toEqual(new Set([t.root.id, alice.id, bob.id, frank.id, ...everyone]));
    expect(everyone).toContain(alice.id);
    await t.api('get', '/personal_access_tokens', null).expect(401);
    expect(second.scopes).toEqual(['read_api']);
  });

  it("reads one token: own or self 200, another user's 401 (administrators 200, 404 when unknown)", async () => {
    const token = await adminToken(bob.id, { name: 'bobs' });
    expect((await t.api('get', `/personal_access_tokens/${token.id}`, bob.token).expect(200)).body).toMatchObject({ id: token.id, name: 'bobs' });
    expect((await t.api('get', '/personal_access_tokens/self', token.token).expect(200)).body).toMatchObject({ id: token.id, name: 'bobs' });
    await t.api('get', `/personal_access_tokens/${token.id}`, alice.token).expect(401, { message: '401 Unauthorized' });
    await t.api('get', '/personal_access_tokens/999999', alice.token).expect(401);
    await t.api('get', `/personal_access_tokens/${token.id}`).expect(200);
    await t.api('get', '/personal_access_tokens/999999').expect(404, { message: '404 Not Found' });
    await t.api('get', '/personal_access_tokens/nope').expect(400, { error: 'id is invalid' });
    await t.api('get', '/personal_access_tokens/self', null).expect(401);
  });

  it("revokes own tokens and self; another user's is refused, an unknown one 404", async () => {
    const grace = await t.user('grace');
    const extra = await adminToken(grace.id);
    await t.api('delete', `/personal_access_tokens/${extra.id}`, alice.token).expect(400, { message: '400 Bad request - Not permitted to revoke' });
    await t.api('delete', '/personal_access_tokens/999999', alice.token).expect(404, { message: '404 Not found' });
    await t.api('delete', `/personal_access_tokens/${extra.id}`, grace.token).expect(204);
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: extra.id } })).revoked).toBe(true);
    await t.api('delete', '/personal_access_tokens/self', grace.token).expect(204);
    await t.api('get', '/user', grace.token).expect(401);
  });

  it('is driven by @gitbeaker/rest (PersonalAccessTokens.all/show/remove)', async () => {
    const heidi = await t.user('heidi');
    const client = gitbeaker(t.base, heidi.token);
    const listed = await client.PersonalAccessTokens.all();
    expect(listed.map((x) => x.user_id)).toEqual([heidi.id]);
    expect((await client.PersonalAccessTokens.show()).user_id).toBe(heidi.id);
    expect((await client.PersonalAccessTokens.show({ tokenId: listed[0].id })).id).toBe(listed[0].id);
    const extra = await adminToken(heidi.id);
    await client.PersonalAccessTokens.remove({ tokenId: extra.id });
    expect((await client.PersonalAccessTokens.all({ revoked: true })).map((x) => x.id)).toEqual([extra.id]);
    await client.PersonalAccessTokens.remove();
    await expect(client.PersonalAccessTokens.all()).rejects.toMatchObject({ cause: { response: { status: 401 } } });
  });
});

describe('speed', () => {
  it('reads the tokens of a list of users (User.personalAccessTokens) in the same statements for 2 and 20 users (positive control)', async () => {
    const users: { username: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const user = await t.user(`batch${i}`);
      await adminToken(user.id, { name: `first of ${i}` });
      await adminToken(user.id, { name: `second of ${i}` });
      const revoked = await adminToken(user.id, { name: `revoked of ${i}` });
      await t.api('delete', `/personal_access_tokens/${revoked.id}`).expect(204);
      users.push(user);
    }
    const query = (n: number) => async () => {
      const usernames = users.slice(0, n).map((u) => u.username);
      const res = await t.graphql(
        `query($u: [String!]) { users(usernames: $u, first: 50) { nodes { username
           all: personalAccessTokens(search: " of ") { count nodes { name } }
           active: personalAccessTokens(search: " of ", revoked: false, sort: CREATED_DESC, first: 1) { count nodes { name } } } } }`,
        { u: usernames },
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data.users.nodes as {
        username: string;
        all: { count: number; nodes: { name: string }[] };
        active: { count: number; nodes: { name: string }[] };
      }[];
    };
    const answered = await query(20)();
    expect(answered).toHaveLength(20);
    for (const node of answered) {
      const i = node.username.slice('batch'.length);
      expect(node.all).toEqual({ count: 3, nodes: [{ name: `first of ${i}` }, { name: `second of ${i}` }, { name: `revoked of ${i}` }] });
      expect(node.active).toEqual({ count: 2, nodes: [{ name: `second of ${i}` }] });
    }
    await expectCounterSees(t, query(2));
    const two = await countQueries(t, query(2));
    expect(await countQueries(t, query(20))).toBe(two);
  });

  it('lists tokens with a fixed number of SQL statements, whatever the page size', async () => {
    const many = await t.user('many');
    for (let i = 0; i < 12; i++) await adminToken(many.id, { name: `n${i}` });
    const measure = async (perPage: number) => {
      t.queryCounter.reset();
      const res = await t.api('get', `/personal_access_tokens?user_id=${many.id}&per_page=${perPage}`).expect(200);
      expect(res.body).toHaveLength(perPage);
      const gql = await t.graphql(`{ personalAccessTokens(userId: ${many.id}, first: ${perPage}) { nodes { name user { username } } } }`);
      expect(gql.body.data.personalAccessTokens.nodes).toHaveLength(perPage);
      return t.queryCounter.count;
    };
    const small = await measure(2);
    expect(await measure(12)).toBe(small);
    // Positive control: the counter sees one statement per request that needs one.
    t.queryCounter.reset();
    for (let i = 0; i < 12; i++) await t.api('get', `/personal_access_tokens/${(await adminToken(many.id)).id}`);
    expect(t.queryCounter.count).toBeGreaterThanOrEqual(12 + small);
  });
});

describe('rotation', () => {
  it('revokes the token and issues a successor that expires in a week; reusing the old token revokes the successors', async () => {
    const original = await adminToken(alice.id, { name: 'rotating', description: 'd', scopes: ['api', 'read_user'] });
    const rotated = (await t.api('post', `/personal_access_tokens/${original.id}/rotate`, original.token).expect(200)).body;
    expect(rotated).toMatchObject({ name: 'rotating', description: 'd', scopes: ['api', 'read_user'], user_id: alice.id, expires_at: day(7), active: true });
    expect(rotated.token).not.toBe(original.token);
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: original.id } })).revoked).toBe(true);
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: rotated.id } })).previousTokenId).toBe(original.id);
    await t.api('get', '/user', rotated.token).expect(200);

    const again = (
      await t
        .api('post', '/personal_access_tokens/self/rotate', rotated.token)
        .send({ expires_at: day(20) })
        .expect(200)
    ).body;
    expect(again.expires_at).toBe(day(20));
    await t.api('get', '/user', again.token).expect(200);
    // The first token comes back (leaked?): the whole family is revoked.
    await t.api('get', '/user', original.token).expect(401);
    await t.api('get', '/user', again.token).expect(401);
    expect((await t.db.personalAccessToken.findUniqueOrThrow({ where: { id: again.id } })).revoked).toBe(true);
  });

  it("refuses revoked tokens, too long lifetimes and other users' tokens; one successor under concurrency", async () => {
    const token = await adminToken(alice.id);
    await t
      .api('post', `/personal_access_tokens/${token.id}/rotate`)
      .send({ expires_at: day(500) })
      .expect(400, { message: `400 Bad request - Expiration date must be before ${day(365)}` });
    await t.api('post', `/personal_access_tokens/${token.id}/rotate`, bob.token).expect(401);
    await t.api('post', '/personal_access_tokens/999999/rotate').expect(404);
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.api('post', `/personal_access_tokens/${token.id}/rotate`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
    expect(answers.find((a) => a.status === 400)!.body).toEqual({ message: '400 Bad request - token already revoked' });
    expect(await t.db.personalAccessToken.count({ where: { previousTokenId: token.id } })).toBe(1);
  });

  it('lets a self_rotate token rotate itself only', async () => {
    const selfRotate = await adminToken(alice.id, { scopes: ['self_rotate'] });
    const other = await adminToken(alice.id);
    expect((await t.api('post', `/personal_access_tokens/${other.id}/rotate`, selfRotate.token).expect(403)).body.error).toBe('insufficient_scope');
    const next = (await t.api('post', `/personal_access_tokens/self/rotate`, selfRotate.token).expect(200)).body;
    expect(next.scopes).toEqual(['self_rotate']);
    const third = await gitbeaker(t.base, next.token).PersonalAccessTokens.rotate('self');
    expect(third.scopes).toEqual(['self_rotate']);
    // Scope first: /user is out of a self_rotate token's reach (403) even when revoked.
    await t.api('get', '/user', selfRotate.token).expect(403);
    // Its own record is within reach: revoked (401), and its successors are revoked with it.
    await t.api('get', '/personal_access_tokens/self', selfRotate.token).expect(401);
    await t.api('get', '/personal_access_tokens/self', third.token as string).expect(401);
  });
});

describe('GraphQL', () => {
  it('creates, revokes and rotates with GitLab payloads (token, errors, clientMutationId)', async () => {
    const create = await t.graphql(
      `mutation($input: PersonalAccessTokenCreateInput!) { personalAccessTokenCreate(input: $input) { token personalAccessToken { id name scopes expiresAt active user { username } } errors clientMutationId } }`,
      { input: { userId: alice.id, name: 'gql', scopes: ['read_api'], clientMutationId: 'abc' } },
    );
    const payload = create.body.data.personalAccessTokenCreate;
    expect(payload).toMatchObject({
      errors: [],
      clientMutationId: 'abc',
      personalAccessToken: { name: 'gql', scopes: ['read_api'], expiresAt: day(365), active: true, user: { username: 'alice' } },
    });
    expect(payload.token).toMatch(/^glpat-/);
    expect(payload.personalAccessToken.id).toMatch(/^gid:\/\/gitlab\/PersonalAccessToken\/\d+$/);

    const bad = await t.graphql('mutation { personalAccessTokenCreate(input: {userId: 1, name: "x", scopes: ["nope"]}) { token errors } }');
    expect(bad.body.data.personalAccessTokenCreate).toEqual({ token: null, errors: ['scopes does not have a valid value'] });
    const denied = await t.graphql(
      `mutation { personalAccessTokenCreate(input: {userId: ${alice.id}, name: "x", scopes: ["api"]}) { token errors } }`,
      {},
      bob.token,
    );
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const rotate = await t.graphql(
      `mutation { personalAccessTokenRotate(input: {id: "${payload.personalAccessToken.id}"}) { token personalAccessToken { expiresAt } errors } }`,
    );
    expect(rotate.body.data.personalAccessTokenRotate).toMatchObject({
      token: expect.stringMatching(/^glpat-/),
      personalAccessToken: { expiresAt: day(7) },
      errors: [],
    });
    const twice = await t.graphql(`mutation { personalAccessTokenRotate(input: {id: "${payload.personalAccessToken.id}"}) { token errors } }`);
    expect(twice.body.data.personalAccessTokenRotate).toEqual({ token: null, errors: ['token already revoked'] });

    const revoke = await t.graphql(
      `mutation { personalAccessTokenRevoke(input: {id: "gid://gitlab/PersonalAccessToken/${(await adminToken(alice.id)).id}"}) { personalAccessToken { revoked active } errors } }`,
    );
    expect(revoke.body.data.personalAccessTokenRevoke).toEqual({ personalAccessToken: { revoked: true, active: false }, errors: [] });
    const wrongType = await t.graphql('mutation { personalAccessTokenRevoke(input: {id: "gid://gitlab/Project/1"}) { errors } }');
    // GitLab's `PersonalAccessTokenID`: a global id of another class is an argument error.
    expect(wrongType.body.errors[0].message).toMatch(/does not represent an instance of PersonalAccessToken/);
  });

  it('creates and revokes impersonation tokens, administrators only', async () => {
    const res = await t.graphql(
      `mutation { impersonationTokenCreate(input: {userId: ${bob.id}, name: "imp", scopes: ["api"], expiresAt: "${day(2)}"}) { token impersonationToken { databaseId impersonation } errors } }`,
    );
    const created = res.body.data.impersonationTokenCreate;
    expect(created).toMatchObject({ token: expect.stringMatching(/^glpat-/), impersonationToken: { impersonation: true }, errors: [] });
    const denied = await t.graphql(`{ impersonationTokens(userId: ${bob.id}) { nodes { id } } }`, {}, bob.token);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const revoke = await t.graphql(
      `mutation { impersonationTokenRevoke(input: {userId: ${bob.id}, id: ${created.impersonationToken.databaseId}}) { impersonationToken { revoked } errors } }`,
    );
    expect(revoke.body.data.impersonationTokenRevoke).toEqual({ impersonationToken: { revoked: true }, errors: [] });
  });

  it('twins: the same viewer gets the same tokens over REST and GraphQL', async () => {
    const ivan = await t.user('ivan');
    await adminToken(ivan.id, { name: 'second', scopes: ['read_api'], expires_at: day(9) });
    await impersonation(ivan.id, { name: 'hidden' });
    const shape = (n: Record<string, unknown>) => ({
      id: n.databaseId,
      name: n.name,
      revoked: n.revoked,
      created_at: n.createdAt,
      description: n.description,
      scopes: n.scopes,
      user_id: n.userId,
      last_used_at: n.lastUsedAt,
      active: n.active,
      expires_at: n.expiresAt,
    });
    const fields = 'databaseId name revoked createdAt description scopes userId lastUsedAt active expiresAt';
    for (const viewer of [ivan.token, t.root.token]) {
      const rest = (await t.api('get', `/personal_access_tokens?user_id=${ivan.id}`, viewer).expect(200)).body;
      const gql = (await t.graphql(`{ personalAccessTokens(userId: ${ivan.id}) { nodes { ${fields} } } }`, {}, viewer)).body.data.personalAccessTokens.nodes;
      expect(gql.map(shape)).toEqual(rest);
    }
    const restImp = (await t.api('get', `/users/${ivan.id}/impersonation_tokens`).expect(200)).body;
    const gqlImp = (await t.graphql(`{ impersonationTokens(userId: ${ivan.id}) { nodes { ${fields} impersonation } } }`)).body.data.impersonationTokens.nodes;
    expect(gqlImp.map((n: Record<string, unknown>) => ({ ...shape(n), impersonation: n.impersonation }))).toEqual(restImp);
    const one = (await t.api('get', `/personal_access_tokens/${restImp[0].id}`).expect(200)).body;
    expect(
      shape((await t.graphql(`{ personalAccessToken(id: "gid://gitlab/PersonalAccessToken/${one.id}") { ${fields} } }`)).body.data.personalAccessToken),
    ).toEqual(one);
    const imp = (await t.api('get', `/users/${ivan.id}/impersonation_tokens/${restImp[0].id}`).expect(200)).body;
    const gqlOne = (await t.graphql(`{ impersonationToken(userId: ${ivan.id}, id: ${imp.id}) { ${fields} impersonation } }`)).body.data.impersonationToken;
    expect({ ...shape(gqlOne), impersonation: gqlOne.impersonation }).toEqual(imp);
    // The same refusal on both: another user's token is 401 over REST, UNAUTHORIZED over GraphQL.
    await t.api('get', `/personal_access_tokens/${one.id}`, bob.token).expect(401);
    expect((await t.graphql(`{ personalAccessToken(id: ${one.id}) { name } }`, {}, bob.token)).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const self = (await t.api('get', '/personal_access_tokens/self', ivan.token).expect(200)).body;
    expect(shape((await t.graphql(`{ currentPersonalAccessToken { ${fields} } }`, {}, ivan.token)).body.data.currentPersonalAccessToken)).toEqual(self);
  });
});

describe('secrecy', () => {
  it('never stores or logs a token in clear', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const app = buildApp({ ...t.deps, log });
    const rootToken = t.root.token;
    const api = (method: 'get' | 'post' | 'delete', path: string, token: string) => request(app)[method](`/api/v4${path}`).set('PRIVATE-TOKEN', token);

    const created = (
      await api('post', `/users/${alice.id}/personal_access_tokens`, rootToken)
        .send({ name: 'secret', scopes: ['api'] })
        .expect(201)
    ).body.token as string;
    const imp = (
      await api('post', `/users/${alice.id}/impersonation_tokens`, rootToken)
        .send({ name: 's', scopes: ['api'], expires_at: day(1) })
        .expect(201)
    ).body;
    const selfMade = (
      await api('post', '/user/personal_access_tokens', alice.token)
        .send({ name: 'k8s', scopes: ['k8s_proxy'] })
        .expect(201)
    ).body.token as string;
    const rotated = (await api('post', `/personal_access_tokens/${imp.id}/rotate`, rootToken).expect(200)).body.token as string;
    const gql = await request(app)
      .post('/api/graphql')
      .set('Authorization', `Bearer ${rootToken}`)
      .send({ query: `mutation { personalAccessTokenCreate(input: {userId: ${alice.id}, name: "g", scopes: ["api"]}) { token } }` });
    const viaGraphql = gql.body.data.personalAccessTokenCreate.token as string;
    // Use them every way a client can send one, including the query string and failures.
    await request(app).get(`/api/v4/user?private_token=${created}`).expect(200);
    await request(app).get('/api/v4/user').set('Authorization', `Bearer ${rotated}`).expect(200);
    await request(app).get(`/api/v4/projects?private_token=${imp.token}`).expect(401);
    await request(app).post('/api/graphql').set('PRIVATE-TOKEN', viaGraphql).send({ query: '{ currentUser { username } }' }).expect(200);
    await request(app).get(`/api/v4/personal_access_tokens?private_token=${selfMade}`).expect(403);

    const secrets = [created, imp.token, selfMade, rotated, viaGraphql, rootToken];
    expect(lines.length).toBeGreaterThan(8);
    const output = lines.join('');
    for (const secret of secrets) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(secret.slice(6));
    }
    // Positive control: the log does carry the requests.
    expect(output).toContain('/api/v4/personal_access_tokens');

    const table = JSON.stringify(await t.db.$queryRaw`SELECT * FROM personal_access_tokens`);
    for (const secret of secrets) {
      expect(table).not.toContain(secret);
      expect(table).not.toContain(secret.slice(6));
    }
    expect(table).toContain('"digest"');
  });
});
