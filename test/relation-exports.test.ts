import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

type User = Awaited<ReturnType<TestApp['user']>>;

/** Reads a binary body whole, as a client saving the download would. */
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

async function enableBulkImport(t: TestApp) {
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
}

function download(t: TestApp, projectId: number, query: string, token = t.root.token) {
  return t.api('get', `/projects/${projectId}/export_relations/download?${query}`, token).buffer(true).parse(binary);
}

let source: TestApp;
let destination: TestApp;

beforeAll(async () => {
  [source, destination] = await Promise.all([createTestApp(), createTestApp()]);
});
afterAll(async () => {
  await Promise.all([source?.close(), destination?.close()]);
});

describe('round trip: export, import, placeholders, CSV reassignment', () => {
  it('moves labels, milestones, releases and links by three users, and maps every contribution', async () => {
    // Source: a project with labels, milestones, releases (with links) by alice, bob and carol.
    await enableBulkImport(source);
    const group = (await source.api('post', '/groups').send({ name: 'Src', path: 'src' }).expect(201)).body;
    const project = (await source.api('post', '/projects').send({ name: 'App', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
    const authors: User[] = [];
    for (const name of ['alice', 'bob', 'carol']) {
      const u = await source.user(name);
      await source.api('post', `/projects/${project.id}/members`).send({ user_id: u.id, access_level: 40 }).expect(201);
      authors.push(u);
    }
    for (const [i, name] of ['bug', 'feature', '=cmd|calc'].entries()) {
      await source
        .api('post', `/projects/${project.id}/labels`)
        .send({ name, color: `#00000${i}` })
        .expect(201);
    }
    await source.api('post', `/projects/${project.id}/milestones`).send({ title: 'M1', due_date: '2030-01-31' }).expect(201);
    await source.api('post', `/projects/${project.id}/milestones`).send({ title: 'M2' }).expect(201);
    for (const [i, author] of authors.entries()) {
      await source
        .api('post', `/projects/${project.id}/releases`, author.token)
        .send({
          tag_name: `v${i + 1}.0`,
          ref: 'main',
          description: `release by ${author.username}`,
          milestones: i === 0 ? ['M1', 'M2'] : ['M1'],
          assets: { links: [{ name: `bin-${i}`, url: `https://example.com/${i}/bin`, link_type: 'package' }] },
        })
        .expect(201);
    }

    // Export, not batched and batched (one user's export each time; the jobs write the files).
    await source.api('post', `/projects/${project.id}/export_relations`).expect(202, { message: '202 Accepted' });
    const started = (await source.api('get', `/projects/${project.id}/export_relations/status`).expect(200)).body;
    expect(started.map((s: { relation: string }) => s.relation)).toEqual(['self', 'labels', 'milestones', 'releases', 'repository_bundle', 'project_members']);
    expect(started.every((s: { status: number }) => s.status === 0)).toBe(true);
    await source.deps.jobs.drain();
    const finished = (await source.api('get', `/projects/${project.id}/export_relations/status?relation=releases`).expect(200)).body;
    expect(finished).toEqual({
      relation: 'releases',
      status: 1,
      error: null,
      updated_at: expect.any(String),
      batched: false,
      batches_count: 0,
      total_objects_count: 3,
    });
    const files: Record<string, Buffer> = {};
    for (const relation of ['self', 'labels', 'milestones', 'releases', 'repository_bundle']) {
      const res = await download(source, project.id, `relation=${relation}`).expect(200);
      const ext = { repository_bundle: 'bundle', self: 'json.gz' }[relation] ?? 'ndjson.gz';
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${relation}.${ext}"`);
      files[relation] = res.body as Buffer;
    }
    const releases = lines(files.releases);
    // GitLab's records: `tag`, `author_id`, `links`, `milestone_releases` with their milestone.
    const milestoneTitles = (r: { milestone_releases: { milestone: { title: string } }[] }) => r.milestone_releases.map((mr) => mr.milestone.title);
    expect(releases.map((r) => [r.tag, r.author.username, r.links[0].name, milestoneTitles(r)])).toEqual([
      ['v1.0', 'alice', 'bin-0', ['M1', 'M2']],
      ['v2.0', 'bob', 'bin-1', ['M1']],
      ['v3.0', 'carol', 'bin-2', ['M1']],
    ]);
    expect(releases[0].author.source_hostname).toBe(EXTERNAL_URL);
    expect(releases[0].author_id).toBe(releases[0].author.id);
    expect(lines(files.labels)[0]).toMatchObject({ title: 'bug', type: 'ProjectLabel', project_id: project.id, template: false });
    expect(lines(files.labels)[0]).not.toHaveProperty('name');
    // project_members: GitLab's member records (source_type Project) with the user each one is.
    const members = lines((await download(source, project.id, 'relation=project_members').expect(200)).body as Buffer);
    expect(members.map((m) => [m.user.username, m.access_level, m.source_type, m.source_id])).toEqual(
      authors.map((a) => [a.username, 40, 'Project', project.id]),
    );
    expect(members[0].user).toEqual({
      id: authors[0].id,
      username: 'alice',
      name: 'ALICE',
      email: 'alice@example.com',
      public_email: null,
      source_hostname: EXTERNAL_URL,
    });

    await source.api('post', `/projects/${project.id}/export_relations`).send({ batched: true }).expect(202);
    await source.deps.jobs.drain();
    const batched = (await source.api('get', `/projects/${project.id}/export_relations/status?relation=labels`).expect(200)).body;
    expect(batched).toMatchObject({
      batched: true,
      batches_count: 1,
      total_objects_count: 3,
      batches: [{ status: 1, batch_number: 1, objects_count: 3, error: null }],
    });
    const batchFile = (await download(source, project.id, 'relation=labels&batched=true&batch_number=1').expect(200)).body as Buffer;
    expect(lines(batchFile).map((l) => l.title)).toEqual(['bug', 'feature', '=cmd|calc']);
    const batchedReleases = (await download(source, project.id, 'relation=releases&batched=true&batch_number=1').expect(200)).body as Buffer;
    expect(lines(batchedReleases)).toEqual(releases);

    // Destination: another instance where only alice exists (a member of the target group); bob and carol do not.
    await enableBulkImport(destination);
    const alice = await destination.user('alice');
    const owner = await destination.user('owner');
    const robert = await destination.user('robert');
    const caroline = await destination.user('caroline');
    const target = (await destination.api('post', '/groups').send({ name: 'Dst', path: 'dst' }).expect(201)).body;
    await destination.api('post', `/groups/${target.id}/members`).send({ user_id: owner.id, access_level: 50 }).expect(201);
    await destination.api('post', `/groups/${target.id}/members`).send({ user_id: alice.id, access_level: 30 }).expect(201);
    const copy = (await destination.api('post', '/projects').send({ name: 'Copy', namespace_id: target.id }).expect(201)).body;
    const importFile = (relation: string, ext = 'ndjson.gz') =>
      destination
        .api('post', '/projects/import-relation', owner.token)
        .field('path', copy.path_with_namespace)
        .field('relation', relation)
        .attach('file', files[relation], `${relation}.${ext}`);
    await importFile('repository_bundle', 'bundle').expect(201);
    for (const relation of ['self', 'labels', 'milestones']) await importFile(relation).expect(201);
    const imported = (await importFile('releases').expect(201)).body;
    expect(imported).toEqual({
      id: expect.any(Number),
      project_path: 'dst/copy',
      relation: 'releases',
      status: 'finished',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Importing the same files again creates nothing new.
    await importFile('releases').expect(201);
    await importFile('labels').expect(201);
    await importFile('milestones').expect(201);
    await importFile('repository_bundle', 'bundle').expect(201);
    expect(await destination.db.release.count({ where: { projectId: copy.id } })).toBe(3);
    expect(await destination.db.label.count({ where: { projectId: copy.id } })).toBe(3);
    expect(await destination.db.milestone.count({ where: { projectId: copy.id } })).toBe(2);
    expect(await destination.db.releaseLink.count({ where: { release: { projectId: copy.id } } })).toBe(3);
    const sourceHead = execFileSync('git', ['-C', source.deps.git.pathFor(project.id), 'rev-parse', 'v1.0'])
      .toString()
      .trim();
    expect(
      execFileSync('git', ['-C', destination.deps.git.pathFor(copy.id), 'rev-parse', 'v1.0'])
        .toString()
        .trim(),
    ).toBe(sourceHead);
    const v1 = (await destination.api('get', `/projects/${copy.id}/releases/v1.0`, owner.token).expect(200)).body;
    expect(v1.milestones.map((m: { title: string }) => m.title).sort()).toEqual(['M1', 'M2']);
    expect(v1.assets.links.map((l: { name: string }) => l.name)).toEqual(['bin-0']);

    // alice maps directly; bob and carol have placeholders, which the CSV lists (the two last columns blank).
    const byTag = async () =>
      Object.fromEntries(
        (await destination.db.release.findMany({ where: { projectId: copy.id }, include: { author: true } })).map((r) => [r.tag, r.author!.username]),
      );
    const before = await byTag();
    expect(before['v1.0']).toBe('alice');
    expect(before['v2.0']).toMatch(/^bob_placeholder_user_/);
    expect(before['v3.0']).toMatch(/^carol_placeholder_user_/);
    const csv = await destination.api('get', `/groups/${target.id}/placeholder_reassignments`, owner.token).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="placeholder_reassignments_for_group_${target.id}_\\d+\\.csv"$`));
    const [bobSource, carolSource] = [authors[1], authors[2]];
    expect(csv.text).toBe(
      'Source host,Import type,Source user identifier,Source user name,Source username,GitLab username,GitLab public email\n' +
        `${EXTERNAL_URL},gitlab_migration,${bobSource.id},BOB,bob,"",""\n` +
        `${EXTERNAL_URL},gitlab_migration,${carolSource.id},CAROL,carol,"",""\n`,
    );

    // The owner fills in the CSV and uploads it; each user named is asked by e-mail, and nothing moves before they accept.
    const filled = csv.text.replace(`,bob,"",""`, ',bob,robert,').replace(`,carol,"",""`, `,carol,,caroline@example.com`);
    await destination
      .api('post', `/groups/${target.id}/placeholder_reassignments`, owner.token)
      .attach('file', Buffer.from(filled), 'reassign.csv')
      .expect(201, { message: 'The file is being processed and you will receive an email when completed.' });
    await destination.deps.jobs.drain();
    expect(await byTag()).toEqual(before);
    const mail = await destination.db.email.findMany({ where: { to: { has: 'owner@example.com' } } });
    expect(mail).toHaveLength(1);
    expect(mail[0].subject).toBe('Placeholder reassignments in dst completed');
    expect(mail[0].text).toContain('2 placeholder users of dst matched a user of the sheet');
    for (const [username, assignee] of [
      ['robert', robert],
      ['caroline', caroline],
    ] as const) {
      const asked = await destination.db.email.findFirstOrThrow({
        where: { to: { has: `${username}@example.com` }, subject: 'Reassignments in dst waiting for review' },
      });
      const accept = /Accept: POST \S+?(\/import\/source_users\/\S+)/.exec(asked.text)![1];
      await request(destination.base).post(accept).set('PRIVATE-TOKEN', assignee.token).expect(200);
    }
    await destination.deps.jobs.drain();
    expect(await byTag()).toEqual({ 'v1.0': 'alice', 'v2.0': 'robert', 'v3.0': 'caroline' });
    // Nothing is left to reassign, and the statuses say so through GraphQL too.
    expect(
      (await destination.api('get', `/groups/${target.id}/placeholder_reassignments`, owner.token).expect(200)).text.split('\n').filter(Boolean),
    ).toHaveLength(1);
    const gql = await destination.graphql(
      `query($path: ID!) { group(fullPath: $path) { importSourceUsers { nodes { sourceUsername status reassignToUser { username } placeholderUser { username } } } } }`,
      { path: 'dst' },
      owner.token,
    );
    expect(gql.body.data.group.importSourceUsers.nodes).toEqual([
      { sourceUsername: 'alice', status: 'COMPLETED', reassignToUser: { username: 'alice' }, placeholderUser: null },
      {
        sourceUsername: 'bob',
        status: 'COMPLETED',
        reassignToUser: { username: 'robert' },
        placeholderUser: { username: expect.stringMatching(/^bob_placeholder_user_/) },
      },
      {
        sourceUsername: 'carol',
        status: 'COMPLETED',
        reassignToUser: { username: 'caroline' },
        placeholderUser: { username: expect.stringMatching(/^carol_placeholder_user_/) },
      },
    ]);
    // A later import of the same contributors goes straight to the mapped users.
    const again = (await destination.api('post', '/projects').send({ name: 'Again', namespace_id: target.id }).expect(201)).body;
    await destination
      .api('post', '/projects/import-relation', owner.token)
      .field('path', again.path_with_namespace)
      .field('relation', 'releases')
      .attach('file', files.releases, 'releases.ndjson.gz')
      .expect(201);
    const againAuthors = (await destination.db.release.findMany({ where: { projectId: again.id }, include: { author: true }, orderBy: { tag: 'asc' } })).map(
      (r) => r.author!.username,
    );
    expect(againAuthors).toEqual(['alice', 'robert', 'caroline']);
  });
});
