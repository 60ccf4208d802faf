// The project platform GitLab clients expect (issue 39): forks, transfer, stars, archive, the
// project's groups, users, languages and storage, GitLab's full list of project settings, the keys
// of a project answer, merged slashes, the job queue's default queue, and the fork experiment.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;

type User = Awaited<ReturnType<TestApp['user']>>;
const users = {} as Record<'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'stranger', User>;
const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
let group: { id: number; full_path: string };
let sub: { id: number; full_path: string };

beforeAll(async () => {
  t = await createTestApp();
  for (const name of ['guest', 'reporter', 'developer', 'maintainer', 'owner', 'stranger'] as const) users[name] = await t.user(`pp-${name}`);
  group = (await t.api('post', '/groups').send({ name: 'Platform', path: 'platform' }).expect(201)).body;
  sub = (await t.api('post', '/groups').send({ name: 'Core', path: 'core', parent_id: group.id }).expect(201)).body;
});
afterAll(() => t.close());

/** A private project in the subgroup with a README, and a member at each level. */
async function projectWithMembers(name: string) {
  const project = (await t.api('post', '/projects').send({ name, namespace_id: sub.id, initialize_with_readme: true }).expect(201)).body;
  for (const [role, level] of Object.entries(LEVELS)) {
    await t
      .api('post', `/projects/${project.id}/members`)
      .send({ user_id: users[role as keyof typeof LEVELS].id, access_level: level })
      .expect(201);
  }
  return project as { id: number; path_with_namespace: string; web_url: string };
}

const commitFile = (projectId: number, file: string, content: string, token?: string) =>
  t.api('post', `/projects/${projectId}/repository/files/${encodeURIComponent(file)}`, token).send({ branch: 'main', content, commit_message: `Add ${file}` });

describe('project answers', () => {
  it("carry GitLab's keys: settings, _links, permissions, owner, empty_repo, readme_url, counts", async () => {
    const p = await projectWithMembers('Keys');
    const body = (await t.api('get', `/projects/${p.id}`, users.developer.token).expect(200)).body;
    expect(body).toMatchObject({
      id: p.id,
      empty_repo: false,
      readme_url: `${EXTERNAL_URL}/platform/core/keys/-/blob/main/README.md`,
      open_issues_count: 0,
      star_count: 0,
      forks_count: 0,
      issues_enabled: true,
      issues_access_level: 'enabled',
      snippets_enabled: true,
      jobs_enabled: true,
      lfs_enabled: true,
      request_access_enabled: true,
      security_and_compliance_access_level: 'private',
      merge_method: 'merge',
      squash_option: 'default_off',
      build_timeout: 3600,
      emails_disabled: false,
      emails_enabled: true,
      ci_config_path: null,
      import_status: 'none',
      shared_with_groups: [],
      _links: {
        self: `${EXTERNAL_URL}/api/v4/projects/${p.id}`,
        repo_branches: `${EXTERNAL_URL}/api/v4/projects/${p.id}/repository/branches`,
        members: `${EXTERNAL_URL}/api/v4/projects/${p.id}/members`,
      },
      permissions: { project_access: { access_level: 30, notification_level: 3 }, group_access: null },
    });
    // A group's project has no owner and is no fork: GitLab leaves both keys out.
    expect(body).not.toHaveProperty('owner');
    expect(body).not.toHaveProperty('forked_from_project');
    // A member of a group above: group_access only (project_access is the project's own membership).
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: users.stranger.id, access_level: 20 }).expect(201);
    expect((await t.api('get', `/projects/${p.id}`, users.stranger.token).expect(200)).body.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 20, notification_level: 3 },
    });
    await t.api('delete', `/groups/${group.id}/members/${users.stranger.id}`).expect(204);
    // The administrator created the group (its Owner), and is no member of the project.
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 50, notification_level: 3 },
    });
    expect((await t.api('get', `/projects/${p.id}`, null).expect(404)).body).toEqual({ message: '404 Project Not Found' });
    // A guest may not read code: no readme_url.
    expect((await t.api('get', `/projects/${p.id}`, users.guest.token).expect(200)).body.readme_url).toBeNull();

    const mine = (await t.api('post', '/projects', users.owner.token).send({ path: 'mine' }).expect(201)).body;
    expect(mine).toMatchObject({ empty_repo: true, readme_url: null, owner: { id: users.owner.id, username: 'pp-owner' } });
  });

  it('read their keys in the same statements, whatever the page size (positive control)', async () => {
    const viewer = await t.user('pp-lister');
    for (let i = 0; i < 4; i++) {
      const p = (
        await t
          .api('post', '/projects')
          .send({ name: `Listed ${i}`, namespace_id: group.id })
          .expect(201)
      ).body;
      await t.api('post', `/projects/${p.id}/members`).send({ user_id: viewer.id, access_level: 30 }).expect(201);
    }
    const list = (perPage: number) => async () => {
      const body = (await t.api('get', `/projects?membership=true&per_page=${perPage}`, viewer.token).expect(200)).body;
      expect(body).toHaveLength(perPage);
      expect(body[0]).toMatchObject({ permissions: { project_access: { access_level: 30 } }, lfs_enabled: true, _links: expect.any(Object) });
    };
    await expectCounterSees(t, list(1));
    // The token, the page (each project with the viewer's levels), the count: permissions need no statement of their own.
    expect(await countQueries(t, list(1))).toBe(3);
    expect(await countQueries(t, list(4))).toBe(3);
    // One project as a member: the token, the project with both levels; the group's level is read with it.
    const one = (await t.api('get', '/projects?membership=true&per_page=1', viewer.token).expect(200)).body[0];
    expect(await countQueries(t, () => t.api('get', `/projects/${one.id}`, viewer.token).expect(200))).toBe(2);
  });
});

describe('PUT /projects/:id with GitLab settings', () => {
  it('takes one setting alone (python-gitlab save()), keeps the others, and answers them', async () => {
    const p = await projectWithMembers('Settings');
    const saved = (await t.api('put', `/projects/${p.id}`, users.maintainer.token).send({ snippets_enabled: false }).expect(200)).body;
    expect(saved).toMatchObject({ snippets_enabled: false, snippets_access_level: 'disabled', issues_enabled: true });
    const more = await t
      .api('put', `/projects/${p.id}`, users.maintainer.token)
      .send({
        lfs_enabled: false,
        request_access_enabled: false,
        merge_method: 'ff',
        issues_access_level: 'private',
        build_timeout: 7200,
        ci_config_path: 'ci/main.yml',
        emails_disabled: true,
      })
      .expect(200);
    expect(more.body).toMatchObject({
      lfs_enabled: false,
      request_access_enabled: false,
      merge_method: 'ff',
      issues_access_level: 'private',
      issues_enabled: true,
      build_timeout: 7200,
      ci_config_path: 'ci/main.yml',
      emails_enabled: false,
      emails_disabled: true,
      snippets_enabled: false,
    });
    // Kept on the row: a later read, and GraphQL, see them.
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body).toMatchObject({ lfs_enabled: false, snippets_access_level: 'disabled' });
    const gql = await t.graphql('query($id: Int) { project(id: $id) { apiSettings } }', { id: p.id });
    expect(gql.body.data.project.apiSettings).toMatchObject({ lfs_enabled: false, snippets_enabled: false, merge_method: 'ff', build_timeout: 7200 });
    // And GraphQL writes them.
    const set = await t.graphql(
      'mutation($id: Int) { projectUpdate(input: { projectId: $id, apiSettings: { wikiEnabled: false } }) { project { apiSettings } errors } }',
      { id: p.id },
    );
    expect(set.body.data.projectUpdate).toMatchObject({ project: { apiSettings: { wiki_access_level: 'disabled' } }, errors: [] });
  });

  it("refuses bad values with Grape's and GitLab's messages, and developers", async () => {
    const p = await projectWithMembers('Strict');
    await t.api('put', `/projects/${p.id}`).send({ merge_method: 'squash' }).expect(400, { error: 'merge_method does not have a valid value' });
    await t.api('put', `/projects/${p.id}`).send({ lfs_enabled: 'maybe' }).expect(400, { error: 'lfs_enabled is invalid' });
    await t
      .api('put', `/projects/${p.id}`)
      .send({ build_timeout: 10 })
      .expect(400, { message: { build_timeout: ['must be greater than or equal to 600'] } });
    const none = await t.api('put', `/projects/${p.id}`).send({}).expect(400);
    expect(none.body.error).toMatch(/are missing, at least one parameter must be provided$/);
    await t.api('put', `/projects/${p.id}`, users.developer.token).send({ snippets_enabled: false }).expect(403, { message: '403 Forbidden' });
    await t.api('put', `/projects/${p.id}`, users.stranger.token).send({ snippets_enabled: false }).expect(404, { message: '404 Project Not Found' });
  });
});

describe('avatars', () => {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]);

  it('stores a multipart avatar path-safe under DATA_DIR and serves it at avatar_url to who sees the project', async () => {
    const p = await projectWithMembers('Pictured');
    const put = await t.api('put', `/projects/${p.id}`, users.maintainer.token).attach('avatar', png, '../../my logo.png').expect(200);
    const url = `${EXTERNAL_URL}/uploads/-/system/project/avatar/${p.id}/my_logo.png`;
    expect(put.body.avatar_url).toBe(url);
    expect(fs.readFileSync(path.join(t.config.dataDir, 'uploads', 'project', 'avatar', String(p.id), 'my_logo.png'))).toEqual(png);
    const served = await request(t.base).get(new URL(url).pathname).set('PRIVATE-TOKEN', users.guest.token).buffer(true).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.from(served.body)).toEqual(png);
    await request(t.base).get(new URL(url).pathname).set('PRIVATE-TOKEN', users.stranger.token).expect(404);
    await request(t.base).get(`/uploads/-/system/project/avatar/${p.id}/other.png`).set('PRIVATE-TOKEN', users.guest.token).expect(404);
    // GraphQL answers the same address; a new avatar replaces the old file.
    expect((await t.graphql('query($id: Int) { project(id: $id) { avatarUrl } }', { id: p.id })).body.data.project.avatarUrl).toBe(url);
    await t.api('put', `/projects/${p.id}`).attach('avatar', png, 'second.gif').expect(200);
    expect(fs.readdirSync(path.join(t.config.dataDir, 'uploads', 'project', 'avatar', String(p.id)))).toEqual(['second.gif']);
  });

  it("refuses GitLab's too big and unsupported avatars, and developers", async () => {
    const p = await projectWithMembers('Unpictured');
    await t
      .api('put', `/projects/${p.id}`)
      .attach('avatar', Buffer.alloc(200 * 1024 + 1), 'big.png')
      .expect(400, { message: { avatar: ['is too big (should be at most 200 KiB)'] } });
    const svg = await t.api('put', `/projects/${p.id}`).attach('avatar', Buffer.from('<svg/>'), 'logo.svg').expect(400);
    expect(svg.body.message.avatar[0]).toMatch(/^file format is not supported/);
    await t.api('put', `/projects/${p.id}`).field('avatar', 'not a file').expect(400, { error: 'avatar is invalid' });
    await t.api('put', `/projects/${p.id}`, users.developer.token).attach('avatar', png, 'logo.png').expect(403);
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.avatar_url).toBeNull();
  });
});

describe('stars', () => {
  it('star and unstar: 201 with star_count, 304 when nothing changes', async () => {
    const p = await projectWithMembers('Starry');
    const starred = await t.api('post', `/projects/${p.id}/star`, users.guest.token).expect(201);
    expect(starred.body).toMatchObject({ id: p.id, star_count: 1 });
    await t.api('post', `/projects/${p.id}/star`, users.guest.token).expect(304);
    expect((await t.api('post', `/projects/${p.id}/star`, users.reporter.token).expect(201)).body.star_count).toBe(2);
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.star_count).toBe(2);
    expect((await t.api('post', `/projects/${p.id}/unstar`, users.guest.token).expect(201)).body.star_count).toBe(1);
    await t.api('post', `/projects/${p.id}/unstar`, users.guest.token).expect(304);
    await t.api('post', `/projects/${p.id}/star`, null).expect(401);
    await t.api('post', `/projects/${p.id}/star`, users.stranger.token).expect(404, { message: '404 Project Not Found' });
    // A starring user's deletion takes the star with it.
    const passer = await t.user('pp-passer');
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: passer.id, access_level: 10 }).expect(201);
    expect((await t.api('post', `/projects/${p.id}/star`, passer.token).expect(201)).body.star_count).toBe(2);
    await t.db.user.delete({ where: { id: passer.id } });
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.star_count).toBe(1);
  });
});

describe('archive', () => {
  it('makes the content read-only for everyone until unarchived (Maintainers)', async () => {
    const p = await projectWithMembers('Frozen');
    const base = `/projects/${p.id}`;
    await t.api('post', `${base}/archive`, users.developer.token).expect(403, { message: '403 Forbidden' });
    await t.api('post', `${base}/archive`, users.guest.token).expect(403);
    await t.api('post', `${base}/archive`, users.stranger.token).expect(404);
    expect((await t.api('post', `${base}/archive`, users.maintainer.token).expect(201)).body.archived).toBe(true);
    // Idempotent, as GitLab's.
    expect((await t.api('post', `${base}/archive`).expect(201)).body.archived).toBe(true);

    // Writes refused, administrators included; reads still work.
    for (const token of [users.maintainer.token, t.root.token]) {
      await commitFile(p.id, 'new.txt', 'x', token).expect(403);
      await t.api('post', `${base}/repository/branches`, token).send({ branch: 'b', ref: 'main' }).expect(403, { message: '403 Forbidden' });
      await t.api('post', `${base}/repository/tags`, token).send({ tag_name: 'v1', ref: 'main' }).expect(403, { message: '403 Forbidden' });
      await t.api('post', `${base}/releases`, token).send({ tag_name: 'v1', ref: 'main' }).expect(403, { message: '403 Forbidden' });
      await t.api('post', `${base}/labels`, token).send({ name: 'l', color: '#ff0000' }).expect(403, { message: '403 Forbidden' });
      await t.api('post', `${base}/milestones`, token).send({ title: 'm' }).expect(403, { message: '403 Forbidden' });
    }
    await t.api('get', `${base}/repository/files/README.md?ref=main`, users.reporter.token).expect(200);
    const gql = await t.graphql('query($id: Int) { project(id: $id) { archived repository { branch(name: "main") { name } } } }', { id: p.id });
    expect(gql.body.data.project).toEqual({ archived: true, repository: { branch: { name: 'main' } } });

    expect((await t.api('post', `${base}/unarchive`, users.maintainer.token).expect(201)).body.archived).toBe(false);
    await commitFile(p.id, 'new.txt', 'x', users.maintainer.token).expect(201);
    await t.api('post', `${base}/repository/tags`, users.developer.token).send({ tag_name: 'v1', ref: 'main' }).expect(201);
  });
});

describe('forks', () => {
  it('copies the repository into a namespace, records the source and counts it', async () => {
    const p = await projectWithMembers('Origin');
    await commitFile(p.id, 'lib/app.rb', 'puts 1\n').expect(201);
    await t.api('post', `/projects/${p.id}/repository/branches`).send({ branch: 'feature', ref: 'main' }).expect(201);
    await t.api('post', `/projects/${p.id}/repository/tags`).send({ tag_name: 'v1', ref: 'main' }).expect(201);

    const fork = (await t.api('post', `/projects/${p.id}/fork`, users.reporter.token).expect(201)).body;
    expect(fork).toMatchObject({
      name: 'Origin',
      path_with_namespace: 'pp-reporter/origin',
      visibility: 'private',
      empty_repo: false,
      owner: { username: 'pp-reporter' },
      forked_from_project: { id: p.id, path_with_namespace: 'platform/core/origin' },
    });
    // The repository is a copy: the fork's files, branches and tags, and it takes commits of its own.
    const file = (await t.api('get', `/projects/${fork.id}/repository/files/lib%2Fapp.rb?ref=main`, users.reporter.token).expect(200)).body;
    expect(Buffer.from(file.content, 'base64').toString()).toBe('puts 1\n');
    const branches = (await t.api('get', `/projects/${fork.id}/repository/branches`, users.reporter.token).expect(200)).body;
    expect(branches.map((b: { name: string }) => b.name).sort()).toEqual(['feature', 'main']);
    await t.api('get', `/projects/${fork.id}/repository/tags/v1`, users.reporter.token).expect(200);
    await commitFile(fork.id, 'only-in-fork.txt', 'x', users.reporter.token).expect(201);
    await t.api('get', `/projects/${p.id}/repository/files/only-in-fork.txt?ref=main`).expect(404);

    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.forks_count).toBe(1);
    const forks = await t.api('get', `/projects/${p.id}/forks`).expect(200);
    expect(forks.body.map((f: { id: number }) => f.id)).toEqual([fork.id]);
    expect(forks.headers['x-total']).toBe('1');
    // Who cannot see the fork does not find it in the list.
    expect((await t.api('get', `/projects/${p.id}/forks`, users.developer.token).expect(200)).body).toEqual([]);

    // Into a group by path, with another name; the same name again is GitLab's 409.
    const named = await t.api('post', `/projects/${p.id}/fork`).send({ namespace_path: group.full_path, name: 'Copy', path: 'copy' }).expect(201);
    expect(named.body.path_with_namespace).toBe('platform/copy');
    const taken = await t.api('post', `/projects/${p.id}/fork`).send({ namespace_id: group.id, name: 'Copy', path: 'copy' }).expect(409);
    expect(taken.body).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });

    // Guests of a private project may not read its code, so not fork it; strangers do not see it.
    await t.api('post', `/projects/${p.id}/fork`, users.guest.token).expect(403, { message: '403 Forbidden' });
    await t.api('post', `/projects/${p.id}/fork`, users.stranger.token).expect(404, { message: '404 Project Not Found' });
    await t.api('post', `/projects/${p.id}/fork`, users.developer.token).send({ namespace_id: group.id }).expect(403);
    await t
      .api('post', `/projects/${p.id}/fork`, users.developer.token)
      .send({ namespace_path: 'nowhere' })
      .expect(404, { message: '404 Namespace Not Found' });

    // Deleting a fork counts it out; a fork whose source is gone is no fork any more.
    await t.api('delete', `/projects/${named.body.id}`).expect(202);
    expect((await t.api('get', `/projects/${p.id}`).expect(200)).body.forks_count).toBe(1);
    await t.api('delete', `/projects/${p.id}`).expect(202);
    expect((await t.api('get', `/projects/${fork.id}`, users.reporter.token).expect(200)).body).not.toHaveProperty('forked_from_project');
  });

  it('hard-links the objects where the fork experiment is on, copies them otherwise', async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Linked', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
    const objectFiles = (projectId: number) => {
      const dir = path.join(t.config.dataDir, 'repositories', `${projectId}.git`, 'objects');
      return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.parentPath.endsWith('info'));
    };
    const links = (projectId: number) => objectFiles(projectId).map((e) => fs.statSync(path.join(e.parentPath, e.name)).nlink);
    const copied = (await t.api('post', `/projects/${p.id}/fork`).send({ path: 'copied', name: 'Copied' }).expect(201)).body;
    expect(links(copied.id).length).toBeGreaterThan(0);
    expect(links(copied.id).every((n) => n === 1)).toBe(true);

    await t.api('post', '/features/fork_hardlinked_objects_experiment_percentage').send({ value: 100, key: 'percentage_of_actors' }).expect(201);
    const experiments = (await t.api('get', '/experiments').expect(200)).body;
    // Every actor: the flag store folds 100 % into "on".
    expect(experiments.find((e: { key: string }) => e.key === 'fork_hardlinked_objects').current_status).toEqual({
      state: 'on',
      gates: [{ key: 'boolean', value: true }],
    });
    const linked = (await t.api('post', `/projects/${p.id}/fork`).send({ path: 'linked-fork', name: 'Linked fork' }).expect(201)).body;
    expect(links(linked.id).some((n) => n > 1)).toBe(true);
    await t.api('delete', '/features/fork_hardlinked_objects_experiment_percentage').expect(204);
  });
});

describe('transfer', () => {
  it("moves a project to another namespace (Owners), refusing GitLab's cases", async () => {
    const p = (await t.api('post', '/projects', users.owner.token).send({ name: 'Mover' }).expect(201)).body;
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: users.owner.id, access_level: 40 }).expect(201);
    const moved = await t.api('put', `/projects/${p.id}/transfer`, users.owner.token).send({ namespace: group.full_path }).expect(200);
    expect(moved.body).toMatchObject({ path_with_namespace: 'platform/mover', namespace: { id: group.id } });
    await t.api('get', `/projects/${encodeURIComponent('platform/mover')}`, users.owner.token).expect(200);
    // Its repository moved with it (kept by id).
    expect((await t.api('get', `/projects/${p.id}`, users.owner.token).expect(200)).body.empty_repo).toBe(true);

    const back = await t
      .api('put', `/projects/${p.id}/transfer`, users.owner.token)
      .send({ namespace: String(group.id) })
      .expect(400);
    expect(back.body.message).toMatch(/^Failed to transfer project/);
    await t.api('put', `/projects/${p.id}/transfer`, users.owner.token).send({}).expect(400, { error: 'namespace is missing' });
    const q = await projectWithMembers('Stay');
    await t
      .api('put', `/projects/${q.id}/transfer`, users.maintainer.token)
      .send({ namespace: String(group.id) })
      .expect(403, { message: '403 Forbidden' });
    await t.api('put', `/projects/${q.id}/transfer`).send({ namespace: 'no/such/group' }).expect(404, { message: '404 Namespace Not Found' });
    await t.api('delete', `/groups/${group.id}/members/${users.owner.id}`).expect(204);
  });
});

describe('groups, users, languages, storage', () => {
  it('lists the groups a project is in, outermost first', async () => {
    const p = await projectWithMembers('Grouped');
    const body = (await t.api('get', `/projects/${p.id}/groups`, users.guest.token).expect(200)).body;
    expect(body).toEqual([
      { id: group.id, web_url: `${EXTERNAL_URL}/groups/platform`, name: 'Platform', avatar_url: null, full_name: 'Platform', full_path: 'platform' },
      { id: sub.id, web_url: `${EXTERNAL_URL}/groups/platform/core`, name: 'Core', avatar_url: null, full_name: 'Platform / Core', full_path: 'platform/core' },
    ]);
    expect((await t.api('get', `/projects/${p.id}/groups?search=cor`).expect(200)).body.map((g: { id: number }) => g.id)).toEqual([sub.id]);
    await t.api('get', `/projects/${p.id}/groups`, users.stranger.token).expect(404);
  });

  it("lists the project's users", async () => {
    const p = await projectWithMembers('Peopled');
    const body = (await t.api('get', `/projects/${p.id}/users`, users.guest.token).expect(200)).body;
    expect(body.map((u: { username: string }) => u.username).sort()).toEqual(['pp-developer', 'pp-guest', 'pp-maintainer', 'pp-owner', 'pp-reporter', 'root']);
    expect(body.find((u: { username: string }) => u.username === 'pp-guest')).toEqual({
      id: users.guest.id,
      username: 'pp-guest',
      name: 'PP-GUEST',
      state: 'active',
      locked: false,
      avatar_url: null,
      web_url: `${EXTERNAL_URL}/pp-guest`,
    });
    expect((await t.api('get', `/projects/${p.id}/users?search=pp-dev`).expect(200)).body.map((u: { username: string }) => u.username)).toEqual([
      'pp-developer',
    ]);
  });

  it("answers the default branch's languages by bytes", async () => {
    const p = (await t.api('post', '/projects').send({ name: 'Polyglot', namespace_id: group.id }).expect(201)).body;
    expect((await t.api('get', `/projects/${p.id}/languages`).expect(200)).body).toEqual({});
    await commitFile(p.id, 'app.rb', 'a'.repeat(200)).expect(201);
    await commitFile(p.id, 'web/app.js', 'b'.repeat(100)).expect(201);
    await commitFile(p.id, 'data.bin', 'c'.repeat(5000)).expect(201);
    const languages = await t.api('get', `/projects/${p.id}/languages`).expect(200);
    expect(languages.body).toEqual({ Ruby: 66.67, JavaScript: 33.33 });
    expect(Object.keys(languages.body)).toEqual(['Ruby', 'JavaScript']);
    const gql = await t.graphql('query($id: Int) { project(id: $id) { languages { name share } } }', { id: p.id });
    expect(gql.body.data.project.languages).toEqual([
      { name: 'Ruby', share: 66.67 },
      { name: 'JavaScript', share: 33.33 },
    ]);
  });

  it("answers the repository's storage to administrators only", async () => {
    const p = await projectWithMembers('Stored');
    const body = (await t.api('get', `/projects/${p.id}/storage`).expect(200)).body;
    expect(body).toEqual({ project_id: p.id, disk_path: `repositories/${p.id}.git`, created_at: expect.any(String), repository_storage: 'default' });
    await t.api('get', `/projects/${p.id}/storage`, users.owner.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', `/projects/${p.id}/storage`, users.stranger.token).expect(404);
  });
});

describe('the edge and the job queue', () => {
  it('merges repeated slashes in the path before routing (python-gitlab sends /features//name)', async () => {
    await t.api('post', '//features//epic_highlight_color').send({ value: 'true' }).expect(201);
    expect((await t.api('get', '/features').expect(200)).body.map((f: { name: string }) => f.name)).toContain('epic_highlight_color');
    await t.api('delete', '/features//epic_highlight_color').expect(204);
    // The query string is left as sent.
    const res = await request(t.base).get('/api/v4//projects?search=a//b').set('PRIVATE-TOKEN', t.root.token).expect(200);
    expect(res.body).toEqual([]);
  });

  it('lists the default queue in the Sidekiq queue metrics', async () => {
    const body = (await t.api('get', '/sidekiq/queue_metrics').expect(200)).body;
    expect(body.queues.default).toEqual({ backlog: 0, latency: 0 });
    expect(Object.keys(body.queues)).toEqual([...Object.keys(body.queues)].sort());
  });
});

describe('@gitbeaker/rest', () => {
  it('drives every new project call, asserting the answers', async () => {
    const p = await projectWithMembers('Beaker');
    await commitFile(p.id, 'main.go', 'package main\n').expect(201);
    const owner = gitbeaker(t.base, t.root.token);
    const reporter = gitbeaker(t.base, users.reporter.token);
    const driven: string[] = [];
    const call = async <T>(name: string, request: Promise<T>) => {
      const value = await request;
      driven.push(name);
      return value;
    };

    const edited = await call('Projects.edit', owner.Projects.edit(p.id, { snippetsAccessLevel: 'disabled', lfsEnabled: false }));
    expect(edited).toMatchObject({ snippets_enabled: false, snippets_access_level: 'disabled', lfs_enabled: false });
    expect(await call('Projects.show', owner.Projects.show(p.id))).toMatchObject({
      snippets_enabled: false,
      _links: { self: `${EXTERNAL_URL}/api/v4/projects/${p.id}` },
    });

    const fork = await call('Projects.fork', reporter.Projects.fork(p.id, { path: 'beaker-fork', name: 'Beaker fork' }));
    expect(fork).toMatchObject({ path_with_namespace: 'pp-reporter/beaker-fork', forked_from_project: { id: p.id } });
    expect((await call('Projects.allForks', owner.Projects.allForks(p.id))).map((f) => f.id)).toEqual([fork.id]);

    expect(await call('Projects.star', reporter.Projects.star(p.id))).toMatchObject({ id: p.id, star_count: 1 });
    expect(await call('Projects.unstar', reporter.Projects.unstar(p.id))).toMatchObject({ id: p.id, star_count: 0 });

    expect(await call('Projects.archive', owner.Projects.archive(p.id))).toMatchObject({ archived: true });
    expect(await call('Projects.unarchive', owner.Projects.unarchive(p.id))).toMatchObject({ archived: false });

    expect((await call('Projects.allGroups', reporter.Projects.allGroups(p.id))).map((g) => g.full_path)).toEqual(['platform', 'platform/core']);
    expect((await call('Projects.allUsers', reporter.Projects.allUsers(p.id, { search: 'pp-guest' }))).map((u) => u.username)).toEqual(['pp-guest']);
    expect(await call('Projects.showLanguages', reporter.Projects.showLanguages(p.id))).toEqual({ Go: 100 });
    expect(await call('Projects.allStoragePaths', owner.Projects.allStoragePaths(p.id))).toMatchObject({ project_id: p.id, repository_storage: 'default' });

    const moved = await call(
      'Projects.transfer',
      reporter.Projects.transfer(fork.id, group.full_path).catch((error: { cause?: { response?: { status: number } } }) => error.cause?.response?.status),
    );
    // The reporter may not create projects in the group: GitLab's 403.
    expect(moved).toBe(403);
    const transferred = await call('Projects.transfer', owner.Projects.transfer(fork.id, group.id));
    expect(transferred).toMatchObject({ path_with_namespace: 'platform/beaker-fork' });

    expect(driven).toHaveLength(14);
  });
});
