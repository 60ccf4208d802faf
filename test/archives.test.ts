import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { createContext } from '../src/core/context.ts';
import type { Readable } from 'node:stream';
import { openArchive } from '../src/modules/archives/service.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let head: string;
let dir: string;

const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

/** The file list of an archive, as the system's tar or unzip reads it. */
function listing(bytes: Buffer, format: string): string[] {
  const file = path.join(dir, `a.${format}`);
  fs.writeFileSync(file, bytes);
  const out =
    format === 'zip' ? execFileSync('unzip', ['-Z1', file]) : execFileSync('tar', [format === 'tar.gz' ? '-tzf' : format === 'tar.bz2' ? '-tjf' : '-tf', file]);
  return out.toString().trim().split('\n');
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  head = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'rev-parse', 'main'])
    .toString()
    .trim();
  await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'rel/v1', ref: 'main' }).expect(201);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archives-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

describe('archives', () => {
  it.each(['zip', 'tar.gz', 'tar.bz2', 'tar'])('serves a %s that the system tools read, over the API', async (format) => {
    const res = await t.api('get', `/projects/${project.id}/repository/archive.${format}?sha=rel/v1`).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-disposition']).toContain(`app-rel-v1-${head}.${format}`);
    expect(listing(res.body, format)).toContain(`app-rel-v1-${head}/README.md`);
  });

  it('answers with Workhorse headers: an attachment, binary, zip typed and every tar as octet-stream', async () => {
    const zip = await t.api('get', `/projects/${project.id}/repository/archive.zip?sha=rel/v1`).buffer(true).parse(binary).expect(200);
    expect(zip.headers).toMatchObject({
      'content-type': 'application/zip',
      'content-transfer-encoding': 'binary',
      'content-disposition': `attachment; filename="app-rel-v1-${head}.zip"`,
    });
    for (const format of ['tar.gz', 'tar.bz2', 'tar']) {
      const res = await t.api('get', `/projects/${project.id}/repository/archive.${format}`).buffer(true).parse(binary).expect(200);
      expect(res.headers['content-type']).toBe('application/octet-stream');
    }
  });

  it.each([
    ['tgz', 'tar.gz'],
    ['gz', 'tar.gz'],
    ['tbz', 'tar.bz2'],
    ['tbz2', 'tar.bz2'],
    ['tb2', 'tar.bz2'],
    ['bz2', 'tar.bz2'],
  ])('accepts GitLab’s suffix %s as %s, over the API and at the web path', async (suffix, format) => {
    const res = await t.api('get', `/projects/${project.id}/repository/archive.${suffix}`).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="app-main-${head}.${format}"`);
    expect(res.headers['content-transfer-encoding']).toBe('binary');
    expect(listing(res.body, format)).toContain(`app-main-${head}/README.md`);
    const web = await request(t.base)
      .get(`/${project.path_with_namespace}/-/archive/main/app-main.${suffix}`)
      .set('PRIVATE-TOKEN', t.root.token)
      .buffer(true)
      .parse(binary)
      .expect(200);
    expect(web.headers['content-disposition']).toBe(`attachment; filename="app-main.${format}"`);
    expect(listing(web.body, format)).toContain(`app-main-${head}/README.md`);
  });

  it('defaults to tar.gz of the default branch and answers 404 for unknown refs', async () => {
    const res = await t.api('get', `/projects/${project.id}/repository/archive`).buffer(true).parse(binary).expect(200);
    expect(listing(res.body, 'tar.gz')).toContain(`app-main-${head}/README.md`);
    await t.api('get', `/projects/${project.id}/repository/archive.zip?sha=nope`).expect(404);
    await t.api('get', `/projects/${project.id}/repository/archive.rar`).expect(400);
  });

  it('serves every source URL of a release at its web path, with the same tokens', async () => {
    const release = (await t.api('get', `/projects/${project.id}/releases/rel%2Fv1`).expect(200)).body;
    for (const source of release.assets.sources) {
      const url = new URL(source.url);
      const res = await request(t.base).get(url.pathname).set('PRIVATE-TOKEN', t.root.token).buffer(true).parse(binary).expect(200);
      expect(listing(res.body, source.format)).toContain(`app-rel-v1-${head}/README.md`);
    }
    const zip = new URL(release.assets.sources[0].url).pathname;
    await request(t.base).get(zip).expect(404, { message: '404 Project Not Found' });
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    await request(t.base).get(zip).set('PRIVATE-TOKEN', guest.token).expect(403);
  });

  it('refuses the bytes of an archive to a viewer who may not read the code', async () => {
    const archive = { projectId: project.id, sha: head, format: 'tar' as const, prefix: 'x', path: null };
    const bytes = async (opened: Promise<{ stream: Readable }>) => Buffer.concat((await (await opened).stream.toArray()) as Buffer[]);
    const guest = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
    const as = async (id: number) => createContext(t.deps, new Viewer(await t.db.user.findUniqueOrThrow({ where: { id } }), null));
    await expect(openArchive(await as(guest.id), archive)).rejects.toMatchObject({ status: 403 });
    await expect(openArchive(createContext(t.deps, Viewer.anonymous()), archive)).rejects.toMatchObject({ status: 404 });
    expect(listing(await bytes(openArchive(await as(t.root.id), archive)), 'tar')).toContain('x/README.md');
  });
});
