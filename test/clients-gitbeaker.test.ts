import { Gitlab, type ArchiveType } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// @gitbeaker/rest 43.8.0 drives every route family through its own methods against the listening
// app: its URL encoding, decamelized JSON bodies, multipart forms (Users.edit), DELETE bodies,
// Link-following pagination and redirects. Each call's answer is asserted, and counted by method.

let t: TestApp;
let api: InstanceType<typeof Gitlab>;

/** `Class.method` → calls whose answer was asserted. */
const driven = new Map<string, number>();

/** Runs one gitbeaker call and counts it under its method's name once it answered. */
async function call<T>(method: string, request: Promise<T>): Promise<T> {
  const value = await request;
  driven.set(method, (driven.get(method) ?? 0) + 1);
  return value;
}

/** The status of a call gitbeaker rejected, counted like the others (a refusal is an answer too). */
async function refused(method: string, request: Promise<unknown>): Promise<number | undefined> {
  try {
    await request;
  } catch (error) {
    driven.set(method, (driven.get(method) ?? 0) + 1);
    return (error as { cause?: { response?: { status: number } } }).cause?.response?.status;
  }
  throw new Error(`${method} succeeded`);
}

const names = (list: { name?: string | null; title?: string | null }[]) => list.map((x) => x.name ?? x.title);

let groupId: number;
let projectId: number;
let projectPath: string;
let alice: { id: number; username: string };

beforeAll(async () => {
  t = await createTestApp();
  api = gitbeaker(t.base, t.root.token);
});
afterAll(async () => {
  const total = [...driven.values()].reduce((a, b) => a + b, 0);
  // The figures docs/api.md quotes: methods driven and calls that passed.
  console.info(`gitbeaker 43.8.0: ${total} calls passed over ${driven.size} methods: ${[...driven.keys()].sort().join(', ')}`);
  await t.close();
});

describe('@gitbeaker/rest 43.8.0 against forgegate', () => {
  it('Users: current user, create, show, list, edit (sent as multipart/form-data)', async () => {
    expect(await call('Users.showCurrentUser', api.Users.showCurrentUser())).toMatchObject({ username: 'root', is_admin: true });
    alice = await call(
      'Users.create',
      api.Users.create({ username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse-battery', skipConfirmation: true }),
    );
    expect(alice).toMatchObject({ username: 'alice', name: 'Alice', email: 'alice@example.com' });
    expect(await call('Users.show', api.Users.show(alice.id))).toMatchObject({ id: alice.id, username: 'alice' });
    expect((await call('Users.all', api.Users.all({ username: 'alice' }))).map((u) => u.id)).toEqual([alice.id]);
    // gitbeaker always sends Users.edit as a multipart form.
    const edited = await call('Users.edit', api.Users.edit(alice.id, { name: 'Alice Liddell', bio: 'down the hole' }));
    expect(edited).toMatchObject({ name: 'Alice Liddell', bio: 'down the hole' });
    expect((await call('Users.show', api.Users.show(alice.id))).name).toBe('Alice Liddell');
  });

  it('Groups and Projects: create, show by id and path, list, subgroups, edit with topics, remove', async () => {
    const group = await call('Groups.create', api.Groups.create('Wonderland', 'wonderland', { visibility: 'private', description: 'a group' }));
    groupId = group.id;
    expect(group).toMatchObject({ name: 'Wonderland', full_path: 'wonderland', visibility: 'private' });
    const sub = await call('Groups.create', api.Groups.create('Tea Party', 'tea-party', { parentId: groupId }));
    expect(sub).toMatchObject({ full_path: 'wonderland/tea-party', parent_id: groupId });
    expect((await call('Groups.show', api.Groups.show('wonderland/tea-party'))).id).toBe(sub.id);
    expect(names(await call('Groups.allSubgroups', api.Groups.allSubgroups(groupId)))).toEqual(['Tea Party']);
    expect(names(await call('Groups.all', api.Groups.all({ search: 'wonder' })))).toEqual(['Wonderland']);

    const project = await call(
      'Projects.create',
      api.Projects.create({ name: 'Rabbit Hole', namespaceId: groupId, initializeWithReadme: true, topics: ['falling', 'tea'] }),
    );
    projectId = project.id;
    projectPath = String(project.path_with_namespace);
    expect(project).toMatchObject({ path_with_namespace: 'wonderland/rabbit-hole', default_branch: 'main', topics: ['falling', 'tea'] });
    // An encoded full path as the id, as gitbeaker encodes it.
    expect((await call('Projects.show', api.Projects.show(projectPath))).id).toBe(projectId);
    const edited = await call('Projects.edit', api.Projects.edit(projectId, { description: 'curiouser', topics: ['curious'] }));
    expect(edited).toMatchObject({ description: 'curiouser', topics: ['curious'] });
    // With an avatar gitbeaker sends a multipart form: the fields apply, the file (no avatars here) is dropped.
    const withAvatar = await call(
      'Projects.edit',
      api.Projects.edit(projectId, { description: 'with a picture', avatar: { content: new Blob(['png']), filename: 'a.png' } }),
    );
    expect(withAvatar.description).toBe('with a picture');
    expect(names(await call('Projects.all', api.Projects.all({ search: 'rabbit' })))).toEqual(['Rabbit Hole']);
    expect(names(await call('Groups.allProjects', api.Groups.allProjects(groupId)))).toEqual(['Rabbit Hole']);

    const doomed = await call('Projects.create', api.Projects.create({ name: 'Doomed' }));
    expect(await call('Projects.remove', api.Projects.remove(doomed.id))).toEqual({ message: '202 Accepted' });
    await call('Groups.remove', api.Groups.remove(sub.id));
    expect(await refused('Groups.show', api.Groups.show(sub.id))).toBe(404);
  });

  it('ProjectMembers and GroupMembers: add by id and by username, show, list inherited, edit, remove', async () => {
    const bob = await t.user('bob');
    const added = await call('ProjectMembers.add', api.ProjectMembers.add(projectId, 30, { userId: alice.id }));
    expect(added).toMatchObject({ id: alice.id, username: 'alice', access_level: 30 });
    const byName = await call('GroupMembers.add', api.GroupMembers.add(groupId, 20, { username: 'bob' }));
    expect(byName).toMatchObject({ id: bob.id, access_level: 20 });
    expect((await call('ProjectMembers.show', api.ProjectMembers.show(projectId, alice.id))).access_level).toBe(30);
    expect((await call('ProjectMembers.all', api.ProjectMembers.all(projectId))).map((m) => m.username)).toEqual(['alice']);
    const inherited = await call('ProjectMembers.all', api.ProjectMembers.all(projectId, { includeInherited: true }));
    expect(inherited.map((m) => m.username).sort()).toEqual(['alice', 'bob', 'root']);
    expect((await call('ProjectMembers.edit', api.ProjectMembers.edit(projectId, alice.id, 40))).access_level).toBe(40);
    expect((await call('GroupMembers.show', api.GroupMembers.show(groupId, bob.id, { includeInherited: true }))).access_level).toBe(20);
    await call('GroupMembers.remove', api.GroupMembers.remove(groupId, bob.id));
    expect((await call('GroupMembers.all', api.GroupMembers.all(groupId))).map((m) => m.username)).toEqual(['root']);
    expect(await refused('ProjectMembers.add', api.ProjectMembers.add(projectId, 30, { userId: alice.id }))).toBe(409);
  });

  it('ProjectMilestones, GroupMilestones, ProjectLabels and GroupLabels', async () => {
    const m1 = await call('ProjectMilestones.create', api.ProjectMilestones.create(projectId, 'v1.0', { dueDate: '2030-01-31', description: 'first' }));
    expect(m1).toMatchObject({ title: 'v1.0', due_date: '2030-01-31', state: 'active', project_id: projectId });
    expect((await call('ProjectMilestones.show', api.ProjectMilestones.show(projectId, m1.id))).description).toBe('first');
    const closed = await call('ProjectMilestones.edit', api.ProjectMilestones.edit(projectId, m1.id, { stateEvent: 'close' }));
    expect(closed.state).toBe('closed');
    expect(names(await call('ProjectMilestones.all', api.ProjectMilestones.all(projectId, { state: 'closed' })))).toEqual(['v1.0']);
    const gm = await call('GroupMilestones.create', api.GroupMilestones.create(groupId, 'Q1'));
    expect(gm).toMatchObject({ title: 'Q1', group_id: groupId });
    expect(names(await call('GroupMilestones.all', api.GroupMilestones.all(groupId)))).toEqual(['Q1']);

    const label = await call('ProjectLabels.create', api.ProjectLabels.create(projectId, 'bug', '#d9534f', { description: 'broken' }));
    expect(label).toMatchObject({ name: 'bug', color: expect.stringMatching(/^#d9534f$/i), description: 'broken' });
    await call('GroupLabels.create', api.GroupLabels.create(groupId, 'team', '#428bca'));
    expect(names(await call('GroupLabels.all', api.GroupLabels.all(groupId)))).toEqual(['team']);
    expect(names(await call('ProjectLabels.all', api.ProjectLabels.all(projectId, { includeAncestorGroups: true }))).sort()).toEqual(['bug', 'team']);
  });

  it('RepositoryFiles (create, show, raw, blame, edit, remove), Branches, Commits and Tags', async () => {
    const created = await call('RepositoryFiles.create', api.RepositoryFiles.create(projectId, 'docs/guide.md', 'main', '# Guide\n', 'add the guide'));
    expect(created).toEqual({ file_path: 'docs/guide.md', branch: 'main' });
    const shown = await call('RepositoryFiles.show', api.RepositoryFiles.show(projectId, 'docs/guide.md', 'main'));
    expect(shown).toMatchObject({ file_name: 'guide.md', file_path: 'docs/guide.md', encoding: 'base64', ref: 'main' });
    expect(Buffer.from(shown.content, 'base64').toString()).toBe('# Guide\n');
    expect(await call('RepositoryFiles.showRaw', api.RepositoryFiles.showRaw(projectId, 'docs/guide.md', 'main'))).toBe('# Guide\n');
    const blame = await call('RepositoryFiles.allFileBlames', api.RepositoryFiles.allFileBlames(projectId, 'docs/guide.md', 'main'));
    expect(blame.map((b) => b.lines)).toEqual([['# Guide']]);
    const edited = await call('RepositoryFiles.edit', api.RepositoryFiles.edit(projectId, 'docs/guide.md', 'main', 'bmV3', 'rewrite', { encoding: 'base64' }));
    expect(edited).toEqual({ file_path: 'docs/guide.md', branch: 'main' });
    expect(await call('RepositoryFiles.showRaw', api.RepositoryFiles.showRaw(projectId, 'docs/guide.md', 'main'))).toBe('new');
    // gitbeaker sends DELETE parameters as a JSON body.
    await call('RepositoryFiles.remove', api.RepositoryFiles.remove(projectId, 'docs/guide.md', 'main', 'drop the guide'));
    expect(await refused('RepositoryFiles.show', api.RepositoryFiles.show(projectId, 'docs/guide.md', 'main'))).toBe(404);

    const branch = await call('Branches.create', api.Branches.create(projectId, 'feature/tea', 'main'));
    expect(branch).toMatchObject({ name: 'feature/tea', merged: false });
    expect((await call('Branches.show', api.Branches.show(projectId, 'feature/tea'))).commit.id).toBe(branch.commit.id);
    expect(names(await call('Branches.all', api.Branches.all(projectId))).sort()).toEqual(['feature/tea', 'main']);
    const head = await call('Commits.show', api.Commits.show(projectId, 'main'));
    expect(head).toMatchObject({ id: branch.commit.id, title: 'drop the guide' });
    await call('Branches.remove', api.Branches.remove(projectId, 'feature/tea'));
    expect(await refused('Branches.show', api.Branches.show(projectId, 'feature/tea'))).toBe(404);

    const tag = await call('Tags.create', api.Tags.create(projectId, 'v1.0.0', 'main', { message: 'first cut' }));
    expect(tag).toMatchObject({ name: 'v1.0.0', message: 'first cut', commit: { id: head.id } });
    expect((await call('Tags.show', api.Tags.show(projectId, 'v1.0.0'))).target).toBe(tag.target);
    await call('Tags.create', api.Tags.create(projectId, 'scratch', 'main'));
    expect(names(await call('Tags.all', api.Tags.all(projectId))).sort()).toEqual(['scratch', 'v1.0.0']);
    await call('Tags.remove', api.Tags.remove(projectId, 'scratch'));
    expect(names(await call('Tags.all', api.Tags.all(projectId)))).toEqual(['v1.0.0']);
  });

  it('ProjectReleases and ReleaseLinks: create with assets, show, latest, downloads by nested path, edit, remove', async () => {
    const raw = `${t.base}/api/v4/projects/${projectId}/repository/files/README.md/raw`;
    const release = await call(
      'ProjectReleases.create',
      api.ProjectReleases.create(projectId, {
        tagName: 'v1.0.0',
        name: 'One',
        description: 'The first',
        milestones: ['v1.0'],
        assets: { links: [{ name: 'readme', url: raw, directAssetPath: '/bin/readme', linkType: 'package' }] },
      }),
    );
    expect(release).toMatchObject({ tag_name: 'v1.0.0', name: 'One', milestones: [expect.objectContaining({ title: 'v1.0' })] });
    expect(release.assets.links).toMatchObject([
      { name: 'readme', link_type: 'package', direct_asset_url: `http://gitlab.test/${projectPath}/-/releases/v1.0.0/downloads/bin/readme` },
    ]);
    expect((await call('ProjectReleases.show', api.ProjectReleases.show(projectId, 'v1.0.0'))).description).toBe('The first');
    expect(names(await call('ProjectReleases.all', api.ProjectReleases.all(projectId)))).toEqual(['One']);
    expect(names(await call('GroupReleases.all', api.GroupReleases.all(groupId)))).toEqual(['One']);
    // fetch follows the permalink's 302 to the release.
    expect((await call('ProjectReleases.showLatest', api.ProjectReleases.showLatest(projectId))).tag_name).toBe('v1.0.0');
    // gitbeaker encodes the nested path as bin%2Freadme; the 302 leads to the link, here the README's raw bytes.
    const readme = await call('ProjectReleases.download', api.ProjectReleases.download(projectId, 'v1.0.0', 'bin/readme'));
    expect(readme).toMatch(/^# Rabbit Hole/);
    expect(await call('ProjectReleases.downloadLatest', api.ProjectReleases.downloadLatest(projectId, 'bin/readme'))).toBe(readme);

    const links = api.ReleaseLinks;
    const link = await call('ReleaseLinks.create', links.create(projectId, 'v1.0.0', 'notes', 'https://example.com/notes', { linkType: 'runbook' }));
    expect(link).toMatchObject({ name: 'notes', url: 'https://example.com/notes', link_type: 'runbook' });
    expect((await call('ReleaseLinks.show', links.show(projectId, 'v1.0.0', link.id))).name).toBe('notes');
    expect(names(await call('ReleaseLinks.all', links.all(projectId, 'v1.0.0')))).toEqual(['notes', 'readme']);
    expect((await call('ReleaseLinks.edit', links.edit(projectId, 'v1.0.0', link.id, { name: 'release notes' }))).name).toBe('release notes');
    // Typed void by gitbeaker; GitLab answers the deleted link.
    expect(((await call('ReleaseLinks.remove', links.remove(projectId, 'v1.0.0', link.id))) as unknown as { name: string }).name).toBe('release notes');

    const edited = await call('ProjectReleases.edit', api.ProjectReleases.edit(projectId, 'v1.0.0', { name: 'One, revised', milestones: [] }));
    expect(edited).toMatchObject({ name: 'One, revised' });
    expect(edited.milestones).toBeUndefined();
  });

  it('with a CI job token: releases, links, tags, files and archives of the job’s project only', async () => {
    const { token } = (await t.api('post', '/admin/job_tokens').send({ project_id: projectId, user_id: alice.id }).expect(201)).body;
    const ci = new Gitlab({ host: t.base, jobToken: token });
    const created = await call(
      'ProjectReleases.create',
      ci.ProjectReleases.create(projectId, { tagName: 'v2.0.0', ref: 'main', name: 'Two', releasedAt: '2031-01-01T00:00:00Z' }),
    );
    expect(created).toMatchObject({ tag_name: 'v2.0.0', author: { username: 'alice' } });
    expect(names(await call('ProjectReleases.all', ci.ProjectReleases.all(projectId)))).toEqual(['Two', 'One, revised']);
    expect((await call('ProjectReleases.show', ci.ProjectReleases.show(projectId, 'v2.0.0'))).name).toBe('Two');
    expect((await call('ProjectReleases.showLatest', ci.ProjectReleases.showLatest(projectId))).tag_name).toBe('v2.0.0');
    expect((await call('ProjectReleases.edit', ci.ProjectReleases.edit(projectId, 'v2.0.0', { description: 'from CI' }))).description).toBe('from CI');
    const link = await call(
      'ReleaseLinks.create',
      ci.ReleaseLinks.create(projectId, 'v2.0.0', 'bin', `${t.base}/api/v4/projects/${projectId}/repository/files/README.md/raw`, {
        directAssetPath: '/dist/bin',
      }),
    );
    expect(link.direct_asset_url).toMatch(/\/downloads\/dist\/bin$/);
    expect(await call('ProjectReleases.download', ci.ProjectReleases.download(projectId, 'v2.0.0', 'dist/bin'))).toMatch(/^# Rabbit Hole/);
    expect(names(await call('Tags.all', ci.Tags.all(projectId))).sort()).toEqual(['v1.0.0', 'v2.0.0']);
    expect((await call('RepositoryFiles.show', ci.RepositoryFiles.show(projectId, 'README.md', 'main'))).file_name).toBe('README.md');
    const archive = await call('Repositories.showArchive', ci.Repositories.showArchive(projectId, { fileType: 'zip', sha: 'v2.0.0' }));
    expect(
      Buffer.from(await (archive as unknown as Blob).arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    expect(((await call('ProjectReleases.remove', ci.ProjectReleases.remove(projectId, 'v2.0.0'))) as unknown as { tag_name: string }).tag_name).toBe('v2.0.0');
    // Routes GitLab keeps from job tokens, and other projects.
    expect(await refused('ProjectMembers.all', ci.ProjectMembers.all(projectId))).toBe(401);
    const other = await call('Projects.create', api.Projects.create({ name: 'Elsewhere', initializeWithReadme: true }));
    expect(await refused('ProjectReleases.all', ci.ProjectReleases.all(other.id))).toBe(404);
  });

  it('Repositories.showArchive in each format, as bytes', async () => {
    for (const fileType of ['tar.gz', 'zip', 'tar.bz2', 'tar', 'tgz'] as ArchiveType[]) {
      const archive = (await call('Repositories.showArchive', api.Repositories.showArchive(projectId, { fileType, sha: 'v1.0.0' }))) as unknown as Blob;
      const bytes = Buffer.from(await archive.arrayBuffer());
      const magic: number[] | undefined = (
        { 'tar.gz': [0x1f, 0x8b], tgz: [0x1f, 0x8b], zip: [0x50, 0x4b], 'tar.bz2': [0x42, 0x5a] } as Record<string, number[]>
      )[fileType];
      if (magic) expect([...bytes.subarray(0, 2)]).toEqual(magic);
      else expect(bytes.subarray(257, 262).toString()).toBe('ustar');
    }
  });

  it('pagination: follows Link across pages, stops at maxPages, and shows paginationInfo with showExpanded', async () => {
    for (const n of [1, 2, 3, 4])
      await t
        .api('post', `/projects/${projectId}/milestones`)
        .send({ title: `page-${n}` })
        .expect(201);
    const all = await call('ProjectMilestones.all', api.ProjectMilestones.all(projectId, { perPage: 2 }));
    expect(all).toHaveLength(5);
    const capped = await call('ProjectMilestones.all', api.ProjectMilestones.all(projectId, { perPage: 2, maxPages: 2 }));
    expect(capped).toHaveLength(4);
    const expanded = await call(
      'ProjectMilestones.all',
      api.ProjectMilestones.all(projectId, { perPage: 2, page: 2, showExpanded: true, pagination: 'offset' }),
    );
    expect(expanded.data).toHaveLength(2);
    expect(expanded.paginationInfo).toEqual({ total: 5, next: 3, current: 2, previous: 1, perPage: 2, totalPages: 3 });
    const users = await call('Users.all', api.Users.all({ perPage: 1, maxPages: 1, showExpanded: true }));
    expect(users.data).toHaveLength(1);
    expect(users.paginationInfo).toMatchObject({ current: 1, perPage: 1, total: await t.db.user.count() });
  });

  it('errors: refusals reach gitbeaker with their status', async () => {
    expect(await refused('Users.showCurrentUser', gitbeaker(t.base, 'glpat-not-a-token').Users.showCurrentUser())).toBe(401);
    expect(await refused('Projects.show', api.Projects.show(999_999))).toBe(404);
    expect(await refused('ProjectReleases.create', api.ProjectReleases.create(projectId, { tagName: 'no-such-tag' }))).toBe(422);
    const aliceApi = gitbeaker(
      t.base,
      (
        await t
          .api('post', `/users/${alice.id}/personal_access_tokens`)
          .send({ name: 'a', scopes: ['api'] })
          .expect(201)
      ).body.token,
    );
    expect(await refused('Groups.remove', aliceApi.Groups.remove(groupId))).toBe(403);
  });
});
