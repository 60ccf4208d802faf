import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueJobToken } from '../src/auth/job-tokens.ts';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';
import { remote, scratch } from './helpers/git-client.ts';

let t: TestApp;
let client: ReturnType<typeof scratch>;
let project: { id: number; path_with_namespace: string };
let publicProject: { id: number; path_with_namespace: string };
const users: Record<string, { id: number; username: string; token: string }> = {};

const LFS = 'application/vnd.git-lfs+json';
/** As Rails renders it. */
const LFS_TYPE = 'application/vnd.git-lfs+json; charset=utf-8';
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const objectOf = (bytes: Buffer) => ({ oid: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
/** Hrefs carry EXTERNAL_URL; the test server listens elsewhere. */
const local = (href: string) => href.replace(EXTERNAL_URL, t.base);

beforeAll(async () => {
  t = await createTestApp();
  client = scratch();
  project = (await t.api('post', '/projects').send({ name: 'Assets', visibility: 'private', initialize_with_readme: true }).expect(201)).body;
  publicProject = (await t.api('post', '/projects').send({ name: 'Open assets', visibility: 'public', initialize_with_readme: true }).expect(201)).body;
  for (const [name, level] of [
    ['developer', 30],
    ['reporter', 20],
    ['outsider', 0],
  ] as const) {
    users[name] = await t.user(name);
    if (level) await t.api('post', `/projects/${project.id}/members`).send({ user_id: users[name].id, access_level: level }).expect(201);
  }
});
afterAll(async () => {
  client.remove();
  await t.close();
});

async function batch(operation: string, objects: unknown[], authorization?: string, fullPath = project.path_with_namespace) {
  const res = await fetch(`${t.base}/${fullPath}.git/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { Accept: LFS, 'Content-Type': LFS, ...(authorization && { Authorization: authorization }) },
    body: JSON.stringify({ operation, transfers: ['basic'], objects }),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    challenge: res.headers.get('www-authenticate'),
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

describe('Git LFS batch API and basic transfer', () => {
  it('round-trips an object: upload through the batch API, download it again, and the raw files API serves it for a pushed pointer', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const object = objectOf(bytes);
    const auth = basic('oauth2', users.developer.token);

    const upload = await batch('upload', [object], auth);
    expect(upload.status).toBe(200);
    expect(upload.type).toBe(LFS_TYPE);
    const href = `${EXTERNAL_URL}/${project.path_with_namespace}.git/gitlab-lfs/objects/${object.oid}/${object.size}`;
    expect(upload.body).toEqual({
      transfer: 'basic',
      objects: [{ ...object, actions: { upload: { href, header: { Authorization: auth, 'Content-Type': 'application/octet-stream' } } } }],
    });

    const wrong = await fetch(local(href), {
      method: 'PUT',
      headers: { Authorization: auth, 'Content-Type': 'application/octet-stream' },
      body: Buffer.concat([bytes.subarray(1), Buffer.from('x')]),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toBe('SHA256 or size mismatch');
    expect((await batch('download', [object], auth)).body.objects[0].error.code).toBe(404);

    const put = await fetch(local(href), { method: 'PUT', headers: { Authorization: auth, 'Content-Type': 'application/octet-stream' }, body: bytes });
    expect(put.status).toBe(200);
    expect((await batch('upload', [object], auth)).body.objects).toEqual([object]); // stored: nothing to upload

    const download = await batch('download', [object], basic('oauth2', users.reporter.token));
    const action = download.body.objects[0].actions.download;
    expect(download.body.objects[0]).not.toHaveProperty('authenticated');
    expect(action).toEqual({
      href: `${EXTERNAL_URL}/${project.path_with_namespace}.git/gitlab-lfs/objects/${object.oid}`,
      header: { Authorization: basic('oauth2', users.reporter.token) },
    });
    const got = await fetch(local(action.href), { headers: action.header });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(object.size));
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    // The pointer arrives by git push; the raw files API resolves it to the stored object.
    const dir = path.join(client.dir, 'pointer');
    await client.ok(['clone', remote(t.base, project.path_with_namespace, 'oauth2', users.developer.token), dir]);
    await client.ok(['checkout', '-q', '-b', 'assets'], { cwd: dir });
    fs.writeFileSync(path.join(dir, 'big.bin'), `version https://git-lfs.github.com/spec/v1\noid sha256:${object.oid}\nsize ${object.size}\n`);
    await client.ok(['add', 'big.bin'], { cwd: dir });
    await client.ok(['commit', '-q', '-m', 'track big.bin with LFS'], { cwd: dir });
    await client.ok(['push', 'origin', 'assets'], { cwd: dir });
    const raw = await t.api('get', `/projects/${project.id}/repository/files/big.bin/raw?ref=assets&lfs=true`, users.reporter.token).buffer(true).expect(200);
    expect(Buffer.from(raw.body).equals(bytes)).toBe(true);
  });

  it('answers each object it cannot serve with an error of its own', async () => {
    const missing = objectOf(Buffer.from('never uploaded'));
    const res = await batch('download', [missing, { oid: 'not-a-sha', size: 1 }, { oid: missing.oid, size: -1 }], basic('oauth2', users.reporter.token));
    expect(res.status).toBe(200);
    expect(res.body.objects[0]).toEqual({
      ...missing,
      error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" },
    });
    expect(res.body.objects[1].error.code).toBe(422);
    expect(res.body.objects[2].error.code).toBe(422);
  });

  it('refuses as GitLab does: 401 with the challenge for anonymous, 404 for outsiders, 403 for a Reporter uploading or a job token', async () => {
    const object = objectOf(Buffer.from('perm'));
    const anonymous = await batch('download', [object]);
    expect([anonymous.status, anonymous.challenge]).toEqual([401, 'Basic realm="GitLab"']);
    const outsider = await batch('download', [object], basic('oauth2', users.outsider.token));
    expect([outsider.status, outsider.type, outsider.body]).toEqual([404, LFS_TYPE, { message: 'Not found.', documentation_url: `${EXTERNAL_URL}/help` }]);
    const reporter = await batch('upload', [object], basic('oauth2', users.reporter.token));
    expect([reporter.status, reporter.body.message]).toEqual([403, 'Access forbidden. Check your access level.']);
    const readOnly = await batch('upload', [object], basic('oauth2', await t.token(users.developer.id, ['read_repository'])));
    expect(readOnly.status).toBe(403);
    const { token } = await issueJobToken(t.db, t.deps.secrets.tokenDigestKey, { projectId: project.id, userId: users.developer.id });
    expect((await batch('download', [object], basic('gitlab-ci-token', token))).status).toBe(200);
    expect((await batch('upload', [object], basic('gitlab-ci-token', token))).status).toBe(403);
    const put = await fetch(`${t.base}/${project.path_with_namespace}.git/gitlab-lfs/objects/${object.oid}/${object.size}`, {
      method: 'PUT',
      headers: { Authorization: basic('oauth2', users.reporter.token) },
      body: 'perm',
    });
    expect(put.status).toBe(403);
    const get = await fetch(`${t.base}/${project.path_with_namespace}.git/gitlab-lfs/objects/${object.oid}`);
    expect(get.status).toBe(401);
  });

  it('lets anyone download from a public project, marked authenticated, and asks for credentials to upload', async () => {
    const bytes = Buffer.from('public asset\n');
    const object = objectOf(bytes);
    const href = `${t.base}/${publicProject.path_with_namespace}.git/gitlab-lfs/objects/${object.oid}/${object.size}`;
    expect((await fetch(href, { method: 'PUT', headers: { Authorization: basic('root', t.root.token) }, body: bytes })).status).toBe(200);
    const download = await batch('download', [object], undefined, publicProject.path_with_namespace);
    expect(download.body.objects[0]).toMatchObject({ ...object, authenticated: true, actions: { download: { header: {} } } });
    const got = await fetch(local(download.body.objects[0].actions.download.href));
    expect(await got.text()).toBe('public asset\n');
    expect((await batch('upload', [object], undefined, publicProject.path_with_namespace)).status).toBe(401);
  });

  it('answers malformed batch requests with 422', async () => {
    const auth = basic('oauth2', users.developer.token);
    expect((await batch('delete', [objectOf(Buffer.from('x'))], auth)).status).toBe(422);
    const notJson = await fetch(`${t.base}/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': LFS },
      body: '{',
    });
    expect([notJson.status, (await notJson.json()).message]).toEqual([422, 'The request body is not valid JSON']);
    const deep = await fetch(`${t.base}/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': LFS },
      body: '['.repeat(5000) + ']'.repeat(5000),
    });
    expect([deep.status, (await deep.json()).message]).toEqual([422, 'Parameters nested too deeply']);
    const empty = await batch('download', [], auth);
    expect([empty.status, empty.body.message]).toEqual([404, 'Not found.']);
  });
});
