import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueJobToken } from '../src/auth/job-tokens.ts';
import { tokenDigest } from '../src/auth/tokens.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { remote, scratch } from './helpers/git-client.ts';

let t: TestApp;
let client: ReturnType<typeof scratch>;
let project: { id: number; path_with_namespace: string; http_url_to_repo: string };
let publicProject: { id: number; path_with_namespace: string };
const users: Record<string, { id: number; username: string; token: string }> = {};

const serverGit = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(projectId), ...args])
    .toString()
    .trim();
const commitFile = (id: number, file: string, content: string, branch = 'main') =>
  t
    .api('post', `/projects/${id}/repository/files/${encodeURIComponent(file)}`)
    .send({ branch, content, commit_message: `add ${file}` })
    .expect(201);

beforeAll(async () => {
  t = await createTestApp();
  client = scratch();
  const group = (await t.api('post', '/groups').send({ name: 'Acme', path: 'acme', visibility: 'private' }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, visibility: 'private', initialize_with_readme: true }).expect(201))
    .body;
  publicProject = (await t.api('post', '/projects').send({ name: 'Open', visibility: 'public', initialize_with_readme: true }).expect(201)).body;
  for (const [name, level] of [
    ['reporter', 20],
    ['guest', 10],
    ['outsider', 0],
  ] as const) {
    users[name] = await t.user(name);
    if (level) await t.api('post', `/projects/${project.id}/members`).send({ user_id: users[name].id, access_level: level }).expect(201);
  }
  for (let i = 0; i < 3; i++) await commitFile(project.id, `src/file${i}.txt`, `content ${i}\n`.repeat(100));
});
afterAll(async () => {
  client.remove();
  await t.close();
});

const url = (login?: string, password?: string, fullPath = project.path_with_namespace) => remote(t.base, fullPath, login, password);

describe('git clone and fetch over HTTP', () => {
  it('answers at the http_url_to_repo every project advertises', () => {
    expect(project.http_url_to_repo).toBe(`http://gitlab.test/${project.path_with_namespace}.git`);
  });

  it('clones a private project for a Reporter with username and personal access token, and the history matches the server', async () => {
    const dir = path.join(client.dir, 'reporter-clone');
    await client.ok(['clone', url(users.reporter.username, users.reporter.token), dir]);
    expect(fs.readFileSync(path.join(dir, 'src/file2.txt'), 'utf8')).toBe('content 2\n'.repeat(100));
    expect(await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(serverGit(project.id, 'rev-parse', 'main'));
    expect(await client.ok(['rev-list', '--count', 'HEAD'], { cwd: dir })).toBe('4');
    expect(await client.ok(['fsck', '--strict'], { cwd: dir })).toBe('');
  });

  it('accepts the token under any username (oauth2 included), an impersonation token, and read_repository, read_api and write_repository scopes', async () => {
    const impersonation = await t.token(users.reporter.id, ['read_repository']);
    await t.db.personalAccessToken.update({ where: { digest: tokenDigest(t.deps.secrets.tokenDigestKey, impersonation) }, data: { impersonation: true } });
    for (const [login, token] of [
      ['oauth2', users.reporter.token],
      ['anything', users.reporter.token],
      ['oauth2', impersonation],
      ['oauth2', await t.token(users.reporter.id, ['read_api'])],
      ['oauth2', await t.token(users.reporter.id, ['write_repository'])],
    ]) {
      const refs = await client.ok(['ls-remote', url(login, token), 'refs/heads/main']);
      expect(refs).toBe(`${serverGit(project.id, 'rev-parse', 'main')}\trefs/heads/main`);
    }
  });

  it('refuses a token without a repository scope with GitLab message (403)', async () => {
    const result = await client.git(['ls-remote', url('oauth2', await t.token(users.reporter.id, ['read_user']))]);
    expect(result.code).toBe(128);
    expect(result.stderr).toContain('remote: You are not allowed to download code.');
    expect(result.stderr).toContain('403');
  });

  it('answers a wrong, expired or revoked token with 401 and the Basic challenge, and anonymous requests to a private project likewise', async () => {
    for (const authorization of [`Basic ${Buffer.from(`${users.reporter.username}:wrong-token`).toString('base64')}`, undefined]) {
      const res = await fetch(`${url()}/info/refs?service=git-upload-pack`, { headers: authorization ? { Authorization: authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toMatch(/^HTTP Basic: Access denied\./);
    }
    const expired = await t.token(users.reporter.id, ['read_repository'], { expiresAt: new Date('2020-01-01') });
    const revoked = await t.token(users.reporter.id, ['write_repository']);
    await t.db.personalAccessToken.update({ where: { digest: tokenDigest(t.deps.secrets.tokenDigestKey, revoked) }, data: { revoked: true } });
    for (const token of [expired, revoked]) {
      const res = await fetch(`${url()}/info/refs?service=git-upload-pack`, {
        headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` },
      });
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="GitLab"']);
    }
    const wrong = await client.git(['ls-remote', url(users.reporter.username, 'wrong-token')]);
    expect(wrong.code).toBe(128);
    expect(wrong.stderr).toContain('remote: HTTP Basic: Access denied.');
    expect(wrong.stderr).toContain('Authentication failed');
    const anonymous = await client.git(['ls-remote', url()]);
    expect(anonymous.code).toBe(128);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    // A project that does not exist looks the same to anonymous clients.
    expect((await fetch(`${url(undefined, undefined, 'acme/nothing')}/info/refs?service=git-upload-pack`)).status).toBe(401);
  });

  it('answers an outsider with a valid token 404, a Guest 403, each with GitLab message', async () => {
    const outsider = await client.git(['ls-remote', url('oauth2', users.outsider.token)]);
    expect(outsider.code).toBe(128);
    expect(outsider.stderr).toContain("remote: The project you were looking for could not be found or you don't have permission to view it.");
    expect(outsider.stderr).toContain('not found');
    const direct = await fetch(`${url()}/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${users.outsider.token}`).toString('base64')}` },
    });
    expect(direct.status).toBe(404);
    const missing = await fetch(`${url(undefined, undefined, 'acme/nothing')}/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${users.outsider.token}`).toString('base64')}` },
    });
    expect(missing.status).toBe(404);
    const guest = await client.git(['ls-remote', url('oauth2', users.guest.token)]);
    expect(guest.code).toBe(128);
    expect(guest.stderr).toContain('remote: You are not allowed to download code from this project.');
  });

  it('lets anyone clone a public project without credentials, and asks for them on push', async () => {
    const dir = path.join(client.dir, 'public-clone');
    await client.ok(['clone', url(undefined, undefined, publicProject.path_with_namespace), dir]);
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('Open');
    const res = await fetch(`${url(undefined, undefined, publicProject.path_with_namespace)}/info/refs?service=git-receive-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
  });

  it('clones with a CI job token of its own project (read only), not another private project', async () => {
    const { token } = await issueJobToken(t.db, t.deps.secrets.tokenDigestKey, { projectId: project.id, userId: users.reporter.id });
    const dir = path.join(client.dir, 'job-clone');
    await client.ok(['clone', url('gitlab-ci-token', token), dir]);
    expect(await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(serverGit(project.id, 'rev-parse', 'main'));
    const push = await fetch(`${url()}/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`gitlab-ci-token:${token}`).toString('base64')}` },
    });
    expect(push.status).toBe(403);
    expect(await push.text()).toBe('You are not allowed to upload code.');
    const other = (await t.api('post', '/projects').send({ name: 'Other', visibility: 'private', initialize_with_readme: true }).expect(201)).body;
    await t.api('post', `/projects/${other.id}/members`).send({ user_id: users.reporter.id, access_level: 20 }).expect(201);
    const elsewhere = await client.git(['ls-remote', url('gitlab-ci-token', token, other.path_with_namespace)]);
    expect(elsewhere.code).toBe(128);
    expect(elsewhere.stderr).toContain("remote: The project you were looking for could not be found or you don't have permission to view it.");
    // The same user's own token reaches the other project: the job token is what is bound.
    await client.ok(['ls-remote', url('oauth2', users.reporter.token, other.path_with_namespace)]);
  });

  it('makes shallow clones', async () => {
    const dir = path.join(client.dir, 'shallow');
    await client.ok(['clone', '--depth', '1', url('oauth2', users.reporter.token), dir]);
    expect(await client.ok(['rev-list', '--count', 'HEAD'], { cwd: dir })).toBe('1');
    expect(await client.ok(['rev-parse', '--is-shallow-repository'], { cwd: dir })).toBe('true');
    await client.ok(['fetch', '--deepen', '2'], { cwd: dir });
    expect(await client.ok(['rev-list', '--count', 'HEAD'], { cwd: dir })).toBe('3');
  });

  it('makes partial clones (--filter=blob:none) whose missing blobs are fetched later by id', async () => {
    const dir = path.join(client.dir, 'partial');
    await client.ok(['clone', '--filter=blob:none', '--no-checkout', url('oauth2', users.reporter.token), dir]);
    const missing = (await client.ok(['rev-list', '--objects', '--missing=print', 'HEAD'], { cwd: dir })).split('\n').filter((l) => l.startsWith('?'));
    expect(missing.length).toBe(4); // README and three files: no blob came with the clone
    await client.ok(['checkout', 'main'], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'src/file0.txt'), 'utf8')).toBe('content 0\n'.repeat(100));
    // Sparse filters make the server evaluate a sparse-checkout spec: refused.
    const sparse = await client.git([
      'clone',
      '--filter=sparse:oid=main:README.md',
      '--no-checkout',
      url('oauth2', users.reporter.token),
      path.join(client.dir, 'sparse'),
    ]);
    expect(sparse.code).toBe(128);
    expect(sparse.stderr).toContain("filter 'sparse:oid' not supported");
  });

  it('fetches and pulls commits made through the API, over protocol v2 and v0', async () => {
    const dir = path.join(client.dir, 'fetcher');
    await client.ok(['clone', url('oauth2', users.reporter.token), dir]);
    await commitFile(project.id, 'later.txt', 'later\n');
    await client.ok(['-c', 'protocol.version=0', 'fetch', 'origin'], { cwd: dir });
    expect(await client.ok(['rev-parse', 'origin/main'], { cwd: dir })).toBe(serverGit(project.id, 'rev-parse', 'main'));
    await commitFile(project.id, 'later2.txt', 'later 2\n');
    await client.ok(['-c', 'protocol.version=2', 'pull', '--ff-only'], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'later2.txt'), 'utf8')).toBe('later 2\n');
    expect(await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(serverGit(project.id, 'rev-parse', 'main'));
  });

  it('advertises refs in protocol v0 with the service line and in v2 as capabilities (filter included)', async () => {
    const headers = { Authorization: `Basic ${Buffer.from(`oauth2:${users.reporter.token}`).toString('base64')}` };
    const v0 = await fetch(`${url()}/info/refs?service=git-upload-pack`, { headers });
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toMatch(/no-cache/);
    const v0Text = await v0.text();
    expect(v0Text.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    expect(v0Text).toContain('filter');
    const v2 = await fetch(`${url()}/info/refs?service=git-upload-pack`, { headers: { ...headers, 'Git-Protocol': 'version=2' } });
    const v2Text = await v2.text();
    expect(v2Text.startsWith('000eversion 2\n')).toBe(true);
    expect(v2Text).toMatch(/fetch=[^\n]*filter/);
  });

  it('accepts gzip-encoded request bodies', async () => {
    const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;
    const body = `${pkt('command=ls-refs\n')}0001${pkt('ref-prefix refs/heads/\n')}0000`;
    const res = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`oauth2:${users.reporter.token}`).toString('base64')}`,
        'Git-Protocol': 'version=2',
        'Content-Type': 'application/x-git-upload-pack-request',
        'Content-Encoding': 'gzip',
      },
      body: gzipSync(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(await res.text()).toBe(`${pkt(`${serverGit(project.id, 'rev-parse', 'main')} refs/heads/main\n`)}0000`);
  });

  it('answers malformed requests with 4xx, never 500', async () => {
    const headers = { Authorization: `Basic ${Buffer.from(`oauth2:${users.reporter.token}`).toString('base64')}` };
    const wrongType = await fetch(`${url()}/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    const garbage = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-git-upload-pack-request' },
      body: 'not a pkt-line',
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.text()).toBe('The request is not a valid git request.');
    const badGzip = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
      body: 'not gzip',
    });
    expect(badGzip.status).toBe(400);
    const noService = await fetch(`${url()}/info/refs`, { headers });
    expect(noService.status).toBe(403);
    expect(await noService.text()).toBe("The command you're trying to execute is not allowed.");
    expect((await fetch(`${url()}/info/refs?service=git-upload-pack`, { method: 'HEAD', headers })).status).toBe(403);
  });

  it('redirects the address without .git to the repository', async () => {
    const res = await fetch(`${t.base}/${project.path_with_namespace}/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`);
  });
});
