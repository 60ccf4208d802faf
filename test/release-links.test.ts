import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
const links = (tag = 'v1%2F0') => `/projects/${project.id}/releases/${tag}/assets/links`;

async function member(accessLevel: number) {
  const u = await t.user();
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: u.id, access_level: accessLevel }).expect(201);
  return u;
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1/0', ref: 'main' }).expect(201);
});
afterAll(() => t.close());

describe('release links', () => {
  let first: { id: number };

  it('creates links with direct_asset_url and lists them newest first', async () => {
    first = (
      await t
        .api('post', links())
        .send({ name: 'linux', url: 'https://example.com/linux', direct_asset_path: '/bin/linux-amd64', link_type: 'package' })
        .expect(201)
    ).body;
    expect(first).toEqual({
      id: expect.any(Number),
      name: 'linux',
      url: 'https://example.com/linux',
      direct_asset_url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/releases/v1%2F0/downloads/bin/linux-amd64`,
      link_type: 'package',
      external: true,
    });
    const second = (await t.api('post', links()).send({ name: 'docs', url: 'ftp://example.com/docs' }).expect(201)).body;
    expect(second).toMatchObject({ link_type: 'other', direct_asset_url: 'ftp://example.com/docs' });
    const list = await t.api('get', links()).expect(200);
    expect(list.body.map((l: { name: string }) => l.name)).toEqual(['docs', 'linux']);
    expect(list.headers['x-total']).toBe('2');
    expect((await t.api('get', `${links()}/${first.id}`).expect(200)).body.name).toBe('linux');
  });

  it('validates names, urls, schemes and link types', async () => {
    const dup = await t.api('post', links()).send({ name: 'linux', url: 'https://example.com/linux' }).expect(400);
    expect(dup.body).toEqual({ message: ['Url has already been taken', 'Name has already been taken'] });
    await t
      .api('post', links())
      .send({ name: 'x', url: 'javascript:alert(1)' })
      .expect(400, { message: ['Url is blocked: Only allowed schemes are http, https, ftp'] });
    await t
      .api('post', links())
      .send({ name: 'x', url: 'not a url' })
      .expect(400, { message: ['Url must be a valid URL'] });
    await t
      .api('post', links())
      .send({ name: '', url: 'https://x.test/e' })
      .expect(400, { message: ["Name can't be blank"] });
    await t.api('post', links()).send({ name: 'x', url: 'https://x.test/t', link_type: 'foo' }).expect(400, { error: 'link_type does not have a valid value' });
    await t.api('post', links()).send({ url: 'https://x.test/t' }).expect(400, { error: 'name is missing' });
  });

  it('updates (needs name or url) and deletes with the deleted link as body', async () => {
    await t.api('put', `${links()}/${first.id}`).send({}).expect(400, { error: 'name, url are missing, at least one parameter must be provided' });
    const updated = (await t.api('put', `${links()}/${first.id}`).send({ name: 'linux-amd64', direct_asset_path: '/bin/amd64' }).expect(200)).body;
    expect(updated).toMatchObject({ name: 'linux-amd64', link_type: 'package', direct_asset_url: expect.stringMatching(/\/downloads\/bin\/amd64$/) });
    await t
      .api('put', `${links()}/${first.id}`)
      .send({ url: 'ftp://example.com/docs' })
      .expect(400, { message: ['Url has already been taken'] });
    const deleted = (await t.api('delete', `${links()}/${first.id}`).expect(200)).body;
    expect(deleted.name).toBe('linux-amd64');
    await t.api('get', `${links()}/${first.id}`).expect(404, { message: '404 Not found' });
    await t.api('delete', `${links()}/${first.id}`).expect(404, { message: '404 Not found' });
  });

  it('answers 404 Not found for an unknown tag and applies the role matrix', async () => {
    await t.api('get', links('nope')).expect(404, { message: '404 Not found' });
    await t.api('post', links('nope')).send({ name: 'a', url: 'https://x.test/a' }).expect(404, { message: '404 Not found' });
    const guest = await member(10);
    const reporter = await member(20);
    const developer = await member(30);
    const outsider = await t.user();
    await t.api('get', links(), guest.token).expect(200);
    await t.api('post', links(), reporter.token).send({ name: 'r', url: 'https://x.test/r' }).expect(403);
    await t.api('get', links(), outsider.token).expect(404, { message: '404 Project Not Found' });
    const made = (await t.api('post', links(), developer.token).send({ name: 'dev', url: 'https://x.test/dev' }).expect(201)).body;
    await t.api('delete', `${links()}/${made.id}`, reporter.token).expect(403);
    await t.api('delete', `${links()}/${made.id}`, developer.token).expect(200);
  });

  it('has GraphQL twins with GitLab payloads', async () => {
    const p = project.path_with_namespace;
    const created = await t.graphql(
      `mutation { releaseAssetLinkCreate(input: {projectPath: "${p}", tagName: "v1/0", name: "g", url: "https://x.test/g", linkType: IMAGE, directAssetPath: "/img.png"}) { link { id name linkType directAssetPath } errors } }`,
    );
    const link = created.body.data.releaseAssetLinkCreate.link;
    expect(link).toMatchObject({ name: 'g', linkType: 'IMAGE', directAssetPath: '/img.png' });
    const dup = await t.graphql(
      `mutation { releaseAssetLinkCreate(input: {projectPath: "${p}", tagName: "v1/0", name: "g", url: "https://x.test/g2"}) { link { id } errors } }`,
    );
    expect(dup.body.data.releaseAssetLinkCreate).toEqual({ link: null, errors: ['Name has already been taken'] });
    const updated = await t.graphql(`mutation($id: ReleasesLinkID!) { releaseAssetLinkUpdate(input: {id: $id, name: "g2"}) { link { name } errors } }`, {
      id: link.id,
    });
    expect(updated.body.data.releaseAssetLinkUpdate).toEqual({ link: { name: 'g2' }, errors: [] });
    const deleted = await t.graphql(`mutation($id: ReleasesLinkID!) { releaseAssetLinkDelete(input: {id: $id}) { link { name } errors } }`, { id: link.id });
    expect(deleted.body.data.releaseAssetLinkDelete).toEqual({ link: { name: 'g2' }, errors: [] });
  });
});
