import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { remote, scratch } from './helpers/git-client.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { createContext } from '../src/core/context.ts';
import { schema } from '../src/kernel.ts';
import { rawFile } from '../src/modules/repository-files/service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(projectId), ...args])
    .toString()
    .trim();

const enc = encodeURIComponent;
let projects = 0;

/** A project with a README, as root (Owner), plus helpers bound to it. */
async function project(opts: { visibility?: string; readme?: boolean } = {}) {
  const p = (
    await t
      .api('post', '/projects')
      .send({ name: `Files ${++projects}`, visibility: opts.visibility ?? 'private', initialize_with_readme: opts.readme ?? true })
      .expect(201)
  ).body;
  const base = `/projects/${p.id}/repository/files`;
  const write = (method: 'post' | 'put' | 'delete', file: string, body: Record<string, unknown>, tok?: string) =>
    t.api(method, `${base}/${enc(file)}`, tok).send({ branch: 'main', commit_message: `${method} ${file}`, ...body });
  return { ...p, base, write };
}

describe('repository files: reads', () => {
  it('returns the file object with base64 content, hashes and commit ids for branch, SHA, tag-less HEAD', async () => {
    const p = await project();
    await p.write('post', 'src/lib/a.rb', { content: 'puts 1\n' }).expect(201, { file_path: 'src/lib/a.rb', branch: 'main' });
    const touched = git(p.id, 'rev-parse', 'main');
    await p.write('post', 'other.txt', { content: 'x' }).expect(201);
    const head = git(p.id, 'rev-parse', 'main');
    const blob = git(p.id, 'rev-parse', 'main:src/lib/a.rb');
    const res = await t.api('get', `${p.base}/src%2Flib%2Fa.rb?ref=main`).expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({
      file_name: 'a.rb',
      file_path: 'src/lib/a.rb',
      size: 7,
      encoding: 'base64',
      content_sha256: createHash('sha256').update('puts 1\n').digest('hex'),
      ref: 'main',
      blob_id: blob,
      commit_id: head,
      last_commit_id: touched,
      execute_filemode: false,
      content: Buffer.from('puts 1\n').toString('base64'),
    });
    expect(Object.keys(res.body)).toEqual([
      'file_name',
      'file_path',
      'size',
      'encoding',
      'content_sha256',
      'ref',
      'blob_id',
      'commit_id',
      'last_commit_id',
      'execute_filemode',
      'content',
    ]);
    expect((await t.api('get', `${p.base}/src%2Flib%2Fa.rb?ref=${touched}`).expect(200)).body.commit_id).toBe(touched);
    expect((await t.api('get', `${p.base}/src%2Flib%2Fa.rb?ref=HEAD`).expect(200)).body.commit_id).toBe(head);
    git(p.id, 'tag', 'v1.0', touched);
    const byTag = (await t.api('get', `${p.base}/src%2Flib%2Fa.rb?ref=v1.0`).expect(200)).body;
    expect(byTag).toMatchObject({ ref: 'v1.0', commit_id: touched, last_commit_id: touched });
    await t.api('get', `${p.base}/other.txt?ref=v1.0`).expect(404, { message: '404 File Not Found' });
    expect((await t.api('get', `${p.base}/src%2Flib%2Fa%2Erb?ref=main`).expect(200)).body.file_path).toBe('src/lib/a.rb');
  });

  it('answers GitLab errors for missing file, unknown ref, missing ref and invalid paths', async () => {
    const p = await project();
    await t.api('get', `${p.base}/nope.txt?ref=main`).expect(404, { message: '404 File Not Found' });
    await t.api('get', `${p.base}/README.md?ref=nope`).expect(404, { message: '404 Commit Not Found' });
    await t.api('get', `${p.base}/README.md`).expect(400, { error: 'ref is missing' });
    await t.api('get', `${p.base}/README.md?ref=`).expect(400, { error: 'ref is empty' });
    for (const bad of ['%2e%2e%2fetc%2fpasswd', '..%2F..%2Fconfig', '%2Fetc%2Fpasswd.rb', 'a%2F..%2F..%2Fb', '..']) {
      await t.api('get', `${p.base}/${bad}?ref=main`).expect(400, { error: 'file_path should be a valid file path' });
    }
    await t.api('get', `/projects/999999/repository/files/README.md?ref=main`).expect(404, { message: '404 Project Not Found' });
    // A directory is not a file.
    await p.write('post', 'dir/f.txt', { content: 'f' }).expect(201);
    await t.api('get', `${p.base}/dir?ref=main`).expect(404, { message: '404 File Not Found' });
  });

  it('HEAD answers the metadata as X-Gitlab-* and X-Service-* headers without a body', async () => {
    const p = await project();
    const res = await t.api('head', `${p.base}/README.md?ref=main`).expect(200);
    const blob = git(p.id, 'rev-parse', 'main:README.md');
    const sha = git(p.id, 'rev-parse', 'main');
    for (const brand of ['Gitlab', 'Service']) {
      const h = (name: string) => res.headers[`x-${brand.toLowerCase()}-${name}`];
      expect(h('blob-id')).toBe(blob);
      expect(h('commit-id')).toBe(sha);
      expect(h('last-commit-id')).toBe(sha);
      expect(h('file-name')).toBe('README.md');
      expect(h('file-path')).toBe('README.md');
      expect(h('ref')).toBe('main');
      expect(h('encoding')).toBe('base64');
      expect(h('execute-filemode')).toBe('false');
      expect(Number(h('size'))).toBeGreaterThan(0);
      expect(h('content-sha256')).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(res.text ?? '').toBe('');
    await t.api('head', `${p.base}/nope?ref=main`).expect(404);
    await t.api('head', `${p.base}/README.md?ref=nope`).expect(404);
    const blame = await t.api('head', `${p.base}/README.md/blame?ref=main`).expect(200);
    expect(blame.headers['x-gitlab-blob-id']).toBe(blob);
  });
});

describe('repository files: raw', () => {
  it('serves the raw bytes with headers, disposition, no-cache and a content type; ref defaults to the default branch', async () => {
    const p = await project();
    await p.write('post', 'docs/notes.txt', { content: 'hello raw\n' }).expect(201);
    const res = await t.api('get', `${p.base}/docs%2Fnotes.txt/raw`).expect(200);
    expect(res.text).toBe('hello raw\n');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`inline; filename="notes.txt"; filename*=UTF-8''notes.txt`);
    expect(res.headers['cache-control']).toBe('max-age=0, private, must-revalidate, no-store, no-cache');
    expect(res.headers.expires).toBe('Fri, 01 Jan 1990 00:00:00 GMT');
    expect(res.headers['x-gitlab-blob-id']).toBe(git(p.id, 'rev-parse', 'main:docs/notes.txt'));
    expect(res.headers['x-service-ref']).toBe('HEAD');
    const head = await t.api('head', `${p.base}/docs%2Fnotes.txt/raw?ref=main`).expect(200);
    expect(head.headers['x-gitlab-size']).toBe('10');
    await t.api('get', `${p.base}/missing/raw`).expect(404, { message: '404 File Not Found' });
    // The raw route accepts a leading separator, as GitLab's does.
    expect((await t.api('get', `${p.base}/%2Fdocs%2Fnotes.txt/raw`).expect(200)).text).toBe('hello raw\n');
  });

  it('streams big and binary blobs byte for byte', async () => {
    const p = await project();
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    await p.write('post', 'big.bin', { content: big.toString('base64'), encoding: 'base64' }).expect(201);
    const res = await t
      .api('get', `${p.base}/big.bin/raw?ref=main`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe(String(big.length));
    expect(Buffer.compare(res.body as Buffer, big)).toBe(0);
    expect(res.headers['x-gitlab-content-sha256']).toBe(createHash('sha256').update(big).digest('hex'));
  });

  it('serves the LFS object for a pointer with lfs=true when the project store has it', async () => {
    const p = await project();
    const object = Buffer.from('the real large file\n');
    const oid = createHash('sha256').update(object).digest('hex');
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${object.length}\n`;
    await p.write('post', 'asset.psd', { content: pointer }).expect(201);
    await p.write('post', 'plain.txt', { content: 'not a pointer' }).expect(201);
    await t.api('get', `${p.base}/asset.psd/raw?ref=main&lfs=true`).expect(404);
    const dir = path.join(t.config.dataDir, 'lfs-objects', String(p.id), oid.slice(0, 2), oid.slice(2, 4));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, oid), object);
    expect((await t.api('get', `${p.base}/asset.psd/raw?ref=main&lfs=true`).expect(200)).text).toBe(object.toString());
    expect((await t.api('get', `${p.base}/asset.psd/raw?ref=main`).expect(200)).text).toBe(pointer);
    expect((await t.api('get', `${p.base}/plain.txt/raw?ref=main&lfs=true`).expect(200)).text).toBe('not a pointer');
    const gql = await t.graphql(
      `{ project(id: ${p.id}) { repository { blobs(paths: ["asset.psd", "plain.txt"], ref: "main") { nodes { path lfsOid storedExternally } } } } }`,
    );
    expect(gql.body.data.project.repository.blobs.nodes).toEqual([
      { path: 'asset.psd', lfsOid: oid, storedExternally: true },
      { path: 'plain.txt', lfsOid: null, storedExternally: false },
    ]);
  });
});

describe('repository files: writes', () => {
  it('creates, updates and deletes files, each as one commit by the token user in UTC', async () => {
    const p = await project();
    const before = Number(git(p.id, 'rev-list', '--count', 'main'));
    await p.write('post', 'app/run.sh', { content: '#!/bin/sh\n', execute_filemode: true }).expect(201, { file_path: 'app/run.sh', branch: 'main' });
    expect(git(p.id, 'ls-tree', 'main', 'app/run.sh')).toMatch(/^100755 blob/);
    expect((await t.api('get', `${p.base}/app%2Frun.sh?ref=main`).expect(200)).body.execute_filemode).toBe(true);
    expect(git(p.id, 'log', '-1', '--format=%an|%ae|%cn|%ce|%ad|%s', '--date=iso', 'main')).toMatch(
      /^Administrator\|admin@example.com\|Administrator\|admin@example.com\|.* \+0000\|post app\/run.sh$/,
    );
    await p
      .write('put', 'app/run.sh', { content: 'ZWNobyBoaQo=', encoding: 'base64', author_name: 'Ann', author_email: 'ann@example.com' })
      .expect(200, { file_path: 'app/run.sh', branch: 'main' });
    expect(git(p.id, 'show', 'main:app/run.sh')).toBe('echo hi');
    expect(git(p.id, 'ls-tree', 'main', 'app/run.sh')).toMatch(/^100755 blob/);
    expect(git(p.id, 'log', '-1', '--format=%an|%ae|%cn', 'main')).toBe('Ann|ann@example.com|Administrator');
    const res = await p.write('delete', 'app/run.sh', {}).expect(204);
    expect(res.text).toBe('');
    expect(git(p.id, 'ls-tree', 'main', 'app')).toBe('');
    expect(Number(git(p.id, 'rev-list', '--count', 'main'))).toBe(before + 3);
    expect(git(p.id, 'fsck', '--no-dangling')).toBe('');
  });

  it('answers every refused write with GitLab status and message', async () => {
    const p = await project();
    await p.write('post', 'README.md', { content: 'x' }).expect(400, { message: 'A file with this name already exists' });
    await p.write('put', 'nope.txt', { content: 'x' }).expect(400, { message: "A file with this name doesn't exist" });
    await p.write('delete', 'nope.txt', {}).expect(400, { message: "A file with this name doesn't exist" });
    await p.write('post', 'a/../b.txt', { content: 'x' }).expect(400, { error: 'file_path should be a valid file path' });
    const readme = git(p.id, 'show', 'main:README.md');
    await p
      .write('put', 'README.md', { content: `${readme}\n` })
      .expect(400, { message: 'No changes were made: the new content is the same as the current content' });
    await p
      .write('post', 'n.txt', { content: 'x', start_branch: 'ghost', branch: 'feature' })
      .expect(400, { message: 'You can only create or edit files when you are on a branch' });
    await p.write('post', 'n.txt', { content: 'x', branch: 'ghost' }).expect(400, { message: 'You can only create or edit files when you are on a branch' });
    await p.write('post', 'n.txt', { content: 'x' }).send({ commit_message: '' }).expect(400, { error: 'commit_message is empty' });
    await t.api('post', `${p.base}/n.txt`).send({ content: 'x' }).expect(400, { error: 'branch is missing, commit_message is missing' });
    await p.write('post', 'n.txt', {}).expect(400, { error: 'content is missing' });
    await p.write('post', 'n.txt', { content: 'x', encoding: 'hex' }).expect(400, { error: 'encoding does not have a valid value' });
    await p.write('post', 'README.md/inner.txt', { content: 'x' }).expect(400, { message: 'A file with this name already exists' });
    await p.write('post', 'dir/a.txt', { content: 'x' }).expect(201);
    await p.write('post', 'dir', { content: 'x' }).expect(400, { message: 'A directory with this name already exists' });
    await p.write('post', '.git/config', { content: 'x' }).expect(400, { message: 'Path cannot include directory traversal' });
  });

  it('creates a branch from start_branch, refuses an existing target, and writes into an empty repository', async () => {
    const p = await project();
    await p.write('post', 'f.txt', { content: 'feature', branch: 'feature', start_branch: 'main' }).expect(201, { file_path: 'f.txt', branch: 'feature' });
    expect(git(p.id, 'rev-parse', 'feature~1')).toBe(git(p.id, 'rev-parse', 'main'));
    await p.write('post', 'g.txt', { content: 'x', branch: 'feature', start_branch: 'main' }).expect(400, {
      message: "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    });
    await p.write('post', 'g.txt', { content: 'x', branch: 'bad..name', start_branch: 'main' }).expect(400);
    const empty = await project({ readme: false });
    await empty.write('post', 'first.txt', { content: 'one' }).expect(201);
    expect(git(empty.id, 'show', 'main:first.txt')).toBe('one');
    expect(git(empty.id, 'rev-list', '--count', 'main')).toBe('1');
  });

  it('refuses a stale last_commit_id on update and delete', async () => {
    const p = await project();
    await p.write('post', 'c.txt', { content: 'v1' }).expect(201);
    const v1 = git(p.id, 'rev-parse', 'main');
    await p.write('put', 'c.txt', { content: 'v2', last_commit_id: v1 }).expect(200);
    await p.write('put', 'c.txt', { content: 'v3', last_commit_id: v1 }).expect(400, {
      message: 'You are attempting to update a file that has changed since you started editing it.',
    });
    await p.write('delete', 'c.txt', { last_commit_id: v1 }).expect(400, { message: 'You are attempting to delete a file that has been previously updated.' });
    expect(git(p.id, 'show', 'main:c.txt')).toBe('v2');
  });

  it('keeps every one of 20 concurrent updates or refuses it: no lost write', async () => {
    const p = await project();
    await p.write('post', 'counter.txt', { content: 'start' }).expect(201);
    const base = git(p.id, 'rev-parse', 'main');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => p.write('put', 'counter.txt', { content: `value ${i}`, commit_message: `update ${i}` })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 400)).toBe(true);
    const won = answers.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(won.length).toBeGreaterThan(0);
    for (const lost of answers.filter((r) => r.status === 400)) expect(lost.body.message).toMatch(/Please refresh and try again|You can only create/);
    const log = git(p.id, 'log', '--format=%s', `${base}..main`).split('\n');
    expect(log.sort()).toEqual(won.map((i) => `update ${i}`).sort());
    const lastSubject = git(p.id, 'log', '-1', '--format=%s', 'main');
    expect(git(p.id, 'show', 'main:counter.txt')).toBe(`value ${lastSubject.replace('update ', '')}`);
    expect(git(p.id, 'fsck', '--no-dangling')).toBe('');
  });
});

describe('repository files: blame', () => {
  async function blamed() {
    const p = await project();
    await p.write('post', 'poem.txt', { content: 'one\ntwo\nthree\nfour\n' }).expect(201);
    const first = git(p.id, 'rev-parse', 'main');
    await p.write('put', 'poem.txt', { content: 'one\nTWO\nthree\nfour\nfive\n' }).expect(200);
    const second = git(p.id, 'rev-parse', 'main');
    return { p, first, second };
  }

  it('groups consecutive lines of one commit and clips the range', async () => {
    const { p, first, second } = await blamed();
    const all = (await t.api('get', `${p.base}/poem.txt/blame?ref=main`).expect(200)).body;
    expect(all.map((r: { commit: { id: string }; lines: string[] }) => [r.commit.id, r.lines])).toEqual([
      [first, ['one']],
      [second, ['TWO']],
      [first, ['three', 'four']],
      [second, ['five']],
    ]);
    expect(Object.keys(all[0].commit).sort()).toEqual(
      ['authored_date', 'author_email', 'author_name', 'committed_date', 'committer_email', 'committer_name', 'id', 'message', 'parent_ids'].sort(),
    );
    const part = (await t.api('get', `${p.base}/poem.txt/blame?ref=main&range[start]=2&range[end]=4`).expect(200)).body;
    expect(part.map((r: { lines: string[] }) => r.lines)).toEqual([['TWO'], ['three', 'four']]);
    const clipped = (await t.api('get', `${p.base}/poem.txt/blame?ref=main&range[start]=4&range[end]=99`).expect(200)).body;
    expect(clipped.map((r: { lines: string[] }) => r.lines)).toEqual([['four'], ['five']]);
    await t.api('get', `${p.base}/nope.txt/blame?ref=main`).expect(404, { message: '404 File Not Found' });
    await t.api('get', `${p.base}/poem.txt/blame?ref=nope`).expect(404, { message: '404 Commit Not Found' });
  });

  it('validates the range exactly as GitLab', async () => {
    const { p } = await blamed();
    const blame = (q: string) => t.api('get', `${p.base}/poem.txt/blame?ref=main&${q}`);
    await blame('range[start]=3&range[end]=2').expect(400, { message: 'range[start] must be less than or equal to range[end]' });
    await blame('range[start]=2').expect(400, { error: 'range[end] is missing, range[end] is empty' });
    await blame('range[start]=-1&range[end]=-2').expect(400, { error: 'range[start] does not have a valid value, range[end] does not have a valid value' });
    await blame('range[start]=&range[end]=').expect(400, { error: 'range[start] is empty, range[end] is empty' });
    await blame('range[start]=a&range[end]=2').expect(400, { error: 'range[start] is invalid' });
  });
});

describe('repository files: who may do what', () => {
  it('lets anonymous read public code, and scopes read_repository/read_api read but not write', async () => {
    const pub = await project({ visibility: 'public' });
    await t.api('get', `${pub.base}/README.md?ref=main`, null).expect(200);
    await t.api('get', `${pub.base}/README.md/raw`, null).expect(200);
    await pub.write('post', 'anon.txt', { content: 'x' }, null as unknown as string).expect(401);
    for (const scope of ['read_repository', 'read_api'] as const) {
      const tok = await t.token(t.root.id, [scope]);
      await t.api('get', `${pub.base}/README.md?ref=main`, tok).expect(200);
      await t.api('head', `${pub.base}/README.md?ref=main`, tok).expect(200);
      const refused = await pub.write('post', `${scope}.txt`, { content: 'x' }, tok).expect(403);
      expect(refused.body.error).toBe('insufficient_scope');
    }
  });

  it('declares no mutation open to a git-only scope (write_repository, read_repository)', () => {
    const declared = Object.values(schema.getMutationType()!.getFields()).map(
      (field) => [field.name, (field.extensions as { scopes?: string[] }).scopes ?? []] as const,
    );
    expect(declared.filter(([, scopes]) => scopes.some((s) => s === 'write_repository' || s === 'read_repository'))).toEqual([]);
    // Positive control: the declarations are read where they exist (a mutation open to self_rotate).
    expect(declared.some(([, scopes]) => scopes.includes('self_rotate'))).toBe(true);
  });

  it('refuses every API write to a write_repository token (git over HTTP only), which still pushes', async () => {
    const p = await project();
    const writer = await t.token(t.root.id, ['write_repository']);
    const insufficient = (res: { body: { error?: string; scope?: string } }) => expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    insufficient(await p.write('post', 'via-write-repository.txt', { content: 'x' }, writer).expect(403));
    insufficient(await p.write('put', 'README.md', { content: 'x' }, writer).expect(403));
    insufficient(await p.write('delete', 'README.md', {}, writer).expect(403));
    const commits = `/projects/${p.id}/repository/commits`;
    const action = { action: 'create', file_path: 'c.txt', content: 'c' };
    insufficient(
      await t
        .api('post', commits, writer)
        .send({ branch: 'main', commit_message: 'c', actions: [action] })
        .expect(403),
    );
    const branches = `/projects/${p.id}/repository/branches`;
    insufficient(await t.api('post', branches, writer).send({ branch: 'topic', ref: 'main' }).expect(403));
    await t.api('post', branches).send({ branch: 'doomed', ref: 'main' }).expect(201);
    insufficient(await t.api('delete', `${branches}/doomed`, writer).expect(403));
    const mutations = [
      `mutation { commitCreate(input: { projectPath: "${p.path_with_namespace}", branch: "main", message: "c", actions: [{ action: CREATE, filePath: "g.txt", content: "g" }] }) { errors } }`,
      `mutation { createBranch(input: { projectPath: "${p.path_with_namespace}", name: "gql", ref: "main" }) { errors } }`,
      `mutation { branchDelete(input: { projectPath: "${p.path_with_namespace}", name: "doomed" }) { errors } }`,
    ];
    for (const mutation of mutations) {
      const res = await t.graphql(mutation, {}, writer);
      expect(res.body.data ?? null, mutation).toBeNull();
      expect(res.body.errors[0].extensions.code, mutation).toBe('INSUFFICIENT_SCOPE');
    }
    // Nothing was written: the branch to delete is still there, and main has only the README commit.
    expect(git(p.id, 'branch', '--list', 'doomed', 'topic', 'gql')).toBe('doomed');
    expect(git(p.id, 'rev-list', '--count', 'main')).toBe('1');
    // The same token pushes over git HTTP (GitLab's purpose for the scope).
    const client = scratch();
    try {
      const work = path.join(client.dir, 'work');
      await client.ok(['clone', '-q', remote(t.base, p.path_with_namespace, 'oauth2', writer), work]);
      fs.writeFileSync(path.join(work, 'pushed.txt'), 'p\n');
      await client.ok(['add', 'pushed.txt'], { cwd: work });
      await client.ok(['commit', '-q', '-m', 'pushed'], { cwd: work });
      await client.ok(['push', '-q', 'origin', 'HEAD:refs/heads/pushed'], { cwd: work });
    } finally {
      client.remove();
    }
    expect(git(p.id, 'log', '-1', '--format=%s', 'pushed')).toBe('pushed');
  });

  it('hides private code: non-member 404, guest 403; developers push to other branches but not the default one', async () => {
    const p = await project();
    const outsider = await t.user();
    const guest = await t.user();
    const developer = await t.user();
    const maintainer = await t.user();
    for (const [u, level] of [
      [guest, 10],
      [developer, 30],
      [maintainer, 40],
    ] as const) {
      await t.api('post', `/projects/${p.id}/members`).send({ user_id: u.id, access_level: level }).expect(201);
    }
    await t.api('get', `${p.base}/README.md?ref=main`, null).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `${p.base}/README.md?ref=main`, outsider.token).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `${p.base}/README.md?ref=main`, guest.token).expect(403);
    await t.api('get', `${p.base}/README.md/raw`, guest.token).expect(403);
    await t.api('get', `${p.base}/README.md/blame?ref=main`, guest.token).expect(403);
    await t.api('get', `${p.base}/README.md?ref=main`, developer.token).expect(200);
    await p.write('post', 'g.txt', { content: 'x', branch: 'topic', start_branch: 'main' }, guest.token).expect(403);
    await p.write('post', 'o.txt', { content: 'x' }, outsider.token).expect(404);
    await p.write('post', 'd.txt', { content: 'x' }, developer.token).expect(403, { message: 'You are not allowed to push into this branch' });
    await p.write('post', 'd.txt', { content: 'x', branch: 'topic', start_branch: 'main' }, developer.token).expect(201);
    await p.write('put', 'd.txt', { content: 'y', branch: 'topic' }, developer.token).expect(200);
    await p.write('post', 'm.txt', { content: 'x' }, maintainer.token).expect(201);
    expect(git(p.id, 'log', '-1', '--format=%an', 'topic')).toBe(developer.name);
  });
});

describe('repository files: GraphQL', () => {
  it('reads blobs, tree and blame, and writes through commitCreate with the same rules', async () => {
    const p = await project();
    await p.write('post', 'src/a.txt', { content: 'alpha\nbeta\n' }).expect(201);
    const read = await t.graphql(
      `query($id: Int!) { project(id: $id) { repository {
        blobs(paths: ["src/a.txt", "missing", "src"], ref: "main") { nodes { path name size rawTextBlob rawBlob oid executeFilemode lastCommit { sha }
          blame(fromLine: 2, toLine: 2) { firstLine groups { lineno span lines commit { sha } } } } }
        tree(path: "src", ref: "main") { blobs { nodes { name path type } } trees { nodes { name } } }
        root: tree(ref: "main") { blobs { nodes { name } } trees { nodes { name } } }
      } } }`,
      { id: p.id },
    );
    const head = git(p.id, 'rev-parse', 'main');
    const repo = read.body.data.project.repository;
    expect(repo.blobs.nodes).toEqual([
      {
        path: 'src/a.txt',
        name: 'a.txt',
        size: 11,
        rawTextBlob: 'alpha\nbeta\n',
        rawBlob: 'alpha\nbeta\n',
        oid: git(p.id, 'rev-parse', 'main:src/a.txt'),
        executeFilemode: false,
        lastCommit: { sha: head },
        blame: { firstLine: 'beta', groups: [{ lineno: 2, span: 1, lines: ['beta'], commit: { sha: head } }] },
      },
    ]);
    expect(repo.tree).toEqual({ blobs: { nodes: [{ name: 'a.txt', path: 'src/a.txt', type: 'blob' }] }, trees: { nodes: [] } });
    expect(repo.root).toEqual({ blobs: { nodes: [{ name: 'README.md' }] }, trees: { nodes: [{ name: 'src' }] } });

    const mutation = `mutation($id: Int, $actions: [CommitAction!]!, $branch: String!, $start: String) {
      commitCreate(input: {projectId: $id, branch: $branch, startBranch: $start, message: "via graphql", actions: $actions}) { commit { sha title } errors } }`;
    const created = await t.graphql(mutation, {
      id: p.id,
      branch: 'gql',
      start: 'main',
      actions: [
        { action: 'CREATE', filePath: 'g1.txt', content: 'one' },
        { action: 'UPDATE', filePath: 'src/a.txt', content: 'Z2FtbWE=', encoding: 'BASE64' },
        { action: 'DELETE', filePath: 'README.md' },
      ],
    });
    expect(created.body.data.commitCreate).toEqual({ commit: { sha: git(p.id, 'rev-parse', 'gql'), title: 'via graphql' }, errors: [] });
    expect(git(p.id, 'show', 'gql:src/a.txt')).toBe('gamma');
    expect(git(p.id, 'ls-tree', '--name-only', 'gql')).toBe('g1.txt\nsrc');
    const refused = await t.graphql(mutation, { id: p.id, branch: 'gql', actions: [{ action: 'CREATE', filePath: 'g1.txt', content: 'again' }] });
    expect(refused.body.data.commitCreate).toEqual({ commit: null, errors: ['A file with this name already exists'] });
    const readOnly = await t.token(t.root.id, ['read_repository']);
    const scoped = await t.graphql(mutation, { id: p.id, branch: 'gql', actions: [{ action: 'CREATE', filePath: 'g2.txt', content: 'x' }] }, readOnly);
    expect(scoped.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    const readable = await t.graphql(
      `{ project(id: ${p.id}) { repository { blobs(paths: ["g1.txt"], ref: "gql") { nodes { rawTextBlob } } } } }`,
      {},
      readOnly,
    );
    expect(readable.body.data.project.repository.blobs.nodes).toEqual([{ rawTextBlob: 'one' }]);
  });
});

describe('repository files: hostile path and ref parameters over HTTP', () => {
  // The whole corpus is checked as units in test/git-paths.test.ts; here each hostile path and each
  // hostile ref reaches the real routes at least once (rotating over suffixes and methods), and
  // every path is asked for raw bytes, the route that would leak a file outside the repository.
  it('always answers 4xx, never 500, and never serves a file outside the repository', async () => {
    const p = await project();
    const secret = 'forgegate-outside-secret';
    fs.writeFileSync(path.join(t.config.dataDir, 'outside.txt'), secret);
    const paths = [
      '..%2Foutside.txt',
      '..%2F..%2Foutside.txt',
      '%2e%2e%2f%2e%2e%2foutside.txt',
      '%252e%252e%252foutside.txt',
      '..%5C..%5Coutside.txt',
      '%2Fetc%2Fpasswd',
      'README.md%00.txt',
      '%00',
      'a%0Ab',
      'x'.repeat(5000),
      `${'d%2F'.repeat(400)}f`,
      '--upload-pack%3Dtouch%20%2Ftmp%2Fpwned',
      '-',
      '.',
      '.git%2Fconfig',
      'HEAD',
      '%2E%2E',
      '~',
      'README.md%2F..',
      'a%2F%2Fb',
      ':README.md',
      'main:README.md',
      '%3Amain',
    ];
    const refs = [
      '--upload-pack=touch /tmp/pwned',
      '-n',
      'main%00',
      '..',
      'main..HEAD',
      'main:README.md',
      'main^{tree}',
      'HEAD~100',
      '@{-1}',
      'x'.repeat(300),
      '%2Fetc%2Fpasswd',
      'refs/heads/../../config',
      '$(id)',
    ];
    const suffixes = ['', '/raw', '/blame'];
    const methods = ['get', 'head'] as const;
    const samples = [
      ...paths.map((file) => ({ file, ref: 'main', suffix: '/raw', method: 'get' as const })),
      ...paths.map((file, i) => ({ file, ref: refs[i % refs.length], suffix: suffixes[i % 3], method: methods[i % 2] })),
      ...refs.map((ref, i) => ({ file: 'README.md', ref, suffix: suffixes[(i + 1) % 3], method: methods[(i + 1) % 2] })),
    ];
    expect(samples.length).toBeGreaterThan(50);
    for (const { file, ref, suffix, method } of samples) {
      const res = await t.api(method, `${p.base}/${file}${suffix}?ref=${encodeURIComponent(ref)}`);
      const label = `${method} ${file.slice(0, 60)}${suffix} ref=${ref.slice(0, 40)}`;
      expect(res.status, label).toBeGreaterThanOrEqual(400);
      expect(res.status, label).toBeLessThan(500);
      expect(res.text ?? '', label).not.toContain(secret);
      expect(res.text ?? '', label).not.toContain('root:');
    }
    // Control: the same requests reach real files, so the 4xx above are the checks answering.
    await t.api('get', `${p.base}/README.md/raw?ref=main`).expect(200);
    const hostile = [
      '../outside.txt',
      '..\\..\\outside.txt',
      '%2e%2e%2foutside.txt',
      '/etc/passwd',
      'README.md\0.txt',
      'a\nb',
      'x'.repeat(5000),
      '.git/config',
      'a//b',
      './a',
      'README.md/..',
    ];
    for (const file of hostile) {
      const res = await p.write('post', file, { content: 'x' });
      expect(res.status, `post ${file}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `post ${file}`).toBeLessThan(500);
    }
    for (const branch of ['--upload-pack=x', '-b', 'a..b', 'x\0y', 'HEAD', 'refs/heads/../x']) {
      const res = await p.write('post', 'ok.txt', { content: 'x', branch, start_branch: 'main' });
      expect(res.status, `branch ${branch}`).toBe(400);
    }
    expect(fs.existsSync('/tmp/pwned')).toBe(false);
  });
});

describe('raw content outside the read operation', () => {
  it('refuses a blob by id to a viewer who may not read the code', async () => {
    const p = await project();
    const blob = git(p.id, 'rev-parse', 'main:README.md');
    const guest = await t.user();
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    const asGuest = createContext(t.deps, new Viewer(await t.db.user.findUniqueOrThrow({ where: { id: guest.id } }), null));
    const source = { projectId: p.id, oid: blob, size: 10, lfsOid: null };
    await expect(rawFile(asGuest, source, { lfs: false })).rejects.toMatchObject({ status: 403 });
    await expect(rawFile(asGuest, { ...source, lfsOid: 'a'.repeat(64) }, { lfs: true })).rejects.toMatchObject({ status: 403 });
    await expect(rawFile(createContext(t.deps, Viewer.anonymous()), source, { lfs: false })).rejects.toMatchObject({ status: 404 });
    const owner = createContext(t.deps, new Viewer(await t.db.user.findUniqueOrThrow({ where: { username: 'root' } }), null));
    const raw = await rawFile(owner, source, { lfs: false });
    expect(raw).toMatchObject({ contentType: 'text/plain; charset=utf-8' });
    expect(String(raw.body)).toContain('# Files');
  });
});
