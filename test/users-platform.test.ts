import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// Issue 39, users: the administrator's state actions and their effect on credentials, deleting a
// user, memberships, status and avatars, over REST, GraphQL and @gitbeaker/rest.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const BLOCKED = { message: '403 Forbidden - Your account has been blocked.' };

describe('user states (POST /users/:id/block|unblock|ban|unban|deactivate|activate)', () => {
  it('blocks and unblocks: 201 true, state on the user, the tokens refused meanwhile', async () => {
    const u = await t.user('blockme');
    await t.api('get', '/user', u.token).expect(200);
    await t.api('post', `/users/${u.id}/block`).expect(201, 'true');
    expect((await t.api('get', `/users/${u.id}`).expect(200)).body.state).toBe('blocked');
    await t.api('get', '/user', u.token).expect(403, BLOCKED);
    // Already blocked: nothing to do, GitLab's `break` answers null.
    await t.api('post', `/users/${u.id}/block`).expect(201, 'null');
    expect((await t.api('get', '/users?blocked=true').expect(200)).body.map((x: { id: number }) => x.id)).toContain(u.id);
    await t.api('post', `/users/${u.id}/unblock`).expect(201, 'true');
    await t.api('get', '/user', u.token).expect(200);
    // Unblocking an active user changes nothing: `user.activate` answers false.
    await t.api('post', `/users/${u.id}/unblock`).expect(201, 'false');
  });

  it('bans and unbans with GitLab messages for the wrong state', async () => {
    const u = await t.user('banme');
    await t.api('post', `/users/${u.id}/unban`).expect(403, { message: 'You cannot unban active users.' });
    await t.api('post', `/users/${u.id}/ban`).expect(201, 'true');
    expect((await t.api('get', `/users/${u.id}`).expect(200)).body.state).toBe('banned');
    await t.api('get', '/user', u.token).expect(403, BLOCKED);
    await t.api('post', `/users/${u.id}/ban`).expect(403, { message: 'You cannot ban banned users.' });
    await t.api('post', `/users/${u.id}/activate`).expect(403, { message: '403 Forbidden - A blocked user must be unblocked to be activated' });
    await t.api('post', `/users/${u.id}/unban`).expect(201, 'true');
    await t.api('get', '/user', u.token).expect(200);
  });

  it('deactivates an idle user (their tokens answer 403 until activated), refuses a recently active one', async () => {
    const idle = await t.user('idle');
    await t.api('post', `/users/${idle.id}/deactivate`).expect(201, 'true');
    expect((await t.api('get', `/users/${idle.id}`).expect(200)).body.state).toBe('deactivated');
    await t.api('get', '/user', idle.token).expect(403, {
      message: `403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${EXTERNAL_URL}`,
    });
    await t.api('post', `/users/${idle.id}/deactivate`).expect(201, 'null');
    await t.api('post', `/users/${idle.id}/unblock`).expect(403, { message: '403 Forbidden - Deactivated users cannot be unblocked by the API' });
    await t.api('post', `/users/${idle.id}/activate`).expect(201, 'true');
    await t.api('get', '/user', idle.token).expect(200);
    // The request above used the token: the user was active today.
    await t.api('post', `/users/${idle.id}/deactivate`).expect(403, {
      message: '403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated',
    });
    await t.api('post', `/users/${idle.id}/activate`).expect(201, 'false');
  });

  it('refuses LDAP-blocked users and blocked users where GitLab does', async () => {
    const u = await t.user('ldapped');
    await t.db.user.update({ where: { id: u.id }, data: { state: 'ldap_blocked' } });
    await t.api('post', `/users/${u.id}/unblock`).expect(403, { message: '403 Forbidden - LDAP blocked users cannot be unblocked by the API' });
    await t.api('post', `/users/${u.id}/block`).expect(403, { message: '403 Forbidden - LDAP blocked users cannot be modified by the API' });
    await t.api('get', '/user', u.token).expect(403, BLOCKED);
    const b = await t.user('blockedfirst');
    await t.api('post', `/users/${b.id}/block`).expect(201);
    await t.api('post', `/users/${b.id}/deactivate`).expect(403, { message: '403 Forbidden - A blocked user cannot be deactivated by the API' });
  });

  it('is for administrators: anonymous 401, a user 403, an unknown user 404', async () => {
    const u = await t.user('notadmin');
    for (const action of ['block', 'unblock', 'ban', 'unban', 'deactivate', 'activate']) {
      await t.api('post', `/users/${u.id}/${action}`, null).expect(401);
      await t.api('post', `/users/${u.id}/${action}`, u.token).expect(403);
      await t.api('post', `/users/999999/${action}`).expect(404, { message: '404 User Not Found' });
    }
    await t.api('post', '/users/abc/block').expect(400, { error: 'user_id is invalid' });
  });

  it('has GraphQL twins answering the same outcome', async () => {
    const u = await t.user('gqlblock');
    const block = `mutation($id: UserID!) { userBlock(input: { id: $id }) { user { state } stateChanged errors } }`;
    const res = await t.graphql(block, { id: `gid://gitlab/User/${u.id}` });
    expect(res.body.data.userBlock).toEqual({ user: { state: 'blocked' }, stateChanged: true, errors: [] });
    const again = await t.graphql(block, { id: `gid://gitlab/User/${u.id}` });
    expect(again.body.data.userBlock).toEqual({ user: { state: 'blocked' }, stateChanged: null, errors: [] });
    const asUser = await t.graphql(block, { id: `gid://gitlab/User/${u.id}` }, (await t.user('gqlother')).token);
    expect(asUser.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('DELETE /users/:id', () => {
  it('deletes the user with their namespace and projects; contributions stay without an author', async () => {
    const u = await t.user('leaver');
    const project = (await t.api('post', '/projects', u.token).send({ name: 'mine', initialize_with_readme: true }).expect(201)).body;
    const group = (await t.api('post', '/groups').send({ name: 'Team', path: 'leaver-team' }).expect(201)).body;
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: u.id, access_level: 30 }).expect(201);
    const shared = (await t.api('post', '/projects').send({ name: 'shared', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
    await t.api('post', `/projects/${shared.id}/releases`, u.token).send({ tag_name: 'v1', ref: 'main', name: 'One' }).expect(201);

    await t.api('delete', `/users/${u.id}`, u.token).expect(403);
    await t.api('delete', `/users/${u.id}`).expect(204);
    await t.api('get', `/users/${u.id}`).expect(404, { message: '404 User Not Found' });
    await t.api('get', `/projects/${project.id}`).expect(404);
    await t.api('get', '/user', u.token).expect(401);
    const release = (await t.api('get', `/projects/${shared.id}/releases/v1`).expect(200)).body;
    expect(release.name).toBe('One');
    expect(release.author).toBeUndefined();
    await t.api('delete', `/users/${u.id}`).expect(404, { message: '404 User Not Found' });
  });

  it('refuses a sole group owner unless hard_delete, which deletes the group and the contributions', async () => {
    const u = await t.user('owner1');
    const group = (await t.api('post', '/groups', u.token).send({ name: 'Solo', path: 'solo-owned' }).expect(201)).body;
    const other = (await t.api('post', '/projects').send({ name: 'elsewhere', initialize_with_readme: true }).expect(201)).body;
    await t.api('post', `/projects/${other.id}/members`).send({ user_id: u.id, access_level: 40 }).expect(201);
    await t.api('post', `/projects/${other.id}/releases`, u.token).send({ tag_name: 'v2', ref: 'main' }).expect(201);
    await t.api('delete', `/users/${u.id}`).expect(409, { message: 'You must transfer ownership or delete groups before you can remove user' });
    await t.api('delete', `/users/${u.id}?hard_delete=true`).expect(204);
    await t.api('get', `/groups/${group.id}`).expect(404);
    await t.api('get', `/projects/${other.id}/releases/v2`).expect(404);
  });
});

describe('@gitbeaker/rest: user administration', () => {
  it('drives block, unblock, ban, unban, deactivate, activate and remove', async () => {
    const api = gitbeaker(t.base, t.root.token);
    const u = await t.user('beakered');
    expect(await api.Users.block(u.id)).toBe(true);
    expect((await api.Users.show(u.id)).state).toBe('blocked');
    expect(await api.Users.unblock(u.id)).toBe(true);
    expect(await api.Users.ban(u.id)).toBe(true);
    expect(await api.Users.unban(u.id)).toBe(true);
    expect(await api.Users.deactivate(u.id)).toBe(true);
    expect((await api.Users.show(u.id)).state).toBe('deactivated');
    expect(await api.Users.activate(u.id)).toBe(true);
    await api.Users.remove(u.id);
    await t.api('get', `/users/${u.id}`).expect(404);
  });
});

describe('namespaces (GET /namespaces, /namespaces/:id, /namespaces/:namespace/exists)', () => {
  it('lists the viewer personal namespace and groups; owned_only, search, top_level_only', async () => {
    const u = await t.user('nsuser');
    const owned = (await t.api('post', '/groups', u.token).send({ name: 'NS Owned', path: 'ns-owned' }).expect(201)).body;
    const sub = (await t.api('post', '/groups', u.token).send({ name: 'NS Sub', path: 'ns-sub', parent_id: owned.id }).expect(201)).body;
    const joined = (await t.api('post', '/groups').send({ name: 'NS Joined', path: 'ns-joined' }).expect(201)).body;
    await t.api('post', `/groups/${joined.id}/members`).send({ user_id: u.id, access_level: 30 }).expect(201);
    await t.api('post', '/groups').send({ name: 'NS Other', path: 'ns-other', visibility: 'public' }).expect(201);

    const list = (await t.api('get', '/namespaces', u.token).expect(200)).body;
    expect(list.map((n: { full_path: string }) => n.full_path)).toEqual(['nsuser', 'ns-owned', 'ns-owned/ns-sub', 'ns-joined']);
    expect(list[0]).toEqual({
      id: expect.any(Number),
      name: 'NSUSER',
      path: 'nsuser',
      kind: 'user',
      full_path: 'nsuser',
      parent_id: null,
      avatar_url: null,
      web_url: `${EXTERNAL_URL}/nsuser`,
    });
    expect(list[2]).toMatchObject({ kind: 'group', parent_id: owned.id, web_url: `${EXTERNAL_URL}/groups/ns-owned/ns-sub` });
    const ownedOnly = (await t.api('get', '/namespaces?owned_only=true', u.token).expect(200)).body;
    expect(ownedOnly.map((n: { id: number }) => n.id)).toEqual([list[0].id, owned.id, sub.id]);
    expect((await t.api('get', '/namespaces?search=joined', u.token).expect(200)).body.map((n: { id: number }) => n.id)).toEqual([joined.id]);
    expect((await t.api('get', '/namespaces?top_level_only=true', u.token).expect(200)).body).toHaveLength(3);
    // An administrator sees every namespace.
    const all = await t.api('get', '/namespaces?search=ns-&per_page=100').expect(200);
    expect(all.body.map((n: { path: string }) => n.path)).toContain('ns-other');
    expect(all.headers['x-total']).toBe('4');
    await t.api('get', '/namespaces', null).expect(401);
  });

  it('reads one by id or path for those who administer it, 404 otherwise', async () => {
    const u = await t.user('nsreader');
    const other = await t.user('nsother');
    const mine = (await t.api('get', '/namespaces/nsreader', u.token).expect(200)).body;
    expect(mine).toMatchObject({ kind: 'user', full_path: 'nsreader' });
    expect((await t.api('get', `/namespaces/${mine.id}`, u.token).expect(200)).body.id).toBe(mine.id);
    await t.api('get', '/namespaces/nsreader', other.token).expect(404, { message: '404 Namespace Not Found' });
    const g = (await t.api('post', '/groups').send({ name: 'NS Read', path: 'ns-read', visibility: 'public' }).expect(201)).body;
    await t.api('post', `/groups/${g.id}/members`).send({ user_id: other.id, access_level: 40 }).expect(201);
    await t.api('get', `/namespaces/${g.id}`, other.token).expect(404);
    expect((await t.api('get', '/namespaces/ns-read').expect(200)).body).toMatchObject({ id: g.id, kind: 'group' });
    await t.api('get', '/namespaces/999999').expect(404, { message: '404 Namespace Not Found' });
  });

  it('says whether a path is taken, with a free one to use instead', async () => {
    const u = await t.user('nsexists');
    expect((await t.api('get', '/namespaces/nsexists/exists', u.token).expect(200)).body).toEqual({ exists: true, suggests: ['nsexists1'] });
    expect((await t.api('get', '/namespaces/NSEXISTS/exists', u.token).expect(200)).body).toEqual({ exists: true, suggests: ['nsexists1'] });
    await t.user('nsexists1');
    expect((await t.api('get', '/namespaces/nsexists/exists', u.token).expect(200)).body).toEqual({ exists: true, suggests: ['nsexists2'] });
    expect((await t.api('get', '/namespaces/free-path/exists', u.token).expect(200)).body).toEqual({ exists: false, suggests: [] });
    const g = (await t.api('post', '/groups').send({ name: 'NS Parent', path: 'ns-parent' }).expect(201)).body;
    await t.api('post', '/groups').send({ name: 'child', path: 'child', parent_id: g.id }).expect(201);
    expect((await t.api('get', `/namespaces/child/exists?parent_id=${g.id}`, u.token).expect(200)).body).toEqual({ exists: true, suggests: ['child1'] });
    expect((await t.api('get', '/namespaces/child/exists', u.token).expect(200)).body.exists).toBe(false);
    await t.api('get', '/namespaces/x/exists?parent_id=abc', u.token).expect(400, { error: 'parent_id is invalid' });
    await t.api('get', '/namespaces/x/exists', null).expect(401);
  });

  it('finds the free path in one statement, however many numbered paths are taken (positive control)', async () => {
    const u = await t.user('nsmany');
    const exists = (path: string) => async () => (await t.api('get', `/namespaces/${path}/exists`, u.token).expect(200)).body;
    await expectCounterSees(t, exists('nsmany'));
    // The token, then the namespaces whose path starts with the one asked.
    expect(await countQueries(t, exists('nsmany'))).toBe(2);
    for (const n of [1, 2, 3, 5]) await t.user(`nsmany${n}`);
    expect(await exists('nsmany')()).toEqual({ exists: true, suggests: ['nsmany4'] });
    expect(await countQueries(t, exists('nsmany'))).toBe(2);
    expect(await exists('NSMany')()).toEqual({ exists: true, suggests: ['nsmany4'] });
    // Paths that only begin like it are no reason to answer taken.
    expect(await exists('nsman')()).toEqual({ exists: false, suggests: [] });
  });

  it('has GraphQL twins', async () => {
    const u = await t.user('nstwin');
    const rest = (await t.api('get', '/namespaces/nstwin', u.token).expect(200)).body;
    const gql = await t.graphql(
      '{ namespace(fullPath: "nstwin") { databaseId fullPath kind webUrl } namespaceExists(path: "nstwin") { exists suggests } }',
      {},
      u.token,
    );
    expect(gql.body.data).toEqual({
      namespace: { databaseId: rest.id, fullPath: rest.full_path, kind: rest.kind, webUrl: rest.web_url },
      namespaceExists: { exists: true, suggests: ['nstwin1'] },
    });
    const list = await t.graphql('{ namespaces { nodes { fullPath } } }', {}, u.token);
    expect(list.body.data.namespaces.nodes).toEqual([{ fullPath: 'nstwin' }]);
  });

  it('@gitbeaker/rest: Namespaces.all, show, exists', async () => {
    const u = await t.user('nsbeaker');
    const api = gitbeaker(t.base, u.token);
    expect((await api.Namespaces.all()).map((n) => n.full_path)).toEqual(['nsbeaker']);
    expect((await api.Namespaces.show('nsbeaker')).kind).toBe('user');
    expect(await api.Namespaces.exists('nsbeaker')).toEqual({ exists: true, suggests: ['nsbeaker1'] });
  });
});

describe('GET /users/:id/memberships and member lists (user_ids[], email for administrators)', () => {
  it('lists a user direct memberships with their type, for administrators', async () => {
    const u = await t.user('memberships');
    const g = (await t.api('post', '/groups').send({ name: 'MG', path: 'memberships-group' }).expect(201)).body;
    const p = (await t.api('post', '/projects').send({ name: 'Member Project' }).expect(201)).body;
    await t.api('post', `/groups/${g.id}/members`).send({ user_id: u.id, access_level: 30 }).expect(201);
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: u.id, access_level: 40 }).expect(201);
    const all = (await t.api('get', `/users/${u.id}/memberships`).expect(200)).body;
    expect(all).toEqual([
      { source_id: g.id, source_name: 'MG', source_type: 'Namespace', access_level: 30 },
      { source_id: p.id, source_name: 'Member Project', source_type: 'Project', access_level: 40 },
    ]);
    expect((await t.api('get', `/users/${u.id}/memberships?type=Project`).expect(200)).body).toEqual([all[1]]);
    expect((await t.api('get', `/users/${u.id}/memberships?type=Namespace`).expect(200)).body).toEqual([all[0]]);
    await t.api('get', `/users/${u.id}/memberships?type=Group`).expect(400, { error: 'type does not have a valid value' });
    await t.api('get', `/users/${u.id}/memberships`, u.token).expect(403);
    await t.api('get', `/users/${u.id}/memberships`, null).expect(401);
    await t.api('get', '/users/999999/memberships').expect(404, { message: '404 User Not Found' });
    const gql = await t.graphql(
      `query($u: UserID!) { userMemberships(userId: $u, type: Project) { nodes { sourceId sourceType accessLevel { integerValue } } } }`,
      {
        u: `gid://gitlab/User/${u.id}`,
      },
    );
    expect(gql.body.data.userMemberships.nodes).toEqual([{ sourceId: p.id, sourceType: 'Project', accessLevel: { integerValue: 40 } }]);
  });

  it('filters member lists by user_ids[] and shows email to administrators only', async () => {
    const a = await t.user('uid-a');
    const b = await t.user('uid-b');
    const g = (await t.api('post', '/groups').send({ name: 'UIDs', path: 'uids', visibility: 'public' }).expect(201)).body;
    for (const u of [a, b]) await t.api('post', `/groups/${g.id}/members`).send({ user_id: u.id, access_level: 30 }).expect(201);
    const one = (await t.api('get', `/groups/${g.id}/members?user_ids[]=${b.id}`).expect(200)).body;
    expect(one).toEqual([expect.objectContaining({ id: b.id, email: 'uid-b@example.com', access_level: 30 })]);
    expect((await t.api('get', `/groups/${g.id}/members/all?user_ids=${a.id},${b.id}`).expect(200)).body.map((m: { id: number }) => m.id)).toEqual([
      a.id,
      b.id,
    ]);
    const asOther = (await t.api('get', `/groups/${g.id}/members?user_ids[]=${b.id}`, a.token).expect(200)).body;
    expect(asOther[0]).not.toHaveProperty('email');
    expect(asOther[0]).toMatchObject({ id: b.id, username: 'uid-b' });
  });
});

describe('user status (GET /users/:id/status, GET/PUT /user/status)', () => {
  it('sets, reads (by id and username) and clears a status', async () => {
    const u = await t.user('statusful');
    const none = { emoji: null, availability: null, message: null, message_html: null, clear_status_at: null };
    expect((await t.api('get', `/users/${u.id}/status`, null).expect(200)).body).toEqual(none);
    const set = (await t.api('put', '/user/status', u.token).send({ message: 'Out **sick**', availability: 'busy' }).expect(200)).body;
    expect(set).toEqual({
      emoji: 'speech_balloon',
      availability: 'busy',
      message: 'Out **sick**',
      message_html: '<p>Out <strong>sick</strong></p>',
      clear_status_at: null,
    });
    expect((await t.api('get', `/users/${u.id}/status`).expect(200)).body).toEqual(set);
    expect((await t.api('get', '/users/statusful/status').expect(200)).body).toEqual(set);
    expect((await t.api('get', '/user/status', u.token).expect(200)).body).toEqual(set);
    const lapsing = (await t.api('put', '/user/status', u.token).send({ emoji: 'coffee', clear_status_after: '30_minutes' }).expect(200)).body;
    expect(lapsing).toMatchObject({ emoji: 'coffee', message: null, availability: 'not_set' });
    expect(new Date(lapsing.clear_status_at).getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    await t.db.userStatus.update({ where: { userId: u.id }, data: { clearStatusAt: new Date(Date.now() - 1000) } });
    expect((await t.api('get', `/users/${u.id}/status`).expect(200)).body).toEqual(none);
    await t.api('put', '/user/status', u.token).send({ emoji: 'coffee' }).expect(200);
    expect((await t.api('put', '/user/status', u.token).send({}).expect(200)).body).toEqual(none);
    expect(await t.db.userStatus.count({ where: { userId: u.id } })).toBe(0);
  });

  it('refuses bad input and anonymous writes', async () => {
    const u = await t.user('statusbad');
    await t.api('put', '/user/status', null).send({ emoji: 'coffee' }).expect(401);
    await t.api('put', '/user/status', u.token).send({ availability: 'away' }).expect(400, { error: 'availability does not have a valid value' });
    await t
      .api('put', '/user/status', u.token)
      .send({ clear_status_after: '2_hours' })
      .expect(400, { error: 'clear_status_after does not have a valid value' });
    await t
      .api('put', '/user/status', u.token)
      .send({ message: 'x'.repeat(101) })
      .expect(400, { message: { message: ['is too long (maximum is 100 characters)'] } });
    await t
      .api('put', '/user/status', u.token)
      .send({ emoji: 'Not An Emoji!' })
      .expect(400, { message: { emoji: ['is not a valid emoji name'] } });
    await t.api('get', '/users/no-such-user/status').expect(404, { message: '404 User Not Found' });
  });

  it('has GraphQL twins and drives @gitbeaker/rest', async () => {
    const u = await t.user('statustwin');
    const api = gitbeaker(t.base, u.token);
    const edited = await api.Users.editStatus({ message: 'hi', emoji: 'wave' });
    expect(edited).toMatchObject({ message: 'hi', emoji: 'wave', availability: 'not_set' });
    expect(await api.Users.showStatus({ iDOrUsername: u.id })).toMatchObject({ message: 'hi', emoji: 'wave' });
    expect(await api.Users.showStatus()).toMatchObject({ message: 'hi' });
    const gql = await t.graphql(`query($u: UserID) { userStatus(id: $u) { emoji message messageHtml availability } }`, { u: `gid://gitlab/User/${u.id}` });
    expect(gql.body.data.userStatus).toEqual({ emoji: 'wave', message: 'hi', messageHtml: '<p>hi</p>', availability: 'NOT_SET' });
    const set = await t.graphql(`mutation { userStatusSet(input: { availability: BUSY }) { status { availability emoji } errors } }`, {}, u.token);
    expect(set.body.data.userStatusSet).toEqual({ status: { availability: 'BUSY', emoji: 'speech_balloon' }, errors: [] });
  });
});

describe('the user entity', () => {
  it("answers the keys gitbeaker's UserSchema declares", async () => {
    const u = await t.user('entitykeys');
    const body = (await t.api('get', `/users/${u.id}`, u.token).expect(200)).body;
    for (const key of ['id', 'name', 'username', 'state', 'avatar_url', 'web_url', 'created_at', 'locked', 'bio', 'bot', 'public_email'])
      expect(body).toHaveProperty(key);
    expect(body).toMatchObject({
      location: '',
      skype: '',
      linkedin: '',
      twitter: '',
      discord: '',
      website_url: '',
      organization: '',
      job_title: '',
      pronouns: null,
      work_information: null,
      followers: 0,
      following: 0,
      is_followed: false,
      local_time: null,
    });
  });
});

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('avatars (multipart avatar on POST/PUT /users and PUT /groups/:id, served at avatar_url)', () => {
  const avatarPath = (url: string) => new URL(url).pathname;

  it('stores a user avatar and serves it at avatar_url, on the user and their namespace', async () => {
    const created = await request(t.base)
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', t.root.token)
      .field('username', 'pictured')
      .field('name', 'Pictured')
      .field('email', 'pictured@example.com')
      .field('password', 'long-enough-password')
      .attach('avatar', PNG, '../../etc/passwd.png')
      .expect(201);
    const url = created.body.avatar_url as string;
    expect(url).toBe(`${EXTERNAL_URL}/uploads/-/system/user/avatar/${created.body.id}/avatar.png`);
    const served = await request(t.base).get(avatarPath(url)).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
    expect((await t.api('get', '/namespaces/pictured').expect(200)).body.avatar_url).toBe(url);
    // Another name, another id, a path outside the folder: 404.
    await request(t.base).get(`/uploads/-/system/user/avatar/${created.body.id}/avatar.gif`).expect(404);
    await request(t.base).get(`/uploads/-/system/user/avatar/${t.root.id}/avatar.png`).expect(404);
    await request(t.base).get(`/uploads/-/system/user/avatar/${created.body.id}/..%2F..%2Fconfig`).expect(404);
    const gql = await t.graphql(`{ user(username: "pictured") { avatarUrl } }`);
    expect(gql.body.data.user.avatarUrl).toBe(url);
  });

  it('replaces it on PUT /users/:id (gitbeaker sends Users.edit as multipart), refuses non-images and big files', async () => {
    const u = await t.user('repictured');
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20)]);
    const api = gitbeaker(t.base, t.root.token);
    const edited = await api.Users.edit(u.id, { avatar: { content: new Blob([gif]), filename: 'me.gif' } });
    expect(edited.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/user/avatar/${u.id}/avatar.gif`);
    expect(
      (
        await request(t.base)
          .get(avatarPath(edited.avatar_url as string))
          .expect(200)
      ).headers['content-type'],
    ).toBe('image/gif');
    const refused = (file: Buffer, name: string) =>
      request(t.base).put(`/api/v4/users/${u.id}`).set('PRIVATE-TOKEN', t.root.token).field('bio', 'x').attach('avatar', file, name);
    expect((await refused(Buffer.from('<svg onload=alert(1)>'), 'x.png').expect(400)).body).toEqual({
      message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] },
    });
    expect((await refused(Buffer.concat([PNG, Buffer.alloc(201 * 1024)]), 'big.png').expect(400)).body).toEqual({
      message: { avatar: ['is too big (should be at most 200 KiB)'] },
    });
    await request(t.base)
      .put(`/api/v4/users/${u.id}`)
      .set('PRIVATE-TOKEN', t.root.token)
      .field('avatar', 'not a file')
      .expect(400, { error: 'avatar is invalid' });
    // The refused uploads left the stored avatar alone.
    expect((await t.api('get', `/users/${u.id}`).expect(200)).body.avatar_url).toBe(edited.avatar_url);
  });

  it('stores a group avatar (Owners), served to those who can see the group', async () => {
    const owner = await t.user('grouppic');
    const g = (await t.api('post', '/groups', owner.token).send({ name: 'Pic', path: 'pic-group' }).expect(201)).body;
    const put = (token: string) => request(t.base).put(`/api/v4/groups/${g.id}`).set('PRIVATE-TOKEN', token).attach('avatar', PNG, 'logo.png');
    await put((await t.user('notowner')).token).expect(404);
    const updated = (await put(owner.token).expect(200)).body;
    expect(updated.avatar_url).toBe(`${EXTERNAL_URL}/uploads/-/system/group/avatar/${g.id}/avatar.png`);
    await request(t.base).get(avatarPath(updated.avatar_url)).set('PRIVATE-TOKEN', owner.token).expect(200);
    // A private group's avatar is not for strangers.
    await request(t.base).get(avatarPath(updated.avatar_url)).expect(404);
    expect((await t.api('get', `/namespaces/${g.id}`, owner.token).expect(200)).body.avatar_url).toBe(updated.avatar_url);
    // gitbeaker 43.8 sends Groups.edit with an avatar as POST /groups/:id, a route GitLab does not
    // have either: the same 404 as GitLab's.
    const api = gitbeaker(t.base, owner.token);
    await expect(api.Groups.edit(g.id, { avatar: { content: new Blob([PNG]), filename: 'again.png' } })).rejects.toThrow('404');
  });
});
