import { gzipSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';
import { expectTwins } from './helpers/twins.ts';

type User = Awaited<ReturnType<TestApp['user']>>;

const binary = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};
const lines = (gz: Buffer) =>
  gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const ndjson = (objects: object[]) => gzipSync(objects.map((o) => JSON.stringify(o)).join('\n') + '\n');

let t: TestApp;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let maintainer: User;
let developer: User;
let outsider: User;
const exportsOf = (id = project.id) => `/projects/${id}/export_relations`;

beforeAll(async () => {
  t = await createTestApp();
  group = (await t.api('post', '/groups').send({ name: 'Acme', path: 'acme' }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
  maintainer = await t.user('maint');
  developer = await t.user('dev');
  outsider = await t.user('outsider');
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: developer.id, access_level: 30 }).expect(201);
});
afterAll(() => t.close());

describe('relation export routes', () => {
  it('answer 404 while bulk_import_enabled is off, whoever asks', async () => {
    await t.api('post', exportsOf()).expect(404, { message: '404 Not Found' });
    await t.api('get', `${exportsOf()}/status`).expect(404, { message: '404 Not Found' });
    await t.api('get', `${exportsOf()}/download?relation=labels`).expect(404, { message: '404 Not Found' });
    const gql = await t.graphql(`mutation { projectRelationsExport(input: { projectId: ${project.id} }) { errors } }`);
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('need Maintainer: 403 for a developer, 404 for an outsider of a private project, 401 anonymous', async () => {
    await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
    await t.api('post', exportsOf(), developer.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', `${exportsOf()}/status`, developer.token).expect(403, { message: '403 Forbidden' });
    await t.api('post', exportsOf(), outsider.token).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `${exportsOf()}/download?relation=labels`, outsider.token).expect(404, { message: '404 Project Not Found' });
    await t.api('post', exportsOf(424242)).expect(404, { message: '404 Project Not Found' });
    await t.api('post', exportsOf(), null).expect(401, { message: '401 Unauthorized' });
  });

  it('download answers GitLab texts for every missing piece, and exports belong to the user who asked', async () => {
    const dl = (query: string, token = maintainer.token) => t.api('get', `${exportsOf()}/download?${query}`, token);
    await dl('').expect(400, { error: 'relation is missing' });
    await dl('relation=issues').expect(400, { error: 'relation is not portable' });
    await t.api('get', `${exportsOf()}/status?relation=nope`, maintainer.token).expect(400, { error: 'relation is not portable' });
    // A relation never exported for this user: 404, not `200 null`.
    await t.api('get', `${exportsOf()}/status?relation=labels`, maintainer.token).expect(404, { message: 'Export not found' });
    await dl('relation=labels').expect(404, { message: 'Export not found' });
    await t.api('post', exportsOf(), maintainer.token).send({ batched: 'maybe' }).expect(400, { error: 'batched is invalid' });
    await t.api('post', exportsOf(), maintainer.token).expect(202, { message: '202 Accepted' });
    // Started, not written yet.
    await dl('relation=labels').expect(404, { message: 'Export file not found' });
    await dl('relation=labels&batched=true&batch_number=1').expect(400, { message: 'Export is not batched' });
    await dl('relation=labels&batched=true').expect(400, { error: 'batched, batch_number provide all or none of parameters' });
    await t.deps.jobs.drain();
    const file = (await dl('relation=labels').buffer(true).parse(binary).expect(200)).body as Buffer;
    expect(lines(file)).toEqual([]);
    // Root (an administrator) has no export of its own.
    await dl('relation=labels', t.root.token).expect(404, { message: 'Export not found' });
    await t.api('get', `${exportsOf()}/status`, t.root.token).expect(200, []);

    await t.api('post', exportsOf(), maintainer.token).send({ batched: true }).expect(202);
    await dl('relation=labels').expect(400, { message: 'Export is batched' });
    await dl('relation=labels&batched=true&batch_number=1').expect(404, { message: 'Batch not found' });
    await t.deps.jobs.drain();
    await dl('relation=labels&batched=true&batch_number=2').expect(404, { message: 'Batch not found' });
    await dl('relation=labels&batched=true&batch_number=1').expect(200);
    // The repository is one bundle, never batched.
    const repo = await t.api('get', `${exportsOf()}/status?relation=repository_bundle`, maintainer.token).expect(200);
    expect(repo.body).toMatchObject({ relation: 'repository_bundle', status: 1, batched: false, total_objects_count: 1 });
    expect(repo.body.batches).toBeUndefined();
  });

  it('writes thousands of records in bounded batches, and the same objects unbatched', async () => {
    const count = 2 * t.config.relationExportBatchSize + 500;
    await t.db.label.createMany({ data: Array.from({ length: count }, (_, i) => ({ projectId: project.id, name: `label-${i}`, color: '#123456' })) });
    await t.api('post', exportsOf(), maintainer.token).send({ batched: true }).expect(202);
    await t.deps.jobs.drain();
    const status = (await t.api('get', `${exportsOf()}/status?relation=labels`, maintainer.token).expect(200)).body;
    expect(status).toMatchObject({ status: 1, batched: true, batches_count: 3, total_objects_count: count });
    expect(status.batches.map((b: { batch_number: number; objects_count: number; status: number }) => [b.batch_number, b.objects_count, b.status])).toEqual([
      [1, t.config.relationExportBatchSize, 1],
      [2, t.config.relationExportBatchSize, 1],
      [3, 500, 1],
    ]);
    const names: string[] = [];
    for (const n of [1, 2, 3]) {
      const body = (
        await t.api('get', `${exportsOf()}/download?relation=labels&batched=true&batch_number=${n}`, maintainer.token).buffer(true).parse(binary).expect(200)
      ).body;
      names.push(...lines(body).map((l) => l.title));
    }
    expect(names).toHaveLength(count);
    expect(new Set(names).size).toBe(count);

    await t.api('post', exportsOf(), maintainer.token).expect(202);
    await t.deps.jobs.drain();
    const whole = (await t.api('get', `${exportsOf()}/download?relation=labels`, maintainer.token).buffer(true).parse(binary).expect(200)).body;
    expect(lines(whole).map((l) => l.title)).toEqual(names);
    await t.db.label.deleteMany({ where: { projectId: project.id } });
  });

  it('status is the same through REST and GraphQL', async () => {
    await expectTwins(
      t,
      maintainer.token,
      {
        rest: `${exportsOf()}/status?relation=milestones`,
        graphql: `query($id: ID!) { project(fullPath: $id) { relationExportStatuses(relation: "milestones") { relation status error updatedAt batched batchesCount totalObjectsCount } } }`,
        variables: { id: project.path_with_namespace },
        at: 'project.relationExportStatuses.0',
        fields: {
          relation: 'relation',
          status: 'status',
          error: 'error',
          updated_at: 'updatedAt',
          batched: 'batched',
          batches_count: 'batchesCount',
          total_objects_count: 'totalObjectsCount',
        },
      },
      'visible',
    );
    await expectTwins(
      t,
      developer.token,
      {
        rest: `${exportsOf()}/status`,
        graphql: `query($id: ID!) { project(fullPath: $id) { relationExportStatuses { relation } } }`,
        variables: { id: project.path_with_namespace },
        at: 'project.relationExportStatuses',
        fields: {},
      },
      'forbidden',
    );
  });

  it('starts through GraphQL as through REST, and describes the finished file', async () => {
    const start = await t.graphql(
      `mutation($p: ID!) { projectRelationsExport(input: { projectPath: $p, batched: false }) { statuses { relation status } errors } }`,
      { p: project.path_with_namespace },
      maintainer.token,
    );
    expect(start.body.data.projectRelationsExport.statuses).toEqual(
      ['self', 'labels', 'milestones', 'releases', 'repository_bundle', 'project_members'].map((relation) => ({ relation, status: 0 })),
    );
    const denied = await t.graphql(
      `mutation($p: ID!) { projectRelationsExport(input: { projectPath: $p }) { errors } }`,
      { p: project.path_with_namespace },
      developer.token,
    );
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    await t.deps.jobs.drain();
    const file = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { relationExportFile(relation: "self") { relation batchNumber fileName size } } }`,
      { p: project.path_with_namespace },
      maintainer.token,
    );
    const described = file.body.data.project.relationExportFile;
    expect(described).toEqual({ relation: 'self', batchNumber: null, fileName: 'self.json.gz', size: expect.any(Number) });
    const rest = await t.api('get', `${exportsOf()}/download?relation=self`, maintainer.token).buffer(true).parse(binary).expect(200);
    expect(rest.headers['content-length']).toBe(String(described.size));
    const missing = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { relationExportFile(relation: "self", batched: true, batchNumber: 1) { size } } }`,
      { p: project.path_with_namespace },
      maintainer.token,
    );
    expect(missing.body.errors[0].message).toBe('Export is not batched');
  });

  it('records a relation that could not be written as failed (-1), without internals', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const dir = path.join(t.config.dataDir, 'relation-exports', String(project.id), String(maintainer.id));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.writeFileSync(dir, 'in the way');
    try {
      await t.api('post', exportsOf(), maintainer.token).expect(202);
      await t.deps.jobs.drain();
      const status = (await t.api('get', `${exportsOf()}/status?relation=labels`, maintainer.token).expect(200)).body;
      expect(status).toMatchObject({ relation: 'labels', status: -1, error: 'The labels relation could not be exported' });
      await t.api('get', `${exportsOf()}/download?relation=labels`, maintainer.token).expect(404, { message: 'Export file not found' });
    } finally {
      fs.rmSync(dir, { force: true });
    }
  });

  it('starts, reads and downloads through gitbeaker (ProjectRelationsExport)', async () => {
    const api = gitbeaker(t.base, maintainer.token);
    expect(await api.ProjectRelationsExport.scheduleExport(project.id)).toEqual({ message: '202 Accepted' });
    await t.deps.jobs.drain();
    const statuses = (await api.ProjectRelationsExport.showExportStatus(project.id)) as unknown as { relation: string; status: number }[];
    expect(statuses.map((s) => [s.relation, s.status])).toEqual([
      ['self', 1],
      ['labels', 1],
      ['milestones', 1],
      ['releases', 1],
      ['repository_bundle', 1],
      ['project_members', 1],
    ]);
    const blob = (await api.ProjectRelationsExport.download(project.id, 'self')) as unknown as Blob;
    expect(lines(Buffer.from(await blob.arrayBuffer()))).toEqual([expect.objectContaining({ name: 'App', path: 'app' })]);
    await expect(gitbeaker(t.base, developer.token).ProjectRelationsExport.scheduleExport(project.id)).rejects.toThrow('403 Forbidden');
  });
});

describe('POST /projects/import-relation', () => {
  const post = (token: string | null = maintainer.token) => t.api('post', '/projects/import-relation', token);
  const labels = ndjson([{ name: 'imported', color: '#ff0000' }]);

  it('refuses bad input with Grape-style 400s, and unknown or unreachable projects', async () => {
    await post().field('path', project.path_with_namespace).field('relation', 'labels').expect(400, { error: 'file is missing' });
    await post().field('path', project.path_with_namespace).field('relation', 'labels').field('file', 'text').expect(400, { error: 'file is invalid' });
    await post().send({ path: project.path_with_namespace, relation: 'labels' }).expect(400, { error: 'file is missing' });
    await post().field('relation', 'labels').attach('file', labels, 'labels.ndjson.gz').expect(400, { error: 'path is missing' });
    await post()
      .field('path', project.path_with_namespace)
      .field('relation', 'issues')
      .attach('file', labels, 'x.ndjson.gz')
      .expect(400, { error: 'relation does not have a valid value' });
    await post().field('path', 'acme/nope').field('relation', 'labels').attach('file', labels, 'x.ndjson.gz').expect(404, { message: '404 Project Not Found' });
    await post(outsider.token)
      .field('path', project.path_with_namespace)
      .field('relation', 'labels')
      .attach('file', labels, 'x.ndjson.gz')
      .expect(404, { message: '404 Project Not Found' });
    await post(developer.token)
      .field('path', project.path_with_namespace)
      .field('relation', 'labels')
      .attach('file', labels, 'x.ndjson.gz')
      .expect(403, { message: '403 Forbidden' });
    await post(null).field('path', project.path_with_namespace).field('relation', 'labels').attach('file', labels, 'x.ndjson.gz').expect(401);
    await post().field('path', project.path_with_namespace).field('relation', 'labels').attach('file', Buffer.from('not gzip'), 'x.ndjson.gz').expect(400, {
      message: 'The relation file could not be imported: The file is not gzip-compressed newline-delimited JSON',
    });
    await post()
      .field('path', project.path_with_namespace)
      .field('relation', 'labels')
      .attach('file', gzipSync('{"name":"a"}\n[1]\n'), 'x.ndjson.gz')
      .expect(400, {
        message: 'The relation file could not be imported: Line 2 is not a JSON object',
      });
    await post()
      .field('path', project.path_with_namespace)
      .field('relation', 'repository_bundle')
      .attach('file', Buffer.from('garbage'), 'r.bundle')
      .expect(400, {
        message: 'The relation file could not be imported: The file is not a valid git bundle',
      });
    expect(await t.db.label.count({ where: { projectId: project.id, name: 'a' } })).toBe(0);
  });

  it("imports GitLab's own records: label titles and priorities, milestones, releases by tag with milestone_releases", async () => {
    const at = '2024-03-01T10:00:00.000Z';
    const upload = (relation: string, records: object[]) =>
      post().field('path', project.path_with_namespace).field('relation', relation).attach('file', ndjson(records), `${relation}.ndjson.gz`).expect(201);
    await upload('labels', [
      {
        id: 7,
        title: 'from-gitlab',
        color: '#428bca',
        project_id: 99,
        created_at: at,
        updated_at: at,
        template: false,
        description: 'd',
        type: 'ProjectLabel',
        priorities: [{ project_id: 99, priority: 3, created_at: at, updated_at: at }],
      },
    ]);
    expect(await t.db.label.findFirst({ where: { projectId: project.id, name: 'from-gitlab' } })).toMatchObject({
      color: '#428BCA',
      description: 'd',
      priority: 3,
    });
    await upload('milestones', [
      {
        id: 8,
        title: 'gl-milestone',
        project_id: 99,
        description: 'm',
        due_date: '2024-04-01',
        created_at: at,
        updated_at: at,
        state: 'closed',
        iid: 4,
        events: [],
      },
    ]);
    expect(await t.db.milestone.findFirst({ where: { projectId: project.id, title: 'gl-milestone' } })).toMatchObject({ state: 'closed', description: 'm' });
    await upload('releases', [
      {
        id: 9,
        tag: 'gl-1.0',
        description: 'notes',
        project_id: 99,
        created_at: at,
        updated_at: at,
        author_id: 4242,
        name: 'GitLab 1.0',
        sha: 'a'.repeat(40),
        released_at: at,
        links: [{ id: 1, release_id: 9, url: 'https://example.com/gl.dmg', name: 'gl.dmg', link_type: 'package', created_at: at, updated_at: at }],
        milestone_releases: [{ milestone_id: 8, release_id: 9, milestone: { id: 8, title: 'gl-milestone', iid: 4 } }],
      },
    ]);
    const release = await t.db.release.findFirst({
      where: { projectId: project.id, tag: 'gl-1.0' },
      include: { links: true, milestones: { include: { milestone: true } }, author: true },
    });
    expect(release).toMatchObject({ name: 'GitLab 1.0', description: 'notes', links: [{ name: 'gl.dmg', linkType: 'package' }] });
    expect(release!.milestones.map((m) => m.milestone.title)).toEqual(['gl-milestone']);
    // A bare `author_id` names no source instance to map it from: the release keeps no author.
    expect(release!.authorId).toBeNull();
    await t.db.release.delete({ where: { id: release!.id } });
  });

  it("leaves out records and links that break the product's own rules", async () => {
    const file = ndjson([
      { tag_name: 'bad tag', released_at: '2024-01-01T00:00:00Z' },
      {
        tag_name: 'ok-1',
        sha: '$(rm -rf)',
        released_at: '2024-01-01T00:00:00Z',
        links: [
          { name: 'xss', url: 'javascript:alert(1)' },
          { name: 'good', url: 'https://example.com/a', filepath: 'bin/app' },
          { name: 'good', url: 'https://example.com/b' },
        ],
      },
    ]);
    await post().field('path', project.path_with_namespace).field('relation', 'releases').attach('file', file, 'r.ndjson.gz').expect(201);
    await post()
      .field('path', project.path_with_namespace)
      .field('relation', 'labels')
      .attach('file', ndjson([{ name: 'colourful', color: 'url(javascript:x)' }, { name: '   ' }]), 'l.ndjson.gz')
      .expect(201);
    const releases = await t.db.release.findMany({ where: { projectId: project.id }, include: { links: true } });
    expect(releases.map((r) => [r.tag, r.sha, r.links.map((l) => [l.name, l.url, l.filepath])])).toEqual([
      ['ok-1', null, [['good', 'https://example.com/a', '/bin/app']]],
    ]);
    expect((await t.db.label.findMany({ where: { projectId: project.id, name: { in: ['colourful', '   '] } } })).map((l) => [l.name, l.color])).toEqual([
      ['colourful', '#6699CC'],
    ]);
  });

  it('imports through the GraphQL mutation with a multipart file (Upload)', async () => {
    const operations = {
      query:
        'mutation($file: Upload!, $path: ID!) { projectImportRelation(input: { projectPath: $path, relation: "labels", file: $file }) { relationImport { relation status objectsCount projectPath } errors } }',
      variables: { file: null, path: project.path_with_namespace },
    };
    const res = await request(t.base)
      .post('/api/graphql')
      .set('Authorization', `Bearer ${maintainer.token}`)
      .field('operations', JSON.stringify(operations))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', labels, 'labels.ndjson.gz');
    expect(res.body).toEqual({
      data: { projectImportRelation: { relationImport: { relation: 'labels', status: 'finished', objectsCount: 1, projectPath: 'acme/app' }, errors: [] } },
    });
    expect(await t.db.label.count({ where: { projectId: project.id, name: 'imported' } })).toBe(1);
  });
});

describe('contributors imported concurrently', () => {
  it('get one import source user and one placeholder, whichever import gets there first', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Race', path: 'race' }).expect(201)).body;
    const projects = await Promise.all(
      ['r1', 'r2', 'r3'].map(async (name) => (await t.api('post', '/projects').send({ name, namespace_id: g.id }).expect(201)).body),
    );
    const author = { id: 901, username: 'racer', name: 'Racer', email: 'racer@other.test', source_hostname: 'https://other.test' };
    const file = ndjson(Array.from({ length: 5 }, (_, i) => ({ tag_name: `t${i}`, released_at: '2024-01-01T00:00:00Z', author })));
    await Promise.all(
      projects.map((p) =>
        t
          .api('post', '/projects/import-relation')
          .field('path', p.path_with_namespace)
          .field('relation', 'releases')
          .attach('file', file, 'r.ndjson.gz')
          .expect(201),
      ),
    );
    const sources = await t.db.importSourceUser.findMany({ where: { namespaceId: g.id } });
    expect(sources).toHaveLength(1);
    const authors = await t.db.release.findMany({ where: { projectId: { in: projects.map((p) => p.id) } }, select: { authorId: true } });
    expect(authors).toHaveLength(15);
    expect(new Set(authors.map((r) => r.authorId))).toEqual(new Set([sources[0].placeholderUserId]));
  });
});

describe('personal namespaces', () => {
  const releases = ndjson([
    {
      tag_name: 'p1',
      description: '',
      released_at: '2024-01-01T00:00:00Z',
      author: { id: 77, username: 'zed', name: 'Zed', email: 'zed@elsewhere.test', source_hostname: 'https://other.test' },
      links: [],
      milestones: [],
    },
  ]);

  it('attribute everything to one import user, or to the owner with user_mapping_to_personal_namespace_owner; nothing to reassign', async () => {
    const owner = await t.user('solo');
    const mine = (await t.api('post', '/projects', owner.token).send({ name: 'Mine' }).expect(201)).body;
    await t
      .api('post', '/projects/import-relation', owner.token)
      .field('path', mine.path_with_namespace)
      .field('relation', 'releases')
      .attach('file', releases, 'releases.ndjson.gz')
      .expect(201);
    const imported = await t.db.release.findFirstOrThrow({ where: { projectId: mine.id }, include: { author: true } });
    expect(imported.author).toMatchObject({ username: expect.stringMatching(/^import_user_namespace_\d+$/), name: 'Import User', state: 'blocked' });

    await t.deps.flags.set('user_mapping_to_personal_namespace_owner', { enabled: true });
    const other = (await t.api('post', '/projects', owner.token).send({ name: 'Other' }).expect(201)).body;
    await t
      .api('post', '/projects/import-relation', owner.token)
      .field('path', other.path_with_namespace)
      .field('relation', 'releases')
      .attach('file', releases, 'releases.ndjson.gz')
      .expect(201);
    expect((await t.db.release.findFirstOrThrow({ where: { projectId: other.id }, include: { author: true } })).author!.username).toBe('solo');
    expect(await t.db.importSourceUser.count({ where: { sourceUsername: 'zed' } })).toBe(0);
    await t.deps.flags.remove('user_mapping_to_personal_namespace_owner');
  });
});

describe('placeholder reassignments', () => {
  let owner: User;
  let target: { id: number; full_path: string };
  let sourceUserGid: string;
  const zed = { id: 5, username: '=zed', name: '@Zed, "the" third', email: 'z@other.test', source_hostname: 'https://other.test' };
  const csvHeader = 'Source host,Import type,Source user identifier,Source user name,Source username,GitLab username,GitLab public email';

  beforeAll(async () => {
    owner = await t.user('groupowner');
    target = (await t.api('post', '/groups').send({ name: 'Target', path: 'target' }).expect(201)).body;
    await t.api('post', `/groups/${target.id}/members`).send({ user_id: owner.id, access_level: 50 }).expect(201);
    await t.api('post', `/groups/${target.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
    const p = (await t.api('post', '/projects').send({ name: 'P', namespace_id: target.id }).expect(201)).body;
    const file = ndjson([
      { tag_name: 'z1', released_at: '2024-01-01T00:00:00Z', author: zed },
      { tag_name: 'y1', released_at: '2024-01-01T00:00:00Z', author: { ...zed, id: 6, username: 'yan', name: 'Yan' } },
    ]);
    await t
      .api('post', '/projects/import-relation', owner.token)
      .field('path', p.path_with_namespace)
      .field('relation', 'releases')
      .attach('file', file, 'r.ndjson.gz')
      .expect(201);
  });

  /** The assignee (maint) accepts the last request mailed to them, through its link; the job then moves the contributions. */
  async function acceptMailedRequest() {
    await t.deps.jobs.drain();
    const mail = await t.db.email.findFirstOrThrow({
      where: { to: { has: 'maint@example.com' }, subject: 'Reassignments in target waiting for review' },
      orderBy: { id: 'desc' },
    });
    const accept = /Accept: POST \S+?(\/import\/source_users\/\S+)/.exec(mail.text)![1];
    await request(t.base).post(accept).set('PRIVATE-TOKEN', maintainer.token).expect(200);
    await t.deps.jobs.drain();
  }

  const upload = (csv: string, name = 'map.csv', token = owner.token) =>
    t.api('post', `/groups/${target.id}/placeholder_reassignments`, token).attach('file', Buffer.from(csv), name);

  it('GET: the CSV neutralises formula cells; Owner only', async () => {
    const res = await t.api('get', `/groups/${target.id}/placeholder_reassignments`, owner.token).expect(200);
    expect(res.text).toBe(
      `${csvHeader}\nhttps://other.test,gitlab_migration,5,"'@Zed, ""the"" third",'=zed,"",""\nhttps://other.test,gitlab_migration,6,Yan,yan,"",""\n`,
    );
    await t.api('get', `/groups/${target.id}/placeholder_reassignments`, maintainer.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', `/groups/${target.id}/placeholder_reassignments`, outsider.token).expect(404, { message: '404 Group Not Found' });
    await t.api('get', `/groups/${target.id}/placeholder_reassignments`, null).expect(401, { message: '401 Unauthorized' });
    await t.api('get', '/groups/424242/placeholder_reassignments', owner.token).expect(404, { message: '404 Group Not Found' });
  });

  it('POST: validates the whole sheet with GitLab 422s before anything changes', async () => {
    const sheet = 'The following errors are preventing the sheet from being processed: ';
    await t.api('post', `/groups/${target.id}/placeholder_reassignments`, owner.token).expect(400, { error: 'file is missing' });
    await upload(`${csvHeader}\n`, 'map.txt').expect(422, { message: 'You must upload a CSV file with a .csv file extension.' });
    await upload('Source host,GitLab public email\nhttps://other.test,a@b.c\n').expect(422, {
      message: `${sheet}The provided CSV was not correctly formatted.`,
    });
    await upload(`${csvHeader}\nhttps://other.test,gitlab_migration,5,,,maint,\nhttps://other.test,gitlab_migration,6,,,maint,\n`).expect(422, {
      message: `${sheet}The provided spreadsheet contains duplicate email addresses or usernames.`,
    });
    await upload(`${csvHeader}\nhttps://other.test,gitlab_migration,5,,,ghost,\n`).expect(422, {
      message: `${sheet}Row 2: No matching user for provided information.`,
    });
    await upload(`${csvHeader}\nhttps://other.test,gitlab_migration,999,,,maint,\n`).expect(422, {
      message: `${sheet}Row 2: No matching user for provided information.`,
    });
    await upload(`${csvHeader}\n` + 'x,y,z,,,,\n'.repeat(50_001)).expect(422, {
      message: `${sheet}The provided CSV file exceeds the maximum number of rows (50000).`,
    });
    await upload(`${csvHeader}\n` + 'x'.repeat(10 * 1024 * 1024)).expect(422, { message: `${sheet}The provided CSV file exceeds the maximum size of 10 MB.` });
    await upload(`${csvHeader},${Array.from({ length: 14 }, (_, i) => `c${i}`).join(',')}\n`).expect(422, {
      message: `${sheet}The provided CSV file exceeds the maximum number of columns (20).`,
    });
    await upload(`${csvHeader}\n`, 'map.csv', maintainer.token).expect(403, { message: '403 Forbidden' });
    expect(await t.db.importSourceUser.count({ where: { namespaceId: target.id, status: 'pending_reassignment' } })).toBe(2);
    expect(await t.deps.jobs.drain()).toEqual({ completed: 0, failed: 0 });
  });

  it('POST: looks the whole sheet up in a fixed number of statements, whatever its rows', async () => {
    const rows = (n: number) =>
      `${csvHeader}
` +
      Array.from(
        { length: n },
        (_, i) => `https://other.test,gitlab_migration,${1000 + i},,,ghost${i},
`,
      ).join('');
    await expectCounterSees(t, () => upload(rows(1)).expect(422));
    const one = await countQueries(t, () => upload(rows(1)).expect(422));
    expect(await countQueries(t, () => upload(rows(200)).expect(422))).toBe(one);
  });

  it('GraphQL: lists import source users, reassigns one, and takes a CSV upload', async () => {
    const list = await t.graphql(
      `query($path: ID!) { group(fullPath: $path) { importSourceUsers(statuses: [PENDING_REASSIGNMENT]) { count nodes { id sourceUsername status } } placeholderReassignmentsCsv { fileName } } }`,
      { path: 'target' },
      owner.token,
    );
    expect(list.body.data.group.importSourceUsers.count).toBe(2);
    sourceUserGid = list.body.data.group.importSourceUsers.nodes.find((n: { sourceUsername: string }) => n.sourceUsername === '=zed').id;
    expect(sourceUserGid).toMatch(/^gid:\/\/gitlab\/Import::SourceUser\/\d+$/);
    expect(list.body.data.group.placeholderReassignmentsCsv.fileName).toMatch(/^placeholder_reassignments_for_group_\d+_\d+\.csv$/);
    const denied = await t.graphql(`query { group(fullPath: "target") { importSourceUsers { count } } }`, {}, maintainer.token);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const reassign = (assignee: number | string) =>
      t.graphql(
        `mutation($id: ImportSourceUserID!, $to: UserID!) { importSourceUserReassign(input: { id: $id, assigneeUserId: $to }) { importSourceUser { status reassignToUser { username } } errors } }`,
        { id: sourceUserGid, to: typeof assignee === 'number' ? `gid://gitlab/User/${assignee}` : assignee },
        owner.token,
      );
    const placeholder = await t.db.importSourceUser.findFirstOrThrow({ where: { id: Number(sourceUserGid.split('/').pop()) } });
    expect((await reassign(placeholder.placeholderUserId!)).body.data.importSourceUserReassign.errors).toEqual([
      'Only active regular, auditor, or administrator users can be assigned',
    ]);
    const ok = await reassign(maintainer.id);
    expect(ok.body.data.importSourceUserReassign).toEqual({
      importSourceUser: { status: 'AWAITING_APPROVAL', reassignToUser: { username: 'maint' } },
      errors: [],
    });
    expect((await reassign(maintainer.id)).body.data.importSourceUserReassign.errors).toEqual(['Import source user has an invalid status for this operation']);
    await acceptMailedRequest();
    const z1 = await t.db.release.findFirstOrThrow({ where: { tag: 'z1' }, include: { author: true } });
    expect(z1.author!.username).toBe('maint');

    const operations = {
      query: 'mutation($file: Upload!) { importSourceUsersReassignFromCsv(input: { groupPath: "target", file: $file }) { message errors } }',
      variables: { file: null },
    };
    const csv = `${csvHeader}\nhttps://other.test,gitlab_migration,6,Yan,yan,,maint@example.com\n`;
    const res = await request(t.base)
      .post('/api/graphql')
      .set('Authorization', `Bearer ${owner.token}`)
      .field('operations', JSON.stringify(operations))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', Buffer.from(csv), 'map.csv');
    expect(res.body).toEqual({
      data: { importSourceUsersReassignFromCsv: { message: 'The file is being processed and you will receive an email when completed.', errors: [] } },
    });
    await acceptMailedRequest();
    expect((await t.db.release.findFirstOrThrow({ where: { tag: 'y1' }, include: { author: true } })).author!.username).toBe('maint');
    const mails = await t.db.email.findMany({ where: { to: { has: 'groupowner@example.com' } }, orderBy: { id: 'asc' } });
    expect(mails.map((m) => m.subject)).toEqual(['Placeholder reassignments in target completed']);
  });
});
