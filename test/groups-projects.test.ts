import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('groups', () => {
  it('creates nested groups, makes the creator Owner, and reads them by id and encoded path', async () => {
    const owner = await t.user('gowner');
    const top = (await t.api('post', '/groups', owner.token).send({ name: 'Top', path: 'top' }).expect(201)).body;
    expect(top).toMatchObject({ name: 'Top', path: 'top', full_path: 'top', visibility: 'private', parent_id: null, web_url: `${EXTERNAL_URL}/groups/top` });
    const sub = (await t.api('post', '/groups', owner.token).send({ name: 'Sub', path: 'sub', parent_id: top.id }).expect(201)).body;
    expect(sub).toMatchObject({ full_path: 'top/sub', full_name: 'Top / Sub', parent_id: top.id });
    expect((await t.api('get', '/groups/top%2Fsub', owner.token).expect(200)).body.id).toBe(sub.id);
    expect((await t.api('get', `/groups/${top.id}/subgroups`, owner.token).expect(200)).body.map((g: { id: number }) => g.id)).toEqual([sub.id]);
    const members = (await t.api('get', `/groups/${top.id}/members`, owner.token).expect(200)).body;
    expect(members).toEqual([expect.objectContaining({ username: 'gowner', access_level: 50 })]);
  });

  it('refuses a subgroup more visible than its parent and a taken path', async () => {
    const parent = (await t.api('post', '/groups').send({ name: 'Priv', path: 'priv' }).expect(201)).body;
    const res = await t.api('post', '/groups').send({ name: 'Pub', path: 'pub', parent_id: parent.id, visibility: 'public' }).expect(400);
    expect(res.body.message.visibility_level[0]).toMatch(/not allowed/);
    const taken = await t.api('post', '/groups').send({ name: 'Priv again', path: 'priv' }).expect(400);
    expect(taken.body).toEqual({ message: { path: ['has already been taken'] } });
  });

  it('hides private groups from non-members (404) and forbids subgroups to non-owners (403)', async () => {
    const outsider = await t.user('goutsider');
    await t.api('get', '/groups/priv', outsider.token).expect(404, { message: '404 Group Not Found' });
    const pub = (await t.api('post', '/groups').send({ name: 'Open', path: 'open', visibility: 'public' }).expect(201)).body;
    await t.api('get', '/groups/open', null).expect(200);
    await t.api('post', '/groups', outsider.token).send({ name: 'x', path: 'x', parent_id: pub.id }).expect(403);
  });

  it('deletes a group with its projects and their repositories', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Doomed', path: 'doomed' }).expect(201)).body;
    const p = (await t.api('post', '/projects').send({ name: 'Gone', namespace_id: g.id, initialize_with_readme: true }).expect(201)).body;
    await t.api('delete', `/groups/${g.id}`).expect(202, { message: '202 Accepted' });
    await t.api('get', `/projects/${p.id}`).expect(404);
    expect(() => execFileSync('git', ['-C', t.deps.git.pathFor(p.id), 'rev-parse', 'HEAD'], { stdio: 'pipe' })).toThrow();
  });

  it('has a GraphQL twin with the same data and errors', async () => {
    const res = await t.graphql('{ group(fullPath: "top/sub") { fullName parent { fullPath } } }');
    expect(res.body.data.group).toEqual({ fullName: 'Top / Sub', parent: { fullPath: 'top' } });
    const created = await t.graphql('mutation { groupCreate(input: { name: "Via GQL", path: "via-gql" }) { group { fullPath } errors } }');
    expect(created.body.data.groupCreate).toEqual({ group: { fullPath: 'via-gql' }, errors: [] });
    const dup = await t.graphql('mutation { groupCreate(input: { name: "Again", path: "via-gql" }) { group { fullPath } errors } }');
    expect(dup.body.data.groupCreate).toEqual({ group: null, errors: ['Path has already been taken'] });
    expect(dup.body.extensions.payloadErrors[0]).toMatchObject({ code: 'VALIDATION', status: 400 });
  });
});

describe('projects', () => {
  it('creates a project with a README commit in a real bare repository', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Repo', path: 'repo' }).expect(201)).body;
    const p = (await t.api('post', '/projects').send({ name: 'Web App', namespace_id: g.id, initialize_with_readme: true, description: 'hi' }).expect(201))
      .body;
    expect(p).toMatchObject({
      path: 'web-app',
      path_with_namespace: 'repo/web-app',
      name_with_namespace: 'Repo / Web App',
      default_branch: 'main',
      visibility: 'private',
    });
    expect(p.namespace).toMatchObject({ id: g.id, kind: 'group', full_path: 'repo' });
    const dir = t.deps.git.pathFor(p.id);
    expect(execFileSync('git', ['-C', dir, 'show', 'main:README.md']).toString()).toContain('# Web App');
    expect(execFileSync('git', ['-C', dir, 'log', '--format=%an %s', 'main']).toString().trim()).toBe('Administrator Initial commit');
    expect((await t.api('get', '/projects/repo%2Fweb-app').expect(200)).body.id).toBe(p.id);
  });

  it('reads a project with its namespace, and its names, in one statement per level it needs', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Flat', path: 'flat' }).expect(201)).body;
    const sub = (await t.api('post', '/groups').send({ name: 'Deep', path: 'deep', parent_id: g.id }).expect(201)).body;
    const top = (await t.api('post', '/projects').send({ name: 'Top', namespace_id: g.id }).expect(201)).body;
    const nested = (await t.api('post', '/projects').send({ name: 'Nested', namespace_id: sub.id }).expect(201)).body;
    await expectCounterSees(t, () => t.api('get', `/projects/${top.id}`).expect(200));
    // The token with its user (one statement), the project with its namespace (one statement): the
    // namespace's own name needs no second read.
    const flat = await countQueries(t, async () => expect((await t.api('get', `/projects/${top.id}`).expect(200)).body.name_with_namespace).toBe('Flat / Top'));
    expect(flat).toBe(2);
    // A subgroup's ancestors are one more.
    const deep = await countQueries(t, async () =>
      expect((await t.api('get', `/projects/${nested.id}`).expect(200)).body.name_with_namespace).toBe('Flat / Deep / Nested'),
    );
    expect(deep).toBe(flat + 1);
  });

  it("creates projects in the user's namespace with the user as Owner", async () => {
    const u = await t.user('solo');
    const p = (await t.api('post', '/projects', u.token).send({ path: 'mine' }).expect(201)).body;
    expect(p.path_with_namespace).toBe('solo/mine');
    expect((await t.api('get', `/projects/${p.id}/members`, u.token).expect(200)).body[0]).toMatchObject({ username: 'solo', access_level: 50 });
    await t.api('post', '/projects', u.token).send({}).expect(400, { error: 'name, path are missing, at least one parameter must be provided' });
    const dup = await t.api('post', '/projects', u.token).send({ path: 'mine' }).expect(400);
    expect(dup.body.message.path).toEqual(['has already been taken']);
  });

  it('applies the role and visibility matrix', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Matrix', path: 'matrix' }).expect(201)).body;
    const p = (await t.api('post', '/projects').send({ name: 'Secret', namespace_id: g.id }).expect(201)).body;
    const guest = await t.user('mguest');
    const dev = await t.user('mdev');
    const stranger = await t.user('mstranger');
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('post', `/groups/${g.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);

    await t.api('get', `/projects/${p.id}`, null).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `/projects/${p.id}`, stranger.token).expect(404);
    await t.api('get', `/projects/${p.id}`, guest.token).expect(200);
    await t.api('get', `/projects/${p.id}`, dev.token).expect(200); // inherited from the group
    await t.api('put', `/projects/${p.id}`, dev.token).send({ description: 'x' }).expect(403, { message: '403 Forbidden' });
    await t.api('put', `/projects/${p.id}`, stranger.token).send({ description: 'x' }).expect(404);
    await t.api('delete', `/projects/${p.id}`, dev.token).expect(403);

    const listed = (await t.api('get', '/projects', stranger.token).expect(200)).body.map((x: { id: number }) => x.id);
    expect(listed).not.toContain(p.id);
    expect((await t.api('get', '/projects?membership=true', guest.token).expect(200)).body.map((x: { id: number }) => x.id)).toEqual([p.id]);
    expect((await t.graphql(`{ project(id: ${p.id}) { name } }`, {}, stranger.token)).body.data.project).toBeNull();
  });

  it('updates and deletes as Maintainer/Owner', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Upd', initialize_with_readme: true }).expect(201)).body;
    const updated = (await t.api('put', `/projects/${p.id}`).send({ description: 'new', visibility: 'public' }).expect(200)).body;
    expect(updated).toMatchObject({ description: 'new', visibility: 'public' });
    await t.api('get', `/projects/${p.id}`, null).expect(200);
    await t.api('put', `/projects/${p.id}`).send({ default_branch: 'nope' }).expect(400);
    const empty = await t.api('put', `/projects/${p.id}`).send({}).expect(400);
    expect(empty.body.error).toMatch(/at least one parameter must be provided/);
    await t.api('delete', `/projects/${p.id}`).expect(202);
    await t.api('get', `/projects/${p.id}`).expect(404);
  });

  it('keeps topics, also sent as the legacy tag_list, on create and update', async () => {
    const p = (
      await t
        .api('post', '/projects')
        .send({ name: 'Topical', topics: ['ci', ' Go ', 'CI', ''] })
        .expect(201)
    ).body;
    expect(p).toMatchObject({ topics: ['ci', 'Go'], tag_list: ['ci', 'Go'] });
    expect((await t.api('put', `/projects/${p.id}`).send({ tag_list: 'rust,wasm' }).expect(200)).body.topics).toEqual(['rust', 'wasm']);
    // topics wins over tag_list; an empty value clears them; an update with topics only is an update.
    expect(
      (
        await t
          .api('put', `/projects/${p.id}`)
          .send({ topics: ['a'], tag_list: ['b'] })
          .expect(200)
      ).body.topics,
    ).toEqual(['a']);
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.topics).toEqual(['a']);
    expect((await t.api('put', `/projects/${p.id}`).type('form').send('topics=').expect(200)).body.topics).toEqual([]);
    const long = await t
      .api('put', `/projects/${p.id}`)
      .send({ topics: ['x'.repeat(256)] })
      .expect(400);
    expect(long.body).toEqual({ message: { topics: ['is too long (maximum is 255 characters)'] } });
    const gql = await t.graphql(`{ project(id: ${p.id}) { topics } }`);
    expect(gql.body.data.project.topics).toEqual([]);
  });

  it('has a GraphQL twin for create and read', async () => {
    const res = await t.graphql(
      'mutation { projectCreate(input: { initializeWithReadme: true, name: "Gql Proj" }) { project { fullPath defaultBranch webUrl } errors } }',
    );
    expect(res.body.data.projectCreate).toEqual({
      project: { fullPath: 'root/gql-proj', defaultBranch: 'main', webUrl: `${EXTERNAL_URL}/root/gql-proj` },
      errors: [],
    });
    const list = await t.graphql('{ projects(search: "gql") { totalCount nodes { fullPath namespace { fullPath } } } }');
    expect(list.body.data.projects).toEqual({ totalCount: 1, nodes: [{ fullPath: 'root/gql-proj', namespace: { fullPath: 'root' } }] });
  });
});

describe('users', () => {
  it('lets administrators create and update users, with GitLab conflicts', async () => {
    const res = await t.api('post', '/users').send({ username: 'carol', name: 'Carol', email: 'carol@example.com', password: 'longenough' }).expect(201);
    expect(res.body).toMatchObject({ username: 'carol', is_admin: false, web_url: `${EXTERNAL_URL}/carol` });
    const row = await t.db.user.findUniqueOrThrow({ where: { username: 'carol' } });
    expect(row.passwordDigest).toBeNull();
    await t
      .api('post', '/users')
      .send({ username: 'carol', name: 'C', email: 'c2@example.com', password: 'longenough' })
      .expect(409, { message: 'Username has already been taken' });
    await t
      .api('post', '/users')
      .send({ username: 'carol2', name: 'C', email: 'carol@example.com', password: 'longenough' })
      .expect(409, { message: 'Email has already been taken' });
    // E-mails are one address whatever their case; a user keeps its own.
    await t
      .api('post', '/users')
      .send({ username: 'carol3', name: 'C', email: 'Carol@Example.COM', password: 'longenough' })
      .expect(409, { message: 'Email has already been taken' });
    await t.api('put', `/users/${row.id}`).send({ email: 'CAROL@example.com' }).expect(200);
    await t.api('put', `/users/${row.id}`).send({ email: 'carol@example.com' }).expect(200);
    await t.api('post', '/users').send({ username: 'dave', name: 'D', email: 'd@example.com' }).expect(400);
    const put = await t.api('put', `/users/${row.id}`).send({ name: 'Carol C', admin: true }).expect(200);
    expect(put.body).toMatchObject({ name: 'Carol C', is_admin: true });
    const other = await t.user('plain');
    await t.api('post', '/users', other.token).send({ username: 'x', name: 'x', email: 'x@example.com', password: 'longenough' }).expect(403);
  });

  it('shows e-mail only to the user and administrators', async () => {
    const a = await t.user('ann');
    const b = await t.user('ben');
    expect((await t.api('get', `/users/${a.id}`, b.token).expect(200)).body.email).toBeUndefined();
    expect((await t.api('get', `/users/${a.id}`, a.token).expect(200)).body.email).toBe('ann@example.com');
    expect((await t.api('get', '/users?username=ann', b.token).expect(200)).body).toEqual([expect.objectContaining({ username: 'ann' })]);
    await t.api('get', '/users/999999').expect(404, { message: '404 User Not Found' });
    const gql = await t.graphql('{ user(username: "ann") { username email } }', {}, b.token);
    expect(gql.body.data.user).toEqual({ username: 'ann', email: null });
  });

  it('searches e-mails exactly, case aside, for administrators only', async () => {
    const erin = await t.user('erin');
    const found = async (search: string, token?: string) =>
      (await t.api('get', `/users?search=${encodeURIComponent(search)}`, token).expect(200)).body.map((u: { username: string }) => u.username);
    expect(await found('ERIN@example.com')).toEqual(['erin']);
    // A part of an address is no match (the username's `erin` aside), nor is a pattern.
    expect(await found('n@example.com')).toEqual([]);
    expect(await found('erin@example.%')).toEqual([]);
    // Others cannot enumerate addresses.
    expect(await found('erin@example.com', erin.token)).toEqual([]);
  });
});

describe('commits', () => {
  it('reads a commit by branch, SHA and HEAD, and hides code from guests of private projects', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Commits', initialize_with_readme: true }).expect(201)).body;
    const sha = execFileSync('git', ['-C', t.deps.git.pathFor(p.id), 'rev-parse', 'main'])
      .toString()
      .trim();
    const byBranch = (await t.api('get', `/projects/${p.id}/repository/commits/main`).expect(200)).body;
    expect(byBranch).toMatchObject({
      id: sha,
      short_id: sha.slice(0, 8),
      title: 'Initial commit',
      parent_ids: [],
      author_name: 'Administrator',
      author_email: 'admin@example.com',
    });
    expect((await t.api('get', `/projects/${p.id}/repository/commits/${sha}`).expect(200)).body.id).toBe(sha);
    expect((await t.api('get', `/projects/${p.id}/repository/commits/HEAD`).expect(200)).body.id).toBe(sha);
    await t.api('get', `/projects/${p.id}/repository/commits/nope`).expect(404, { message: '404 Commit Not Found' });
    await t.api('get', `/projects/${p.id}/repository/commits/--upload-pack=x`).expect(404);
    const guest = await t.user('codeguest');
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('get', `/projects/${p.id}/repository/commits/main`, guest.token).expect(403);
    const gql = await t.graphql(`{ project(id: ${p.id}) { repository { commit(ref: "main") { sha title } } } }`);
    expect(gql.body.data.project.repository.commit).toEqual({ sha, title: 'Initial commit' });
  });
});
