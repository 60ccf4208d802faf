// Direct transfer between two forgegate servers on loopback: the destination pulls a group (its
// subgroup, projects, repositories, labels, milestones, releases and members, the group's labels,
// milestones and epics) from the source
// with one POST /bulk_imports, through the source's relation export routes, as from GitLab.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

let src: TestApp;
let dst: TestApp;
let dev: Awaited<ReturnType<TestApp['user']>>;
let reporter: Awaited<ReturnType<TestApp['user']>>;

type Row = Record<string, unknown>;
const BATCH = 2;

/** Runs both servers' queued jobs, one round of the destination's at a time, until the migration is over. */
async function migrate(id: number): Promise<Row> {
  for (let round = 0; round < 300; round++) {
    await src.deps.jobs.drain();
    await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
    const status = (await dst.api('get', `/bulk_imports/${id}`).expect(200)).body;
    if (!['created', 'started'].includes(status.status)) return status;
  }
  throw new Error('the migration did not end');
}

const startImport = (entities: Row[], token = src.root.token) =>
  dst.api('post', '/bulk_imports').send({ configuration: { url: src.base, access_token: token }, entities });

/** A project with a file, a branch, a tag, labels, a milestone and a release (devuser's) with a link and the milestone. */
async function seedProject(namespaceId: number, path: string, description: string, labels: string[]) {
  const project = (
    await src
      .api('post', '/projects')
      .send({ name: path.toUpperCase(), path, namespace_id: namespaceId, description, initialize_with_readme: true })
      .expect(201)
  ).body;
  const at = `/projects/${project.id}`;
  await src
    .api('post', `${at}/repository/files/src%2Fmain.ts`)
    .send({ branch: 'main', content: `export const name = '${path}';\n`, commit_message: 'Main' })
    .expect(201);
  await src.api('post', `${at}/repository/branches`).send({ branch: 'feature', ref: 'main' }).expect(201);
  await src.api('post', `${at}/repository/tags`).send({ tag_name: 'v1.0', ref: 'main' }).expect(201);
  for (const name of labels) await src.api('post', `${at}/labels`).send({ name, color: '#ff0000' }).expect(201);
  await src.api('post', `${at}/milestones`).send({ title: 'M1', due_date: '2030-01-01' }).expect(201);
  await src
    .api('post', `${at}/releases`, dev.token)
    .send({ tag_name: 'v1.0', name: `First ${path}`, milestones: ['M1'], assets: { links: [{ name: 'bin', url: `https://example.com/${path}/bin` }] } })
    .expect(201);
  return project;
}

/** A members list as [username, access level]; a placeholder named by the source user it stands for. */
async function membersOf(app: TestApp, path: string): Promise<[string, number][]> {
  const rows = (await app.api('get', path).expect(200)).body as Row[];
  const sources = await app.db.importSourceUser.findMany({ where: { placeholderUserId: { in: rows.map((m) => m.id as number) } } });
  const sourceName = new Map(sources.map((u) => [u.placeholderUserId, u.sourceUsername]));
  return rows.map((m): [string, number] => [sourceName.get(m.id as number) ?? (m.username as string), m.access_level as number]).sort();
}

beforeAll(async () => {
  // The source writes batches of 2 objects: the labels, milestones and epics below take several.
  [src, dst] = await Promise.all([createTestApp({ env: { RELATION_EXPORT_BATCH_SIZE: String(BATCH) } }), createTestApp()]);
  await src.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  await dst.api('put', '/application/settings').send({ bulk_import_enabled: true, allow_local_requests_from_web_hooks_and_services: true }).expect(200);
  dev = await src.user('devuser');
  const group = (await src.api('post', '/groups').send({ name: 'Acme', path: 'acme', description: 'Moved group' }).expect(201)).body;
  const sub = (await src.api('post', '/groups').send({ name: 'Sub', path: 'sub', parent_id: group.id }).expect(201)).body;
  reporter = await src.user('reporter');
  await src.api('post', `/groups/${group.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
  // Group labels, milestones and epics: a child written before its parent, labels, a closed epic, an award.
  await src.api('post', `/groups/${group.id}/labels`).send({ name: 'frontend', color: '#00ff00', description: 'UI' }).expect(201);
  await src.api('post', `/groups/${group.id}/labels`).send({ name: 'backend', color: '#0000ff' }).expect(201);
  await src.api('post', `/groups/${group.id}/milestones`).send({ title: 'Q1', start_date: '2030-01-01', due_date: '2030-03-31' }).expect(201);
  const q2 = (await src.api('post', `/groups/${group.id}/milestones`).send({ title: 'Q2' }).expect(201)).body;
  await src.api('put', `/groups/${group.id}/milestones/${q2.id}`).send({ state_event: 'close' }).expect(200);
  const epics = `/groups/${group.id}/epics`;
  const child = (
    await src
      .api('post', epics, dev.token)
      .send({ title: 'Child', labels: 'frontend,backend', due_date_fixed: '2030-02-01', due_date_is_fixed: true })
      .expect(201)
  ).body;
  const parent = (await src.api('post', epics, dev.token).send({ title: 'Roadmap', labels: 'frontend' }).expect(201)).body;
  await src.api('put', `${epics}/${child.iid}`).send({ parent_id: parent.id }).expect(200);
  const done = (await src.api('post', epics).send({ title: 'Done' }).expect(201)).body;
  await src.api('put', `${epics}/${done.iid}`).send({ state_event: 'close' }).expect(200);
  await src.api('post', `${epics}/${child.iid}/award_emoji`, dev.token).send({ name: 'thumbsup' }).expect(201);
  await src.api('post', `/groups/${group.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
  await src.api('post', `/groups/${sub.id}/members`).send({ user_id: reporter.id, access_level: 40 }).expect(201);
  // Two projects; the first's five labels take three batches of the source's export.
  const app = await seedProject(group.id, 'app', 'The app', ['bug', 'chore', 'docs', 'perf', 'ux']);
  await src.api('post', `/projects/${app.id}/members`).send({ user_id: dev.id, access_level: 40 }).expect(201);
  const api = await seedProject(sub.id, 'api', 'The API', ['api']);
  await src.api('post', `/projects/${api.id}/members`).send({ user_id: reporter.id, access_level: 30 }).expect(201);
});
afterAll(async () => {
  await Promise.all([src?.close(), dst?.close()]);
});

describe('POST /bulk_imports', () => {
  it('refuses a bad token with GitLab’s 422 and creates nothing', async () => {
    const res = await startImport(
      [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }],
      'glpat-wrong',
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: "Import aborted as the provided personal access token does not have the required 'api' scope or is no longer valid." });
    expect(await dst.db.bulkImport.count()).toBe(0);
    await dst.api('get', '/groups/acme').expect(404);
  });

  it('validates entities before asking the source', async () => {
    const res = await startImport([{ source_type: 'user_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }]);
    expect(res.status).toBe(400);
    expect(await dst.db.bulkImport.count()).toBe(0);
  });

  it('probes the source as GitLab does: direct transfer off there, or an unknown path, is a 422 and nothing is stored', async () => {
    const acme = [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }];
    await src.api('put', '/application/settings').send({ bulk_import_enabled: false }).expect(200);
    try {
      const off = await startImport(acme);
      expect(off.status).toBe(422);
      expect(off.body).toEqual({
        message: 'Migration by direct transfer disabled on source or destination instance. Ask an administrator to enable it on both instances and try again.',
      });
    } finally {
      await src.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
    }
    const missing = await startImport([{ ...acme[0], source_full_path: 'nowhere' }]);
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ message: "Import failed. 'nowhere' not found." });
    // A group the token's user cannot export (a Developer is not an Owner).
    const unauthorized = await startImport(acme, dev.token);
    expect(unauthorized.status).toBe(422);
    expect(unauthorized.body).toEqual({ message: "Import failed. You don't have permission to export 'acme'." });
    expect(await dst.db.bulkImport.count()).toBe(0);
    await dst.api('get', '/groups/acme').expect(404);
  });

  it('migrates a group with its subgroup and two projects, equal on both sides; the token is stored encrypted', async () => {
    const created = await startImport([{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: 'acme', destination_namespace: '' }]).expect(
      201,
    );
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toMatchObject({ status: 'created', source_type: 'gitlab', source_url: src.base, has_failures: false });
    expect(JSON.stringify(created.body)).not.toContain(src.root.token);
    const stored = await dst.db.bulkImport.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.accessTokenEncrypted).not.toContain(src.root.token);

    const done = await migrate(created.body.id);
    expect(done.status).toBe('finished');
    const entities = (await dst.api('get', `/bulk_imports/${created.body.id}/entities`).expect(200)).body as Row[];
    expect(entities.map((e) => [e.entity_type, e.source_full_path, e.destination_full_path, e.status]).sort()).toEqual([
      ['group', 'acme', 'acme', 'finished'],
      ['group', 'acme/sub', 'acme/sub', 'finished'],
      ['project', 'acme/app', 'acme/app', 'finished'],
      ['project', 'acme/sub/api', 'acme/sub/api', 'finished'],
    ]);
    expect(entities.every((e) => Array.isArray(e.failures) && (e.failures as unknown[]).length === 0)).toBe(true);

    // The same answers on both sides, ids and timestamps aside.
    const same = async (path: string, pick: (r: Row) => unknown) => {
      const [a, b] = await Promise.all([src.api('get', path).expect(200), dst.api('get', path).expect(200)]);
      const list = (body: unknown) => (Array.isArray(body) ? body.map(pick) : pick(body as Row));
      expect(list(b.body)).toEqual(list(a.body));
      return b.body;
    };
    await same('/groups/acme', (g) => [g.name, g.path, g.full_path, g.description]);
    await same('/groups/acme%2Fsub', (g) => [g.name, g.full_path]);
    const app = 'acme%2Fapp';
    for (const project of [app, 'acme%2Fsub%2Fapi']) {
      await same(`/projects/${project}`, (p) => [p.name, p.path_with_namespace, p.description, p.default_branch]);
      await same(`/projects/${project}/repository/branches`, (b) => [b.name, (b.commit as Row).id]);
      await same(`/projects/${project}/repository/tags`, (t) => [t.name, (t.commit as Row).id]);
      await same(`/projects/${project}/repository/files/src%2Fmain.ts?ref=feature`, (f) => [f.file_path, f.blob_id, f.content]);
      await same(`/projects/${project}/labels`, (l) => [l.name, l.color]);
      await same(`/projects/${project}/milestones`, (m) => [m.title, m.due_date, m.state]);
      await same(`/projects/${project}/releases`, (r) => [
        r.tag_name,
        r.name,
        ((r.assets as Row).links as Row[]).map((l) => [l.name, l.url, l.link_type]),
        (r.milestones as Row[]).map((m) => m.title),
      ]);
      // The same project through GraphQL.
      const projectQuery = `{ project(fullPath: "${decodeURIComponent(project)}") {
        name description
        labels { nodes { title color } }
        milestones { nodes { title state dueDate } }
        releases { nodes { tagName name assets { links { nodes { name url linkType } } } milestones { nodes { title } } } }
      } }`;
      const [a, b] = await Promise.all([src.graphql(projectQuery), dst.graphql(projectQuery)]);
      expect(b.body.errors).toBeUndefined();
      expect(b.body.data).toEqual(a.body.data);
      expect(b.body.data.project.releases.nodes).toHaveLength(1);
    }
    // Members in their roles, each source user a placeholder on the destination (root's e-mail is a destination user's: root).
    for (const [path, kind] of [
      ['acme', 'groups'],
      ['acme%2Fsub', 'groups'],
      [app, 'projects'],
      ['acme%2Fsub%2Fapi', 'projects'],
    ]) {
      const members = await Promise.all([membersOf(src, `/${kind}/${path}/members`), membersOf(dst, `/${kind}/${path}/members`)]);
      expect(members[1]).toEqual(members[0]);
    }
    expect(await membersOf(dst, '/groups/acme/members')).toEqual([
      ['devuser', 30],
      ['reporter', 20],
      ['root', 50],
    ]);
    const labels = (await dst.api('get', `/projects/${app}/labels`).expect(200)).body as Row[];
    // The project's five and the group's two.
    expect(labels).toHaveLength(7);
    // Downloaded and imported batch by batch, each batch once, each recorded.
    const appEntity = await dst.db.bulkImportEntity.findFirstOrThrow({ where: { sourceFullPath: 'acme/app' } });
    const labelTracker = await dst.db.bulkImportTracker.findFirstOrThrow({ where: { entityId: appEntity.id, relation: 'labels' }, include: { batches: true } });
    expect(labelTracker).toMatchObject({ batched: true, status: 2, objectsCount: 5 });
    expect(labelTracker.batches.map((b) => [b.batchNumber, b.status, b.importedObjectsCount]).sort()).toEqual([
      [1, 2, 2],
      [2, 2, 2],
      [3, 2, 1],
    ]);
    expect(await dst.db.relationImport.count({ where: { projectId: appEntity.projectId!, relation: 'labels' } })).toBe(3);
    // Nothing left behind in the data directory's temporary files.
    expect(fs.readdirSync(path.join(dst.config.dataDir, 'tmp')).filter((f) => f.startsWith('bulk-import-'))).toEqual([]);
    const releases = (await dst.api('get', `/projects/${app}/releases`).expect(200)).body as Row[];

    // The group's labels, milestones and epics, through GraphQL, the same on both sides.
    const groupQuery = `{ group(fullPath: "acme") {
      labels { nodes { title color description } }
      milestones(sort: DUE_DATE_ASC) { nodes { title state startDate dueDate } }
      epics(sort: TITLE_ASC) { nodes { iid title state dueDateFixed dueDateIsFixed startDate dueDate parent { iid } labels { nodes { title } } author { username } awardEmoji { nodes { name user { username } } } } }
    } }`;
    const [srcGroup, dstGroup] = await Promise.all([src.graphql(groupQuery), dst.graphql(groupQuery)]);
    expect(dstGroup.body.errors).toBeUndefined();
    const portable = (body: Row) => {
      const g = (body.data as Row).group as Row;
      const nodes = (c: unknown) => (c as { nodes: Row[] }).nodes;
      return {
        labels: nodes(g.labels),
        milestones: nodes(g.milestones),
        epics: nodes(g.epics).map(
          ({ author, awardEmoji, labels, ...e }): Row => ({
            ...e,
            labels: nodes(labels)
              .map((l) => l.title)
              .sort(),
            awards: nodes(awardEmoji).map((a) => a.name),
          }),
        ),
      };
    };
    const moved = portable(dstGroup.body);
    expect(moved).toEqual(portable(srcGroup.body));
    expect(moved.labels.map((l) => l.title)).toEqual(expect.arrayContaining(['backend', 'frontend']));
    expect(moved.milestones.map((m) => [m.title, m.state])).toEqual([
      ['Q1', 'active'],
      ['Q2', 'closed'],
    ]);
    const byTitle = Object.fromEntries(moved.epics.map((e) => [e.title, e]));
    expect(byTitle.Child).toMatchObject({ parent: { iid: byTitle.Roadmap.iid }, labels: ['backend', 'frontend'], awards: ['thumbsup'] });
    expect(byTitle.Done.state).toBe('closed');
    // The imported parent's stored due date is inherited from its imported child.
    expect(byTitle.Roadmap.dueDate).toBe('2030-02-01T00:00:00.000Z');
    // Epic authors and award users are the source's, as placeholders.
    const dstEpics = ((dstGroup.body.data.group as Row).epics as { nodes: Row[] }).nodes;
    const child = dstEpics.find((e) => e.title === 'Child')!;
    expect((child.author as Row).username).toMatch(/^devuser_placeholder_user_/);
    expect(((child.awardEmoji as { nodes: Row[] }).nodes[0].user as Row).username).toBe((child.author as Row).username);
    // An author whose e-mail is a destination member's (root's, the group's creator) maps to that member.
    expect((dstEpics.find((e) => e.title === 'Done')!.author as Row).username).toBe('root');
    // New epics continue after the imported iids.
    const next = (await dst.api('post', '/groups/acme/epics').send({ title: 'After' }).expect(201)).body;
    expect(next.iid).toBe(Math.max(...moved.epics.map((e) => Number(e.iid))) + 1);

    // Contributors are placeholders with import source user records; memberships go to them.
    const author = (releases as Row[])[0].author as Row;
    expect(author.username).toMatch(/^devuser_placeholder_user_/);
    const sourceUsers = await dst.db.importSourceUser.findMany({ where: { sourceUsername: 'devuser' } });
    expect(sourceUsers).toHaveLength(1);
    expect(sourceUsers[0].placeholderUserId).toBe(author.id);
    const groupMembers = (await dst.api('get', '/groups/acme/members').expect(200)).body as Row[];
    expect(groupMembers.find((m) => m.id === author.id)?.access_level).toBe(30);
    const projectMembers = (await dst.api('get', `/projects/${app}/members`).expect(200)).body as Row[];
    expect(projectMembers.find((m) => m.id === author.id)?.access_level).toBe(40);
  }, 120_000);

  it('a CSV reassignment accepted by the assignee moves the contributions from the placeholder to the real user', async () => {
    const real = await dst.user('devreal');
    const placeholder = (await dst.db.importSourceUser.findFirstOrThrow({ where: { sourceUsername: 'devuser' } })).placeholderUserId!;
    const authoredBy = async (userId: number) => ({
      releases: await dst.db.release.count({ where: { authorId: userId, project: { namespace: { fullPath: { startsWith: 'acme' } } } } }),
      epics: await dst.db.epic.count({ where: { authorId: userId, group: { fullPath: 'acme' } } }),
      awards: await dst.db.awardEmoji.count({ where: { userId } }),
      memberships: await dst.db.member.count({ where: { userId } }),
    });
    // Both projects' releases, two epics, one award, the group and project memberships: all the placeholder's.
    const contributions = { releases: 2, epics: 2, awards: 1, memberships: 2 };
    expect(await authoredBy(placeholder)).toEqual(contributions);

    // The owner downloads the sheet, names the real user for devuser and uploads it.
    const sheet = (await dst.api('get', '/groups/acme/placeholder_reassignments').buffer(true).expect(200)).text.trim().split('\n');
    const row = sheet.find((line) => line.split(',')[4] === 'devuser')!.split(',');
    const filled = `${sheet[0]}\n${[...row.slice(0, 5), real.username, ''].join(',')}\n`;
    await dst.api('post', '/groups/acme/placeholder_reassignments').attach('file', Buffer.from(filled), 'map.csv').expect(201);
    await dst.deps.jobs.drain();
    // Nothing moves until the assignee accepts.
    expect(await authoredBy(placeholder)).toEqual(contributions);

    const mail = await dst.db.email.findFirstOrThrow({
      where: { to: { has: real.email }, subject: { contains: 'waiting for review' } },
      orderBy: { id: 'desc' },
    });
    const accept = /Accept: (?:POST )?(\S+)/.exec(mail.text)![1].slice(EXTERNAL_URL.length);
    await request(dst.base).post(accept).set('PRIVATE-TOKEN', real.token).expect(200);
    await dst.deps.jobs.drain();
    expect(await authoredBy(real.id)).toEqual(contributions);
    expect(await authoredBy(placeholder)).toEqual({ releases: 0, epics: 0, awards: 0, memberships: 0 });
    expect(await membersOf(dst, '/groups/acme/members')).toEqual([
      ['devreal', 30],
      ['reporter', 20],
      ['root', 50],
    ]);
    expect((await dst.api('get', '/projects/acme%2Fapp/releases').expect(200)).body[0].author.username).toBe('devreal');
  });

  it('lists the migrations and entities, 404 for another user', async () => {
    const list = await dst.api('get', '/bulk_imports').expect(200);
    expect(list.headers['x-total']).toBe('1');
    const [bulk] = list.body as Row[];
    const all = await dst.api('get', '/bulk_imports/entities?status=finished').expect(200);
    expect(all.body).toHaveLength(4);
    const other = await dst.user('stranger');
    await dst.api('get', `/bulk_imports/${bulk.id}`, other.token).expect(404);
    expect((await dst.api('get', '/bulk_imports', other.token).expect(200)).body).toEqual([]);
    const entity = (all.body as Row[])[0];
    expect((await dst.api('get', `/bulk_imports/${bulk.id}/entities/${entity.id}/failures`).expect(200)).body).toEqual([]);
  });

  /** Runs both servers' jobs until the entity is no longer started. */
  async function runEntityAgain(entityId: number) {
    await dst.db.bulkImportEntity.update({ where: { id: entityId }, data: { status: 1 } });
    await dst.deps.jobs.send('bulk-import-entity', { entityId });
    for (let round = 0; round < 50 && (await dst.db.bulkImportEntity.findUniqueOrThrow({ where: { id: entityId } })).status === 1; round++) {
      await src.deps.jobs.drain();
      await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
    }
  }

  it('a resumed batched relation imports only the batches not finished', async () => {
    const entity = await dst.db.bulkImportEntity.findFirstOrThrow({ where: { sourceFullPath: 'acme/app' } });
    const tracker = await dst.db.bulkImportTracker.findFirstOrThrow({ where: { entityId: entity.id, relation: 'labels' } });
    const imports = () => dst.db.relationImport.count({ where: { projectId: entity.projectId!, relation: 'labels' } });
    expect(await imports()).toBe(3);
    // A crash after batch 2 was recorded: the tracker unfinished, batch 3 not recorded.
    await dst.db.bulkImportTracker.update({ where: { id: tracker.id }, data: { status: 1, objectsCount: 0 } });
    await dst.db.bulkImportBatchTracker.deleteMany({ where: { trackerId: tracker.id, batchNumber: 3 } });
    await runEntityAgain(entity.id);
    expect(await dst.db.bulkImportTracker.findUniqueOrThrow({ where: { id: tracker.id } })).toMatchObject({ status: 2, objectsCount: 5 });
    // One more import (batch 3's), none of batches 1 and 2; no label twice.
    expect(await imports()).toBe(4);
    expect(await dst.db.label.count({ where: { projectId: entity.projectId! } })).toBe(5);
  });

  it('a re-run of the group pipelines (a crash before their trackers were saved) creates nothing twice', async () => {
    const entity = await dst.db.bulkImportEntity.findFirstOrThrow({ where: { sourceFullPath: 'acme', sourceType: 'group_entity' } });
    const groupId = entity.namespaceId!;
    const counts = async () => ({
      labels: await dst.db.label.count({ where: { groupId } }),
      milestones: await dst.db.milestone.count({ where: { groupId } }),
      epics: await dst.db.epic.count({ where: { groupId } }),
      children: await dst.db.epic.count({ where: { groupId, parentId: { not: null } } }),
      epicLabels: await dst.db.epicLabel.count({ where: { epic: { groupId } } }),
      awards: await dst.db.awardEmoji.count({ where: { epic: { groupId } } }),
    });
    const before = await counts();
    // The round trip's records (and one epic created since), so the comparison below is not of zeros.
    expect(before).toEqual({ labels: 2, milestones: 2, epics: 4, children: 1, epicLabels: 3, awards: 1 });
    const relations = ['labels', 'milestones', 'epics'];
    await dst.db.bulkImportTracker.updateMany({ where: { entityId: entity.id, relation: { in: relations } }, data: { status: 0, objectsCount: 0 } });
    await dst.db.bulkImportBatchTracker.deleteMany({ where: { tracker: { entityId: entity.id, relation: { in: relations } } } });
    await runEntityAgain(entity.id);
    const trackers = await dst.db.bulkImportTracker.findMany({ where: { entityId: entity.id, relation: { in: relations } } });
    // Each file read again (its records counted anew), none of its records created twice.
    expect(trackers.map((t) => [t.relation, t.status, t.objectsCount]).sort()).toEqual([
      ['epics', 2, 3],
      ['labels', 2, 2],
      ['milestones', 2, 2],
    ]);
    expect(await counts()).toEqual(before);
  });

  it('epic parents: a chain past the depth limit is cut and recorded, a parent in the migrated parent group is linked', async () => {
    const deep = (await src.api('post', '/groups').send({ name: 'Deep', path: 'deep' }).expect(201)).body;
    const team = (await src.api('post', '/groups').send({ name: 'Team', path: 'team', parent_id: deep.id }).expect(201)).body;
    const levels: Row[] = [];
    for (let level = 1; level <= 8; level++)
      levels.push(
        (
          await src
            .api('post', `/groups/${deep.id}/epics`)
            .send({ title: `L${level}` })
            .expect(201)
        ).body,
      );
    // A chain of 8, longer than the source's own rules allow (a file is the source's word): written directly.
    for (let level = 1; level < 8; level++)
      await src.db.epic.update({ where: { id: levels[level].id as number }, data: { parentId: levels[level - 1].id as number } });
    // An epic of the subgroup whose parent is in the group above it.
    await src.api('post', `/groups/${team.id}/epics`).send({ title: 'Team work', parent_id: levels[0].id }).expect(201);

    const created = await startImport([{ source_type: 'group_entity', source_full_path: 'deep', destination_slug: 'deep', destination_namespace: '' }]).expect(
      201,
    );
    const done = await migrate(created.body.id);
    expect(done).toMatchObject({ status: 'finished', has_failures: true });
    const epics = await dst.db.epic.findMany({ where: { group: { fullPath: { in: ['deep', 'deep/team'] } } }, include: { parent: true } });
    const parentOf = Object.fromEntries(epics.map((e) => [e.title, e.parent?.title ?? null]));
    // Six levels kept (the product's limit: a seventh is one too deep); L7 is cut loose, L8 stays under it.
    expect(parentOf).toEqual({ L1: null, L2: 'L1', L3: 'L2', L4: 'L3', L5: 'L4', L6: 'L5', L7: null, L8: 'L7', 'Team work': 'L1' });
    expect(epics.find((e) => e.title === 'Team work')!.parent!.groupId).toBe(epics.find((e) => e.title === 'L1')!.groupId);
    const entities = (await dst.api('get', `/bulk_imports/${created.body.id}/entities`).expect(200)).body as Row[];
    expect(entities.map((e) => [e.source_full_path, e.status]).sort()).toEqual([
      ['deep', 'finished'],
      ['deep/team', 'finished'],
    ]);
    const deepEntity = entities.find((e) => e.source_full_path === 'deep')!;
    expect(deepEntity.failures).toEqual([
      expect.objectContaining({
        relation: 'epics',
        exception_class: 'ActiveRecord::RecordInvalid',
        exception_message:
          'Validation failed: Parent This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor.',
      }),
    ]);
    // Every pending link was settled.
    expect(await dst.db.bulkImportEpicLink.count({ where: { bulkImportId: created.body.id } })).toBe(0);
  });

  it('a hostile relation file fails its entity with a recorded failure; the process stays up', async () => {
    // The source's labels export (its first batch) replaced by a file with a NUL byte in a title.
    const project = (await src.api('get', '/projects/acme%2Fapp').expect(200)).body;
    await dst.api('post', '/groups').send({ name: 'Landing', path: 'landing' }).expect(201);
    const created = await startImport([
      { source_type: 'project_entity', source_full_path: 'acme/app', destination_slug: 'app', destination_namespace: 'landing' },
    ]).expect(201);
    await src.deps.jobs.drain();
    await dst.deps.jobs.drain({ maxRuns: 1 }).catch(() => undefined);
    await src.deps.jobs.drain();
    const exported = await src.db.relationExport.findFirstOrThrow({ where: { projectId: project.id, relation: 'labels' } });
    const { exportDir, exportFilePath } = await import('../src/modules/relation-exports/files.ts');
    const fs = await import('node:fs');
    fs.writeFileSync(
      exportFilePath(exportDir(src.config.dataDir, { kind: 'project', id: project.id }, exported.userId), 'labels', 'ndjson.gz', 1),
      gzipSync(`${JSON.stringify({ title: 'bad\u0000', color: '#000000' })}\n`),
    );
    const done = await migrate(created.body.id);
    expect(done).toMatchObject({ status: 'failed', has_failures: true });
    const [entity] = (await dst.api('get', `/bulk_imports/${created.body.id}/entities`).expect(200)).body as Row[];
    expect(entity.status).toBe('failed');
    expect(entity.failures).toEqual([expect.objectContaining({ relation: 'labels', exception_class: 'BadRequestError' })]);
    await dst.api('get', '/version').expect(200);
  });
});
