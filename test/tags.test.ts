import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number };
let head: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...args])
    .toString()
    .trim();

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  head = git('rev-parse', 'main');
});
afterAll(() => t.close());

describe('tags', () => {
  it('creates lightweight and annotated tags in the bare repository', async () => {
    const light = (await t.api('post', `/projects/${project.id}/repository/tags`).send({ tag_name: 'v1.0', ref: 'main' }).expect(201)).body;
    expect(light).toMatchObject({ name: 'v1.0', message: null, target: head, protected: false, created_at: null });
    expect(light.commit).toMatchObject({ id: head, title: 'Initial commit' });
    const annotated = (await t.api('post', `/projects/${project.id}/repository/tags`).send({ tag_name: 'debian/2.0', ref: head, message: 'Two' }).expect(201))
      .body;
    expect(annotated).toMatchObject({ name: 'debian/2.0', message: 'Two' });
    expect(annotated.target).not.toBe(head);
    expect(git('cat-file', '-t', 'debian/2.0')).toBe('tag');
    expect(git('rev-parse', 'debian/2.0^{commit}')).toBe(head);
  });

  it('reads tags written by git itself as git lists them: messages, creator dates, newest first', async () => {
    const env = { ...process.env, GIT_COMMITTER_NAME: 'Tagger', GIT_COMMITTER_EMAIL: 't@example.com', GIT_COMMITTER_DATE: '2031-02-03T04:05:06Z' };
    execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'tag', '-a', 'cli/notes', '-m', 'first line\n\nsecond paragraph', head], { env });
    const tag = (await t.api('get', `/projects/${project.id}/repository/tags/cli%2Fnotes`).expect(200)).body;
    expect(tag).toMatchObject({
      name: 'cli/notes',
      message: 'first line\n\nsecond paragraph',
      created_at: '2031-02-03T04:05:06.000Z',
      target: git('rev-parse', 'cli/notes'),
    });
    const listed = (await t.api('get', `/projects/${project.id}/repository/tags`).expect(200)).body.map((x: { name: string }) => x.name);
    expect(listed).toEqual(git('for-each-ref', '--sort=-creatordate', '--format=%(refname:lstrip=2)', 'refs/tags/').split('\n'));
    execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'tag', '-d', 'cli/notes']);
  });

  it('lists, reads (slash URL-encoded) and deletes tags', async () => {
    const list = await t.api('get', `/projects/${project.id}/repository/tags?order_by=name&sort=asc`).expect(200);
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['debian/2.0', 'v1.0']);
    expect(list.headers['x-total']).toBe('2');
    expect((await t.api('get', `/projects/${project.id}/repository/tags?search=^deb`).expect(200)).body).toHaveLength(1);
    expect((await t.api('get', `/projects/${project.id}/repository/tags/debian%2F2.0`).expect(200)).body.name).toBe('debian/2.0');
    await t.api('delete', `/projects/${project.id}/repository/tags/v1.0`).expect(204);
    expect(() => git('rev-parse', '--verify', 'refs/tags/v1.0')).toThrow();
    await t.api('get', `/projects/${project.id}/repository/tags/v1.0`).expect(404, { message: '404 Tag Not Found' });
    await t.api('delete', `/projects/${project.id}/repository/tags/v1.0`).expect(404, { message: '404 Tag Not Found' });
  });

  it('refuses invalid names, option-like names, duplicates and unknown targets', async () => {
    const post = (body: object) => t.api('post', `/projects/${project.id}/repository/tags`).send(body);
    await post({ tag_name: 'HEAD', ref: 'main' }).expect(400, { message: 'Tag name invalid' });
    await post({ tag_name: '--upload-pack=x', ref: 'main' }).expect(400, { message: 'Tag name invalid' });
    await post({ tag_name: 'a..b', ref: 'main' }).expect(400, { message: 'Tag name invalid' });
    await post({ tag_name: 'v9', ref: '--all' }).expect(400, { message: 'Target --all is invalid' });
    await post({ tag_name: 'v9', ref: 'nope' }).expect(400, { message: 'Target nope is invalid' });
    await post({ tag_name: 'debian/2.0', ref: 'main' }).expect(400, { message: 'Tag debian/2.0 already exists' });
    await post({ ref: 'main' }).expect(400, { error: 'tag_name is missing' });
  });

  it('needs Developer to write and Reporter to read a private project', async () => {
    const reporter = await t.user();
    const guest = await t.user();
    const outsider = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await t.api('get', `/projects/${project.id}/repository/tags`, reporter.token).expect(200);
    await t.api('post', `/projects/${project.id}/repository/tags`, reporter.token).send({ tag_name: 'r1', ref: 'main' }).expect(403);
    await t.api('delete', `/projects/${project.id}/repository/tags/debian%2F2.0`, reporter.token).expect(403);
    await t.api('get', `/projects/${project.id}/repository/tags`, guest.token).expect(403);
    await t.api('get', `/projects/${project.id}/repository/tags`, outsider.token).expect(404, { message: '404 Project Not Found' });
  });

  it('has GraphQL twins', async () => {
    const created = await t.graphql(
      'mutation($p: ID!) { tagCreate(input: {projectPath: $p, name: "g1", ref: "main", message: "m"}) { tag { name message commit { sha } } errors } }',
      { p: 'acme/app' },
    );
    expect(created.body.data.tagCreate).toEqual({ tag: { name: 'g1', message: 'm', commit: { sha: head } }, errors: [] });
    const dup = await t.graphql('mutation { tagCreate(input: {projectPath: "acme/app", name: "g1", ref: "main"}) { tag { name } errors } }');
    expect(dup.body.data.tagCreate).toEqual({ tag: null, errors: ['Tag g1 already exists'] });
    const read = await t.graphql(
      '{ project(fullPath: "acme/app") { repository { tags(orderBy: name) { count nodes { name } } tag(name: "g1") { target } } } }',
    );
    expect(read.body.data.project.repository.tags.count).toBe(2);
    expect(read.body.data.project.repository.tag.target).toMatch(/^[0-9a-f]{40}$/);
    const deleted = await t.graphql('mutation { tagDelete(input: {projectPath: "acme/app", name: "g1"}) { tag { name } errors } }');
    expect(deleted.body.data.tagDelete).toEqual({ tag: { name: 'g1' }, errors: [] });
  });
});
