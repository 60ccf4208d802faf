import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, seedProject, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let group: { id: number };
let head: string;
const base = () => `/projects/${project.id}/releases`;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...args])
    .toString()
    .trim();

async function member(accessLevel: number) {
  const u = await t.user();
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: u.id, access_level: accessLevel }).expect(201);
  return u;
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project, group } = await seedProject(t));
  head = git('rev-parse', 'main');
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1' }).expect(201);
  await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'G1' }).expect(201);
});
afterAll(() => t.close());

describe('creating releases', () => {
  it('creates the tag from ref (lightweight) and answers the full release with evidence_sha', async () => {
    const res = await t.api('post', base()).send({
      tag_name: 'v1.0',
      ref: 'main',
      description: 'Hello **world** <script>x</script>',
      milestones: ['M1', 'G1'],
      assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] },
    });
    expect(res.status).toBe(201);
    const r = res.body;
    expect(git('cat-file', '-t', 'v1.0')).toBe('commit');
    expect(r).toMatchObject({
      name: 'v1.0',
      tag_name: 'v1.0',
      upcoming_release: false,
      author: { username: 'root' },
      commit: { id: head, title: 'Initial commit', parent_ids: [] },
      commit_path: `/${project.path_with_namespace}/-/commit/${head}`,
      tag_path: `/${project.path_with_namespace}/-/tags/v1.0`,
    });
    expect(r.evidence_sha).toMatch(/^[0-9a-f]{64}$/);
    expect(r.milestones.map((m: { title: string }) => m.title).sort()).toEqual(['G1', 'M1']);
    expect(r.milestones[0].issue_stats).toEqual({ total: 0, closed: 0 });
    expect(r.assets.count).toBe(5);
    expect(r.assets.sources.map((s: { format: string }) => s.format)).toEqual(['zip', 'tar.gz', 'tar.bz2', 'tar']);
    expect(r.assets.sources[0].url).toBe(`${EXTERNAL_URL}/${project.path_with_namespace}/-/archive/v1.0/app-v1.0.zip`);
    expect(r.assets.links[0]).toMatchObject({
      name: 'bin',
      link_type: 'package',
      direct_asset_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1.0/downloads/bin/app`,
      external: true,
    });
    expect(r.evidences).toEqual([
      { sha: r.evidence_sha, filepath: expect.stringMatching(/\/-\/releases\/v1\.0\/evidences\/\d+\.json$/), collected_at: expect.any(String) },
    ]);
    expect(r._links).toMatchObject({
      self: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1.0`,
      edit_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1.0/edit`,
    });
    expect(r.description_html).toBeUndefined();
  });

  it('creates an annotated tag when tag_message is given, converts released_at to UTC', async () => {
    const r = (
      await t
        .api('post', base())
        .send({ tag_name: 'debian/2.0', ref: head, tag_message: 'Annotated', name: 'Two', released_at: '2030-01-01T09:00:00+09:00' })
        .expect(201)
    ).body;
    expect(git('cat-file', '-t', 'debian/2.0')).toBe('tag');
    expect(r).toMatchObject({
      name: 'Two',
      released_at: '2030-01-01T00:00:00.000Z',
      upcoming_release: true,
      tag_path: `/${project.path_with_namespace}/-/tags/debian%2F2.0`,
    });
  });

  it('reuses an existing tag and refuses duplicates, missing refs, bad milestones and bad links', async () => {
    git('tag', 'existing', head);
    await t.api('post', base()).send({ tag_name: 'existing' }).expect(201);
    await t.api('post', base()).send({ tag_name: 'v1.0' }).expect(409, { message: 'Release already exists' });
    await t.api('post', base()).send({ tag_name: 'v3' }).expect(422, { message: 'Ref is not specified' });
    await t
      .api('post', base())
      .send({ tag_name: 'v3', ref: 'main', milestones: ['nope', 'M1', 'other'] })
      .expect(400, { message: 'Milestone(s) not found: nope, other' });
    await t.api('post', base()).send({ tag_name: 'HEAD', ref: 'main' }).expect(400, { message: 'Tag name invalid' });
    const dup = await t
      .api('post', base())
      .send({
        tag_name: 'v3',
        ref: 'main',
        assets: {
          links: [
            { name: 'a', url: 'https://x.test/a' },
            { name: 'a', url: 'https://x.test/b' },
          ],
        },
      })
      .expect(400);
    expect(dup.body.message).toMatch(/Name has already been taken/i);
    await t
      .api('post', base())
      .send({ tag_name: 'v3', ref: 'main', assets: { links: [{ name: 'a' }] } })
      .expect(400, { error: 'assets[links][0][url] is missing' });
    await t.api('post', base()).send({ ref: 'main' }).expect(400, { error: 'tag_name is missing' });
    expect(() => git('rev-parse', '--verify', 'refs/tags/v3')).toThrow();
  });

  it('refuses a milestone of an ancestor group', async () => {
    const sub = (await t.api('post', '/groups').send({ name: 'Sub', path: 'sub', parent_id: group.id }).expect(201)).body;
    const p = (await t.api('post', '/projects').send({ name: 'Deep', namespace_id: sub.id, initialize_with_readme: true }).expect(201)).body;
    await t
      .api('post', `/projects/${p.id}/releases`)
      .send({ tag_name: 'x1', ref: 'main', milestones: ['G1'] })
      .expect(400, { message: 'Milestone(s) not found: G1' });
  });

  it('lets exactly one of several concurrent creations win', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.api('post', base()).send({ tag_name: 'race', ref: 'main' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await t.db.release.count({ where: { projectId: project.id, tag: 'race' } })).toBe(1);
    expect(git('rev-parse', 'race')).toBe(head);
  });

  it("waits for another process writing the same tag, and uses that process's tag", async () => {
    // Another server creating the tag holds git's lock file on it until it renames it into place.
    const tags = path.join(t.deps.git.pathFor(project.id), 'refs', 'tags');
    const lock = path.join(tags, 'held.lock');
    fs.writeFileSync(lock, `${head}\n`);
    // Sent now (supertest sends when a promise is taken), answered once the lock is gone.
    const created = t
      .api('post', base())
      .send({ tag_name: 'held', ref: 'main' })
      .then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.renameSync(lock, path.join(tags, 'held'));
    const res = await created;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.commit.id).toBe(head);
    expect(git('rev-parse', 'held')).toBe(head);
    // The lists below count this file's releases.
    await t.api('delete', `${base()}/held`).expect(200);
  });
});

describe('reading releases', () => {
  it('lists with order_by, sort, pagination and include_html_description', async () => {
    const list = await t.api('get', `${base()}?per_page=2`).expect(200);
    expect(list.headers['x-total']).toBe('4');
    expect(list.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['debian/2.0', 'race']);
    const created = (await t.api('get', `${base()}?order_by=created_at&sort=asc`).expect(200)).body;
    expect(created.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v1.0', 'debian/2.0', 'existing', 'race']);
    const html = (await t.api('get', `${base()}/v1.0?include_html_description=true`).expect(200)).body;
    expect(html.description_html).toBe('<p>Hello <strong>world</strong> &lt;script&gt;x&lt;/script&gt;</p>\n');
    await t.api('get', `${base()}?order_by=semver`).expect(400, { error: 'order_by does not have a valid value' });
    const cut = new Date().toISOString();
    expect((await t.api('get', `${base()}?updated_after=${cut}`).expect(200)).body).toEqual([]);
    expect((await t.api('get', `${base()}?updated_before=${cut}`).expect(200)).body).toHaveLength(4);
    await t.api('get', `${base()}?updated_before=yesterday`).expect(400, { error: 'updated_before is invalid' });
  });

  it('reads one release by URL-encoded tag and answers 404 for a tag without release', async () => {
    expect((await t.api('get', `${base()}/debian%2F2.0`).expect(200)).body.name).toBe('Two');
    await t.api('get', `${base()}/nope`).expect(404, { message: '404 Not Found' });
  });

  it('applies the role matrix: guest sees releases without code, outsider 404, anonymous public 200', async () => {
    const guest = await member(10);
    const reporter = await member(20);
    const outsider = await t.user();
    const list = (await t.api('get', base(), guest.token).expect(200)).body;
    const v1 = list.find((r: { tag_name: string }) => r.tag_name === 'v1.0');
    for (const key of ['commit', 'commit_path', 'tag_path', 'evidences']) expect(v1).not.toHaveProperty(key);
    expect(v1.assets.sources).toBeUndefined();
    expect(v1.assets.count).toBe(1);
    expect(v1._links.edit_url).toBeUndefined();
    await t.api('get', `${base()}/v1.0`, guest.token).expect(403);
    const asReporter = (await t.api('get', `${base()}/v1.0`, reporter.token).expect(200)).body;
    expect(asReporter.commit.id).toBe(head);
    expect(asReporter._links.edit_url).toBeUndefined();
    await t.api('post', base(), reporter.token).send({ tag_name: 'r1', ref: 'main' }).expect(403, { message: '403 Forbidden' });
    await t.api('put', `${base()}/v1.0`, reporter.token).send({ name: 'x' }).expect(403);
    await t.api('delete', `${base()}/v1.0`, reporter.token).expect(403);
    await t.api('get', base(), outsider.token).expect(404, { message: '404 Project Not Found' });
    await t.api('get', base(), null).expect(404, { message: '404 Project Not Found' });
    const pubGroup = (await t.api('post', '/groups').send({ name: 'Open', path: 'open', visibility: 'public' }).expect(201)).body;
    const pub = (
      await t.api('post', '/projects').send({ name: 'Pub', namespace_id: pubGroup.id, visibility: 'public', initialize_with_readme: true }).expect(201)
    ).body;
    await t.api('post', `/projects/${pub.id}/releases`).send({ tag_name: 'p1', ref: 'main' }).expect(201);
    const anonymous = (await t.api('get', `/projects/${pub.id}/releases`, null).expect(200)).body;
    expect(anonymous[0]).toMatchObject({ tag_name: 'p1', commit: expect.any(Object) });
    expect(anonymous[0]._links.edit_url).toBeUndefined();
    await t.api('post', `/projects/${pub.id}/releases`, outsider.token).send({ tag_name: 'p2', ref: 'main' }).expect(403);
  });

  it('lists group releases of readable projects in subgroups, also simple', async () => {
    const all = (await t.api('get', `/groups/${group.id}/releases`).expect(200)).body;
    expect(all.map((r: { tag_name: string }) => r.tag_name)).toContain('v1.0');
    const simple = (await t.api('get', `/groups/${group.id}/releases?simple=true&sort=asc`).expect(200)).body;
    expect(Object.keys(simple[0]).sort()).toEqual(['created_at', 'description', 'name', 'released_at', 'tag_name', 'upcoming_release']);
    const outsider = await t.user();
    await t.api('get', `/groups/${group.id}/releases`, outsider.token).expect(404, { message: '404 Group Not Found' });
  });
});

describe('updating and deleting releases', () => {
  it('changes only the given fields, clears milestones with [], refuses empty updates', async () => {
    const dev = await member(30);
    const r = (await t.api('put', `${base()}/v1.0`, dev.token).send({ name: 'One', released_at: '2020-01-01T00:00:00Z' }).expect(200)).body;
    expect(r).toMatchObject({ name: 'One', description: 'Hello **world** <script>x</script>', released_at: '2020-01-01T00:00:00.000Z' });
    expect(r.milestones).toHaveLength(2);
    const cleared = (await t.api('put', `${base()}/v1.0`, dev.token).send({ milestones: [] }).expect(200)).body;
    expect(cleared).not.toHaveProperty('milestones');
    expect(
      (
        await t
          .api('put', `${base()}/v1.0`, dev.token)
          .send({ milestones: ['M1'] })
          .expect(200)
      ).body.milestones[0].title,
    ).toBe('M1');
    await t.api('put', `${base()}/v1.0`, dev.token).send({ sha: 'x' }).expect(400, { message: 'params is empty' });
    await t
      .api('put', `${base()}/v1.0`, dev.token)
      .send({ milestones: ['zzz'] })
      .expect(400, { message: 'Milestone(s) not found: zzz' });
    const m1 = (await t.api('get', `/projects/${project.id}/milestones?title=M1`).expect(200)).body[0];
    expect(
      (
        await t
          .api('put', `${base()}/v1.0`, dev.token)
          .send({ milestone_ids: [m1.id] })
          .expect(200)
      ).body.milestones[0].title,
    ).toBe('M1');
    await t
      .api('put', `${base()}/v1.0`, dev.token)
      .send({ milestone_ids: [m1.id, 999999] })
      .expect(400, { message: 'Milestone id(s) not found: 999999' });
    await t
      .api('put', `${base()}/v1.0`, dev.token)
      .send({ milestones: ['M1'], milestone_ids: [m1.id] })
      .expect(400, { error: 'milestones, milestone_ids Cannot specify milestones and milestone_ids at the same time' });
    await t.api('put', `${base()}/nope`, dev.token).send({ name: 'x' }).expect(403);
  });

  it('deletes a release with 200 and its body, keeping the git tag', async () => {
    const dev = await member(30);
    const deleted = (await t.api('delete', `${base()}/existing`, dev.token).expect(200)).body;
    expect(deleted).toMatchObject({ tag_name: 'existing', commit: { id: head } });
    expect(git('rev-parse', 'existing')).toBe(head);
    await t.api('get', `${base()}/existing`).expect(404);
    await t.api('delete', `${base()}/existing`, dev.token).expect(403);
    const tag = (await t.api('get', `/projects/${project.id}/repository/tags/existing`).expect(200)).body;
    expect(tag.release).toBeNull();
  });

  it('keeps a release whose tag was deleted, but refuses to update it', async () => {
    await t.api('post', base()).send({ tag_name: 'doomed', ref: 'main' }).expect(201);
    await t.api('delete', `/projects/${project.id}/repository/tags/doomed`).expect(204);
    expect((await t.api('get', `${base()}/doomed`).expect(200)).body.tag_name).toBe('doomed');
    await t.api('put', `${base()}/doomed`).send({ name: 'x' }).expect(404, { message: 'Tag does not exist' });
    await t.api('delete', `${base()}/doomed`).expect(200);
  });
});

describe('GraphQL', () => {
  it('reads releases with links, milestones, author and commit', async () => {
    const res = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") {
      releases(sort: CREATED_ASC, first: 1) { count nodes { tagName name author { username } commit { sha }
        milestones { nodes { title } } assets { count links { nodes { name linkType directAssetPath } } sources { nodes { format } } }
        links { selfUrl editUrl } evidences { nodes { sha } } } }
      release(tagName: "debian/2.0") { upcomingRelease historicalRelease }
    } }`);
    const rel = res.body.data.project.releases.nodes[0];
    expect(rel).toMatchObject({ tagName: 'v1.0', name: 'One', author: { username: 'root' }, commit: { sha: head } });
    expect(rel.assets.links.nodes).toEqual([{ name: 'bin', linkType: 'PACKAGE', directAssetPath: '/bin/app' }]);
    expect(res.body.data.project.release).toEqual({ upcomingRelease: true, historicalRelease: false });
  });

  it('lists group releases and hides code fields from a guest', async () => {
    const res = await t.graphql(`{ group(fullPath: "acme") { releases(sort: RELEASED_AT_ASC) { count nodes { tagName } } } }`);
    expect(res.body.data.group.releases.nodes[0].tagName).toBe('v1.0');
    const guest = await member(10);
    const asGuest = await t.graphql(
      `{ project(fullPath: "${project.path_with_namespace}") { userPermissions { downloadCode createRelease }
      release(tagName: "v1.0") { tagName commit { sha } tagPath assets { count sources { nodes { url } } } evidences { nodes { sha } } } } }`,
      {},
      guest.token,
    );
    expect(asGuest.body.data.project).toEqual({
      userPermissions: { downloadCode: false, createRelease: false },
      release: { tagName: 'v1.0', commit: null, tagPath: null, assets: { count: 1, sources: null }, evidences: null },
    });
  });

  it('creates, updates and deletes with GitLab payloads', async () => {
    const p = project.path_with_namespace;
    const create = await t.graphql(`mutation { releaseCreate(input: {projectPath: "${p}", tagName: "gql1", ref: "main", milestones: ["M1"],
      assets: {links: [{name: "doc", url: "https://x.test/doc", linkType: RUNBOOK}]}}) { release { tagName milestones { nodes { title } } } errors } }`);
    expect(create.body.data.releaseCreate).toEqual({ release: { tagName: 'gql1', milestones: { nodes: [{ title: 'M1' }] } }, errors: [] });
    const dup = await t.graphql(`mutation { releaseCreate(input: {projectPath: "${p}", tagName: "gql1"}) { release { tagName } errors } }`);
    expect(dup.body.data.releaseCreate).toEqual({ release: null, errors: ['Release already exists'] });
    expect(dup.body.extensions.payloadErrors[0]).toMatchObject({ code: 'CONFLICT', status: 409 });
    const noRef = await t.graphql(`mutation { releaseCreate(input: {projectPath: "${p}", tagName: "gql2"}) { errors } }`);
    expect(noRef.body.data.releaseCreate.errors).toEqual(['Ref is not specified']);
    const upd = await t.graphql(
      `mutation { releaseUpdate(input: {projectPath: "${p}", tagName: "gql1", description: "d"}) { release { description } errors } }`,
    );
    expect(upd.body.data.releaseUpdate).toEqual({ release: { description: 'd' }, errors: [] });
    const del = await t.graphql(`mutation { releaseDelete(input: {projectPath: "${p}", tagName: "gql1"}) { release { tagName assets { count } } errors } }`);
    expect(del.body.data.releaseDelete).toEqual({ release: { tagName: 'gql1', assets: { count: 5 } }, errors: [] });
  });
});

describe('nested lists over REST', () => {
  it('answers every link of a release, as GitLab does, where GraphQL pages them (also through @gitbeaker/rest)', async () => {
    const links = Array.from({ length: 60 }, (_, i) => ({ name: `file ${i}`, url: `https://example.com/files/${i}` }));
    const created = (await t.api('post', base()).send({ tag_name: 'many-links', ref: 'main', assets: { links } }).expect(201)).body;
    expect(created.assets).toMatchObject({ count: 64, links: expect.any(Array) });
    expect(created.assets.links).toHaveLength(60);
    const one = (await t.api('get', `${base()}/many-links`).expect(200)).body;
    expect(one.assets.count).toBe(64);
    expect(one.assets.links.map((l: { name: string }) => l.name).sort()).toEqual(links.map((l) => l.name).sort());
    const listed = (await t.api('get', `${base()}?per_page=100`).expect(200)).body.find((r: { tag_name: string }) => r.tag_name === 'many-links');
    expect(listed.assets.links).toHaveLength(60);
    const grouped = (await t.api('get', `/groups/${group.id}/releases?per_page=100`).expect(200)).body.find(
      (r: { tag_name: string }) => r.tag_name === 'many-links',
    );
    expect(grouped.assets.links).toHaveLength(60);
    const shown = await gitbeaker(t.base, t.root.token).ProjectReleases.show(project.id, 'many-links');
    expect(shown.assets.count).toBe(64);
    expect(shown.assets.links).toHaveLength(60);
    // GraphQL answers the page asked for.
    const res = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") {
      release(tagName: "many-links") { assets { count links(first: 30) { nodes { name } pageInfo { hasNextPage } } } } } }`);
    expect(res.body.data.project.release.assets).toMatchObject({ count: 64, links: { pageInfo: { hasNextPage: true } } });
    expect(res.body.data.project.release.assets.links.nodes).toHaveLength(30);
  });
});
