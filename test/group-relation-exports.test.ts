// The source side of direct transfer for groups (GitLab's lib/api/group_export.rb): a group's
// relations exported as GitLab's NDJSON records, with the same statuses, batches and errors as the
// project routes, for the group's Owners only.
import { gunzipSync } from 'node:zlib';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

type User = Awaited<ReturnType<TestApp['user']>>;
type Row = Record<string, unknown>;

const binary = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

const lines = (gz: Buffer): Row[] =>
  gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

let t: TestApp;
let group: { id: number; full_path: string };
let owner: User;
let maintainer: User;
let developer: User;

const download = (query: string, token = owner.token) =>
  t.api('get', `/groups/${group.id}/export_relations/download?${query}`, token).buffer(true).parse(binary);

async function file(relation: string): Promise<Row[]> {
  const res = await download(`relation=${relation}`).expect(200);
  expect(res.headers['content-type']).toBe('application/gzip');
  // GitLab's names: the group's own attributes are one JSON object (`self.json.gz`), the lists NDJSON.
  expect(res.headers['content-disposition']).toBe(`attachment; filename="${relation}.${relation === 'self' ? 'json' : 'ndjson'}.gz"`);
  return lines(res.body as Buffer);
}

beforeAll(async () => {
  t = await createTestApp();
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  [owner, maintainer, developer] = await Promise.all([t.user('gowner'), t.user('gmaint'), t.user('gdev')]);
  group = (await t.api('post', '/groups', owner.token).send({ name: 'Exported', path: 'exported', description: 'A group to move' }).expect(201)).body;
  await t.api('post', `/groups/${group.id}/members`, owner.token).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
  await t.api('post', `/groups/${group.id}/members`, owner.token).send({ user_id: developer.id, access_level: 30, expires_at: '2031-01-02' }).expect(201);
  for (const [name, color] of [
    ['bug', '#ff0000'],
    ['feature', '#00ff00'],
  ]) {
    await t.api('post', `/groups/${group.id}/labels`, owner.token).send({ name, color }).expect(201);
  }
  await t.api('post', `/groups/${group.id}/milestones`, owner.token).send({ title: 'G1', start_date: '2030-01-01', due_date: '2030-02-01' }).expect(201);
  const parent = (
    await t
      .api('post', `/groups/${group.id}/epics`, owner.token)
      .send({ title: 'Parent', labels: 'bug', start_date_is_fixed: true, start_date_fixed: '2030-03-01' })
      .expect(201)
  ).body;
  const child = (
    await t
      .api('post', `/groups/${group.id}/epics`, developer.token)
      .send({
        title: 'Child',
        description: 'Under the parent',
        labels: 'bug,feature',
        parent_id: parent.id,
        due_date_is_fixed: true,
        due_date_fixed: '2030-04-01',
      })
      .expect(201)
  ).body;
  await t.api('put', `/groups/${group.id}/epics/${parent.iid}`, owner.token).send({ state_event: 'close' }).expect(200);
  await t.api('post', `/groups/${group.id}/epics/${child.iid}/award_emoji`, maintainer.token).send({ name: 'thumbsup' }).expect(201);
});
afterAll(async () => {
  await t?.close();
});

describe('POST /groups/:id/export_relations, then status and download', () => {
  it("writes each of the group's relations in GitLab's format", async () => {
    await t.api('post', `/groups/${group.id}/export_relations`, owner.token).expect(202, { message: '202 Accepted' });
    const started = (await t.api('get', `/groups/${group.id}/export_relations/status`, owner.token).expect(200)).body;
    expect(started.map((s: Row) => s.relation)).toEqual(['self', 'labels', 'milestones', 'epics', 'members']);
    expect(started.every((s: Row) => s.status === 0)).toBe(true);
    await t.deps.jobs.drain();
    const epicsStatus = (await t.api('get', `/groups/${group.id}/export_relations/status?relation=epics`, owner.token).expect(200)).body;
    expect(epicsStatus).toEqual({
      relation: 'epics',
      status: 1,
      error: null,
      updated_at: expect.any(String),
      batched: false,
      batches_count: 0,
      total_objects_count: 2,
    });

    const [self] = await file('self');
    expect(self).toMatchObject({ name: 'Exported', path: 'exported', description: 'A group to move', visibility_level: 0, parent_id: null });

    const labels = await file('labels');
    expect(labels.map((l) => [l.title, l.color, l.type, l.group_id, l.project_id])).toEqual([
      ['bug', '#FF0000', 'GroupLabel', group.id, null],
      ['feature', '#00FF00', 'GroupLabel', group.id, null],
    ]);

    const [milestone] = await file('milestones');
    expect(milestone).toMatchObject({ title: 'G1', group_id: group.id, project_id: null, start_date: '2030-01-01', due_date: '2030-02-01', state: 'active' });

    const [parentEpic, childEpic] = await file('epics');
    expect(parentEpic).toMatchObject({ title: 'Parent', state: 'closed', start_date_is_fixed: true, start_date_fixed: '2030-03-01', start_date: '2030-03-01' });
    expect(parentEpic.closed_at).toEqual(expect.stringMatching(/Z$/));
    expect(parentEpic).not.toHaveProperty('parent');
    expect(childEpic).toMatchObject({
      title: 'Child',
      description: 'Under the parent',
      state: 'opened',
      parent_id: parentEpic.id,
      parent: { id: parentEpic.id, iid: parentEpic.iid, title: 'Parent' },
      due_date_is_fixed: true,
      due_date_fixed: '2030-04-01',
      end_date: '2030-04-01',
      author_id: developer.id,
      author: { id: developer.id, username: 'gdev', name: 'GDEV', email: 'gdev@example.com', source_hostname: EXTERNAL_URL },
    });
    expect((childEpic.label_links as Row[]).map((l) => [l.target_type, (l.label as Row).title, (l.label as Row).type])).toEqual([
      ['Epic', 'bug', 'GroupLabel'],
      ['Epic', 'feature', 'GroupLabel'],
    ]);
    expect(childEpic.award_emoji).toEqual([
      expect.objectContaining({
        name: 'thumbsup',
        user_id: maintainer.id,
        awardable_type: 'Epic',
        awardable_id: childEpic.id,
        user: expect.objectContaining({ username: 'gmaint' }),
      }),
    ]);

    const members = await file('members');
    expect(members.map((m) => [(m.user as Row).username, m.access_level, m.source_type, m.source_id, m.expires_at])).toEqual([
      ['gowner', 50, 'Namespace', group.id, null],
      ['gmaint', 40, 'Namespace', group.id, null],
      ['gdev', 30, 'Namespace', group.id, '2031-01-02'],
    ]);
    expect(members[2].user).toEqual({
      id: developer.id,
      username: 'gdev',
      name: 'GDEV',
      email: 'gdev@example.com',
      public_email: null,
      source_hostname: EXTERNAL_URL,
    });
  });

  it('answers as the project routes do when there is no file, no batch, or a relation of no group', async () => {
    const other = (await t.api('post', '/groups', owner.token).send({ name: 'Fresh', path: 'fresh' }).expect(201)).body;
    await t.api('get', `/groups/${other.id}/export_relations/download?relation=labels`, owner.token).expect(404, { message: 'Export not found' });
    await t.api('get', `/groups/${other.id}/export_relations/status?relation=labels`, owner.token).expect(404, { message: 'Export not found' });
    await t.api('get', `/groups/${group.id}/export_relations/download?relation=releases`, owner.token).expect(400, { error: 'relation is not portable' });
    await t
      .api('get', `/groups/${group.id}/export_relations/status?relation=repository_bundle`, owner.token)
      .expect(400, { error: 'relation is not portable' });
    await t.api('get', `/groups/${group.id}/export_relations/download`, owner.token).expect(400, { error: 'relation is missing' });
    await t
      .api('get', `/groups/${group.id}/export_relations/download?relation=labels&batched=true&batch_number=1`, owner.token)
      .expect(400, { message: 'Export is not batched' });
    await t.api('get', `/groups/${group.id}/export_relations/status`, owner.token).expect(200);
    // The path works as the id does.
    await t.api('get', `/groups/${encodeURIComponent(group.full_path)}/export_relations/status?relation=self`, owner.token).expect(200);
  });
});

describe('through gitbeaker (GroupRelationExports)', () => {
  it('schedules and downloads a relation; a Maintainer is refused', async () => {
    const api = gitbeaker(t.base, owner.token);
    expect(await api.GroupRelationExports.scheduleExport(group.id)).toEqual({ message: '202 Accepted' });
    await t.deps.jobs.drain();
    // gitbeaker 43's exportStatus asks `GET /groups/:id/export_relations`, which is no GitLab route (GitLab's is `…/status`).
    const statuses: Row[] = (await t.api('get', `/groups/${group.id}/export_relations/status`, owner.token).expect(200)).body;
    expect(statuses.map((s) => [s.relation, s.status])).toEqual([
      ['self', 1],
      ['labels', 1],
      ['milestones', 1],
      ['epics', 1],
      ['members', 1],
    ]);
    // Its download nests `relation` under `searchParams` (no GitLab parameter); given as GitLab names it, the call works.
    const options = { relation: 'labels' } as Parameters<typeof api.GroupRelationExports.download>[2];
    const blob = (await api.GroupRelationExports.download(group.id, 'labels', options)) as unknown as Blob;
    expect(lines(Buffer.from(await blob.arrayBuffer())).map((l) => l.title)).toEqual(['bug', 'feature']);
    await expect(gitbeaker(t.base, maintainer.token).GroupRelationExports.scheduleExport(group.id)).rejects.toThrow('403 Forbidden');
  });
});

describe('who may export a group', () => {
  it('Owners only: 403 for a Maintainer, 404 for a non-member of a private group, 401 anonymous', async () => {
    await t.api('post', `/groups/${group.id}/export_relations`, null).expect(401, { message: '401 Unauthorized' });
    const outsider = await t.user('goutsider');
    for (const [method, path] of [
      ['post', 'export_relations'],
      ['get', 'export_relations/status'],
      ['get', 'export_relations/download?relation=self'],
    ] as const) {
      await t.api(method, `/groups/${group.id}/${path}`, maintainer.token).expect(403);
      await t.api(method, `/groups/${group.id}/${path}`, developer.token).expect(403);
      await t.api(method, `/groups/${group.id}/${path}`, outsider.token).expect(404, { message: '404 Group Not Found' });
      // Anonymous: the private group is not there for them (a POST asks to sign in first, above).
      if (method === 'get') await t.api(method, `/groups/${group.id}/${path}`, null).expect(404);
    }
  });

  it("is a plain 404 for everyone while the instance setting is off (GitLab's bulk-import probe)", async () => {
    const off = await createTestApp();
    try {
      const g = (await off.api('post', '/groups').send({ name: 'Off', path: 'off' }).expect(201)).body;
      await off.api('get', `/groups/${g.id}/export_relations/status`).expect(404, { message: '404 Not Found' });
      await off.api('post', `/groups/${g.id}/export_relations`).expect(404, { message: '404 Not Found' });
      await off.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
      await off.api('get', `/groups/${g.id}/export_relations/status`).expect(200, []);
    } finally {
      await off.close();
    }
  });
});

describe('batched group export', () => {
  it('writes 1,001 epics as two batches of at most 1,000', async () => {
    const big = (await t.api('post', '/groups', owner.token).send({ name: 'Big', path: 'big' }).expect(201)).body;
    const rows = Array.from({ length: 1001 }, (_, i) => ({ groupId: big.id, iid: i + 1, title: `Epic ${i + 1}`, authorId: owner.id }));
    await t.db.epic.createMany({ data: rows });
    await t.api('post', `/groups/${big.id}/export_relations`, owner.token).send({ batched: true }).expect(202);
    await t.deps.jobs.drain();
    const status = (await t.api('get', `/groups/${big.id}/export_relations/status?relation=epics`, owner.token).expect(200)).body;
    expect(status).toMatchObject({
      batched: true,
      batches_count: 2,
      total_objects_count: 1001,
      batches: [
        { status: 1, batch_number: 1, objects_count: 1000, error: null },
        { status: 1, batch_number: 2, objects_count: 1, error: null },
      ],
    });
    const second = lines(
      (
        await t
          .api('get', `/groups/${big.id}/export_relations/download?relation=epics&batched=true&batch_number=2`, owner.token)
          .buffer(true)
          .parse(binary)
          .expect(200)
      ).body as Buffer,
    );
    expect(second.map((e) => e.title)).toEqual(['Epic 1001']);
    await t.api('get', `/groups/${big.id}/export_relations/download?relation=epics`, owner.token).expect(400, { message: 'Export is batched' });
  });
});
