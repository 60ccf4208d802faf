import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASSIGN_QUEUE } from '../src/modules/import-source-users/service.ts';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';
import { captureSmtp } from './helpers/smtp.ts';

type User = Awaited<ReturnType<TestApp['user']>>;

const ndjson = (objects: object[]) => gzipSync(objects.map((o) => JSON.stringify(o)).join('\n') + '\n');
const CSV_HEADER = 'Source host,Import type,Source user identifier,Source user name,Source username,GitLab username,GitLab public email';
const HOST = 'https://other.test';
const SHEET = 'The following errors are preventing the sheet from being processed: ';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof captureSmtp>>;
let received: Awaited<ReturnType<typeof captureSmtp>>['received'];
let owner: User;
let alice: User;
let mallory: User;
let maintainer: User;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

/** Source users by their source username: zed, yan, xi, wu, vic, uma each authored one release (tag = username). */
const CONTRIBUTORS = ['zed', 'yan', 'xi', 'wu', 'vic', 'uma'];

beforeAll(async () => {
  smtp = await captureSmtp();
  received = smtp.received;
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  [owner, alice, mallory, maintainer] = [await t.user('owner'), await t.user('alice'), await t.user('mallory'), await t.user('maint')];
  group = (await t.api('post', '/groups').send({ name: 'Consent', path: 'consent' }).expect(201)).body;
  await t.api('post', `/groups/${group.id}/members`).send({ user_id: owner.id, access_level: 50 }).expect(201);
  await t.api('post', `/groups/${group.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
  project = (await t.api('post', '/projects').send({ name: 'P', namespace_id: group.id }).expect(201)).body;
  const releases = CONTRIBUTORS.map((username, i) => ({
    tag_name: username,
    released_at: '2024-01-01T00:00:00Z',
    author: { id: 100 + i, username, name: username.toUpperCase(), email: `${username}@other.test`, source_hostname: HOST },
  }));
  await t
    .api('post', '/projects/import-relation', owner.token)
    .field('path', project.path_with_namespace)
    .field('relation', 'releases')
    .attach('file', ndjson(releases), 'r.ndjson.gz')
    .expect(201);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const authorOf = async (tag: string) =>
  (await t.db.release.findFirstOrThrow({ where: { projectId: project.id, tag }, include: { author: true } })).author!.username;
const sourceUser = (username: string) => t.db.importSourceUser.findFirstOrThrow({ where: { namespaceId: group.id, sourceUsername: username } });
const gidOf = (id: number) => `gid://gitlab/Import::SourceUser/${id}`;

const upload = (csv: string | Buffer, token = owner.token) =>
  t.api('post', `/groups/${group.id}/placeholder_reassignments`, token).attach('file', Buffer.isBuffer(csv) ? csv : Buffer.from(csv), 'map.csv');
const row = (username: string, gitlabUsername: string, email = '') =>
  `${HOST},gitlab_migration,${100 + CONTRIBUTORS.indexOf(username)},,${username},${gitlabUsername},${email}`;

const reassign = (username: string, assignee: User, token = owner.token) =>
  sourceUser(username).then((u) =>
    t.graphql(
      `mutation($id: ImportSourceUserID!, $to: UserID!) { importSourceUserReassign(input: { id: $id, assigneeUserId: $to }) { importSourceUser { status reassignToUser { username } } errors } }`,
      { id: gidOf(u.id), to: `gid://gitlab/User/${assignee.id}` },
      token,
    ),
  );

/** The links of the last reassignment request mailed to `user`, as paths on this server. */
function requestLinks(user: User) {
  const mail = received.filter((m) => m.to.includes(user.email) && /waiting for review/.test(m.subject)).at(-1);
  expect(mail).toBeDefined();
  const link = (label: string) => {
    const url = new RegExp(`${label}: (?:POST )?(\\S+)`).exec(mail!.text)?.[1];
    expect(url?.startsWith(`${EXTERNAL_URL}/import/source_users/`)).toBe(true);
    return url!.slice(EXTERNAL_URL.length);
  };
  const review = link('Review the request \\(signed in as @\\w+\\)');
  const [, id, token] = /^\/import\/source_users\/(\d+)\?reassignment_token=([0-9a-f]{32})$/.exec(review)!;
  return { mail: mail!, review, accept: link('Accept'), decline: link('Decline'), id: Number(id), token };
}

const web = (method: 'get' | 'post', path: string, token: string | null) => {
  const r = request(t.base)[method](path);
  return token ? r.set('PRIVATE-TOKEN', token) : r;
};

const answer = (accept: boolean, id: number, reassignmentToken: string, token: string | null) => {
  const name = accept ? 'importSourceUserAcceptReassignment' : 'importSourceUserRejectReassignment';
  return t.graphql(
    `mutation($id: ID!, $token: String!) { ${name}(input: { id: $id, reassignmentToken: $token }) { importSourceUser { status reassignToUser { username } } errors } }`,
    { id: gidOf(id), token: reassignmentToken },
    token,
  );
};

const NOT_FOUND = { message: '404 Import source user Not Found' };

describe('placeholder reassignment asks the assignee first', () => {
  it('CSV upload → e-mail link → GraphQL accept: root is not the author until root accepts', async () => {
    // root is the assignee here, as in the report: the owner maps a placeholder to root.
    const root = { ...t.root, email: (await t.db.user.findUniqueOrThrow({ where: { id: t.root.id } })).email } as unknown as User;
    await upload(`${CSV_HEADER}\n${row('zed', 'root')}\n`).expect(201, {
      message: 'The file is being processed and you will receive an email when completed.',
    });
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    const zed = await sourceUser('zed');
    expect(zed).toMatchObject({ status: 'awaiting_approval', reassignToUserId: t.root.id, reassignedByUserId: owner.id });
    expect(await authorOf('zed')).toMatch(/^zed_placeholder_user_/);

    // The contribution-moving job leaves a request awaiting approval alone, even when run for it.
    await t.deps.jobs.send(REASSIGN_QUEUE, { sourceUserIds: [zed.id] });
    await t.deps.jobs.drain();
    expect(await authorOf('zed')).toMatch(/^zed_placeholder_user_/);
    expect((await sourceUser('zed')).status).toBe('awaiting_approval');

    // root got a link; the owner a summary of the sheet. Only the token's digest is stored.
    const links = requestLinks(root);
    expect(links.mail.subject).toBe('Reassignments in consent waiting for review');
    expect(links.mail.text).toContain('Nothing moves unless you accept');
    expect(links.id).toBe(zed.id);
    expect(zed.reassignmentTokenDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(zed.reassignmentTokenDigest).not.toContain(links.token);
    const summary = received.filter((m) => m.to.includes(owner.email)).at(-1)!;
    expect(summary.subject).toBe('Placeholder reassignments in consent completed');
    expect(summary.text).toContain('ZED (@zed on https://other.test) → @root: awaiting approval');

    // The link shows the request to its assignee.
    const shown = await web('get', links.review, t.root.token).expect(200);
    expect(shown.body).toEqual({
      id: zed.id,
      source_hostname: HOST,
      source_name: 'ZED',
      source_username: 'zed',
      status: 'awaiting_approval',
      reassign_to_user: expect.objectContaining({ id: t.root.id, username: 'root' }),
      reassigned_by_user: expect.objectContaining({ id: owner.id, username: 'owner' }),
    });

    // Accepted through GraphQL: in progress, and the job moves the contributions.
    const accepted = await answer(true, links.id, links.token, t.root.token);
    expect(accepted.body.data.importSourceUserAcceptReassignment).toEqual({
      importSourceUser: { status: 'REASSIGNMENT_IN_PROGRESS', reassignToUser: { username: 'root' } },
      errors: [],
    });
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    expect(await authorOf('zed')).toBe('root');
    expect(await sourceUser('zed')).toMatchObject({ status: 'completed', reassignmentTokenDigest: null });

    // The token is spent: both interfaces answer as for a token that never existed.
    await web('post', links.accept, t.root.token).expect(404, NOT_FOUND);
    await web('get', links.review, t.root.token).expect(404, NOT_FOUND);
    expect((await answer(true, links.id, links.token, t.root.token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('decline through the e-mailed link: the contributions stay, the owner is told, the link is spent', async () => {
    const res = await reassign('yan', alice);
    expect(res.body.data.importSourceUserReassign).toEqual({
      importSourceUser: { status: 'AWAITING_APPROVAL', reassignToUser: { username: 'alice' } },
      errors: [],
    });
    await t.deps.jobs.drain();
    const links = requestLinks(alice);
    const declined = await web('post', links.decline, alice.token).expect(200);
    expect(declined.body).toMatchObject({ id: links.id, status: 'rejected', reassign_to_user: { username: 'alice' } });
    await t.deps.jobs.drain();
    expect(await authorOf('yan')).toMatch(/^yan_placeholder_user_/);
    const notice = received.filter((m) => m.to.includes(owner.email)).at(-1)!;
    expect(notice.subject).toBe('Reassignments in consent rejected');
    expect(notice.text).toContain('@alice declined');
    await web('post', links.accept, alice.token).expect(404, NOT_FOUND);
    expect((await answer(true, links.id, links.token, alice.token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    await t.deps.jobs.drain();
    expect(await authorOf('yan')).toMatch(/^yan_placeholder_user_/);

    // Rejected is reassignable again, and cancelable back to pending.
    const cancel = (token: string) =>
      sourceUser('yan').then((u) =>
        t.graphql(
          `mutation($id: ImportSourceUserID!) { importSourceUserCancelReassignment(input: { id: $id }) { importSourceUser { status reassignToUser { username } } errors } }`,
          { id: gidOf(u.id) },
          token,
        ),
      );
    expect((await cancel(maintainer.token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await cancel(owner.token)).body.data.importSourceUserCancelReassignment).toEqual({
      importSourceUser: { status: 'PENDING_REASSIGNMENT', reassignToUser: null },
      errors: [],
    });
    expect((await cancel(owner.token)).body.data.importSourceUserCancelReassignment.errors).toEqual([
      'Import source user has an invalid status for this operation',
    ]);
  });

  it('GraphQL reject and web decline, web accept and GraphQL accept: twins', async () => {
    await reassign('xi', alice);
    await t.deps.jobs.drain();
    let links = requestLinks(alice);
    const rejected = await answer(false, links.id, links.token, alice.token);
    expect(rejected.body.data.importSourceUserRejectReassignment).toEqual({
      importSourceUser: { status: 'REJECTED', reassignToUser: { username: 'alice' } },
      errors: [],
    });
    await reassign('xi', alice);
    await t.deps.jobs.drain();
    links = requestLinks(alice);
    expect((await web('post', links.accept, alice.token).expect(200)).body.status).toBe('reassignment_in_progress');
    await t.deps.jobs.drain();
    expect(await authorOf('xi')).toBe('alice');
  });

  it('only the assignee, with the right token, can see or answer: everyone else gets the same 404', async () => {
    await reassign('wu', alice);
    await t.deps.jobs.drain();
    const links = requestLinks(alice);
    const wrong = links.token.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const cases: [string, number, string, string][] = [
      ['another user holding the link', links.id, links.token, mallory.token],
      ['the owner who asked', links.id, links.token, owner.token],
      ['an administrator', links.id, links.token, t.root.token],
      ['the assignee with a wrong token', links.id, wrong, alice.token],
      ['the assignee with the token of another id', links.id + 1000, links.token, alice.token],
    ];
    for (const [, id, token, as] of cases) {
      const q = `?reassignment_token=${token}`;
      await web('get', `/import/source_users/${id}${q}`, as).expect(404, NOT_FOUND);
      await web('post', `/import/source_users/${id}/accept${q}`, as).expect(404, NOT_FOUND);
      await web('post', `/import/source_users/${id}/decline${q}`, as).expect(404, NOT_FOUND);
      for (const accept of [true, false]) {
        const res = await answer(accept, id, token, as);
        expect(res.body.errors[0]).toMatchObject({ message: 'Import source user not found', extensions: { code: 'NOT_FOUND' } });
      }
      const shown = await t.graphql(
        `query($id: ID!, $token: String!) { importSourceUserReassignmentRequest(id: $id, reassignmentToken: $token) { status } }`,
        { id: gidOf(id), token },
        as,
      );
      expect(shown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    // Signed out: 401 through both.
    await web('post', links.accept, null).expect(401, { message: '401 Unauthorized' });
    expect((await answer(true, links.id, links.token, null)).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    await web('post', `/import/source_users/${links.id}/accept`, alice.token).expect(400, { error: 'reassignment_token is missing' });
    await web('post', `/import/source_users/abc/accept?reassignment_token=${links.token}`, alice.token).expect(400, { error: 'id is invalid' });
    for (const id of ['99999999999', '0', '-1'])
      await web('post', `/import/source_users/${id}/accept?reassignment_token=${links.token}`, alice.token).expect(404, NOT_FOUND);
    await web('post', `/import/source_users/${links.id}/accept?reassignment_token=%00`, alice.token).expect(400, {
      error: 'reassignment_token contains a null byte',
    });
    // Nothing moved, and the request still works for alice.
    expect(await sourceUser('wu')).toMatchObject({ status: 'awaiting_approval' });
    expect(await authorOf('wu')).toMatch(/^wu_placeholder_user_/);
    await web('post', links.accept, alice.token).expect(200);
    await t.deps.jobs.drain();
    expect(await authorOf('wu')).toBe('alice');
  });

  it('resending the notification issues a new link and kills the old one', async () => {
    await reassign('vic', alice);
    await t.deps.jobs.drain();
    const first = requestLinks(alice);
    const resend = (token: string) =>
      t.graphql(
        `mutation($id: ImportSourceUserID!) { importSourceUserResendNotification(input: { id: $id }) { importSourceUser { status } errors } }`,
        { id: gidOf(first.id) },
        token,
      );
    expect((await resend(mallory.token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await resend(owner.token)).body.data.importSourceUserResendNotification).toEqual({ importSourceUser: { status: 'AWAITING_APPROVAL' }, errors: [] });
    await t.deps.jobs.drain();
    const second = requestLinks(alice);
    expect(second.token).not.toBe(first.token);
    await web('get', first.review, alice.token).expect(404, NOT_FOUND);
    await web('get', second.review, alice.token).expect(200);
    // Cancelled by the owner: the link is dead.
    await t.graphql(
      `mutation($id: ImportSourceUserID!) { importSourceUserCancelReassignment(input: { id: $id }) { errors } }`,
      { id: gidOf(first.id) },
      owner.token,
    );
    await web('post', second.accept, alice.token).expect(404, NOT_FOUND);
    expect(await sourceUser('vic')).toMatchObject({ status: 'pending_reassignment', reassignToUserId: null, reassignmentTokenDigest: null });
  });

  it('allow_bypass_placeholder_confirmation (off by default) lets an administrator skip the approval, nobody else', async () => {
    expect((await t.api('get', '/application/settings').expect(200)).body.allow_bypass_placeholder_confirmation).toBe(false);
    // Off: even an administrator's reassignment waits.
    expect((await reassign('uma', alice, t.root.token)).body.data.importSourceUserReassign.importSourceUser.status).toBe('AWAITING_APPROVAL');
    await t.graphql(`mutation($id: ImportSourceUserID!) { importSourceUserCancelReassignment(input: { id: $id }) { errors } }`, {
      id: gidOf((await sourceUser('uma')).id),
    });
    await t.deps.jobs.drain();

    await t.api('put', '/application/settings', owner.token).send({ allow_bypass_placeholder_confirmation: true }).expect(403);
    expect(
      (await t.api('put', '/application/settings').send({ allow_bypass_placeholder_confirmation: true }).expect(200)).body
        .allow_bypass_placeholder_confirmation,
    ).toBe(true);
    const gql = await t.graphql('{ applicationSettings { allowBypassPlaceholderConfirmation } }');
    expect(gql.body.data.applicationSettings.allowBypassPlaceholderConfirmation).toBe(true);
    try {
      // On: the owner's reassignment still waits.
      expect((await reassign('uma', alice)).body.data.importSourceUserReassign.importSourceUser.status).toBe('AWAITING_APPROVAL');
      await t.graphql(
        `mutation($id: ImportSourceUserID!) { importSourceUserCancelReassignment(input: { id: $id }) { errors } }`,
        { id: gidOf((await sourceUser('uma')).id) },
        owner.token,
      );
      await t.deps.jobs.drain();
      // An administrator's goes straight to the job; no request is mailed, the assignee is told afterwards.
      const mailsBefore = received.filter((m) => m.to.includes(alice.email)).length;
      expect((await reassign('uma', alice, t.root.token)).body.data.importSourceUserReassign.importSourceUser.status).toBe('REASSIGNMENT_IN_PROGRESS');
      await t.deps.jobs.drain();
      expect(await authorOf('uma')).toBe('alice');
      const mails = received.filter((m) => m.to.includes(alice.email)).slice(mailsBefore);
      expect(mails.map((m) => m.subject)).toEqual(['Contributions in consent reassigned to you']);
      expect(mails[0].text).toContain('without asking for your confirmation');
    } finally {
      await t.api('put', '/application/settings').send({ allow_bypass_placeholder_confirmation: false }).expect(200);
    }
  });
});

describe('hostile reassignment CSVs', () => {
  it('a NUL byte in a cell is a 400 naming its row and column, through REST and GraphQL', async () => {
    await upload(`${CSV_HEADER}\n${row('zed', 'ro\0ot')}\n`).expect(400, {
      message: 'The provided CSV file contains a null byte in row 2, column 6 (GitLab username).',
    });
    await upload(`${CSV_HEADER}\n${row('zed', '')}\n${HOST},gitlab_migration,1\u0000,,,,\n`).expect(400, {
      message: 'The provided CSV file contains a null byte in row 3, column 3 (Source user identifier).',
    });
    await upload(`Source host,Import type\0,Source user identifier,GitLab username,GitLab public email\n`).expect(400, {
      message: 'The provided CSV file contains a null byte in row 1, column 2 (Import type).',
    });
    const operations = {
      query: 'mutation($file: Upload!) { importSourceUsersReassignFromCsv(input: { groupPath: "consent", file: $file }) { message errors } }',
      variables: { file: null },
    };
    const res = await request(t.base)
      .post('/api/graphql')
      .set('Authorization', `Bearer ${owner.token}`)
      .field('operations', JSON.stringify(operations))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', Buffer.from(`${CSV_HEADER}\n${row('zed', '', 'a\0@b.c')}\n`), 'map.csv');
    expect(res.body.data.importSourceUsersReassignFromCsv).toEqual({
      message: null,
      errors: ['The provided CSV file contains a null byte in row 2, column 7 (GitLab public email).'],
    });
    expect(await t.deps.jobs.drain()).toEqual({ completed: 0, failed: 0 });
  });

  it('BOM, CRLF, quoted cells, invalid UTF-8, long cells and stray quotes stay 4xx (or work)', async () => {
    // A BOM, CRLF line ends and a quoted cell with a comma, a quote and a line break are fine (no row names a user: nothing to do).
    await upload(Buffer.from(`\uFEFF${CSV_HEADER}\r\n${HOST},gitlab_migration,999,"A, ""B""\r\nC",x,,\r\n`)).expect(201);
    await upload(Buffer.concat([Buffer.from(`${CSV_HEADER}\n${HOST},gitlab_migration,100,,zed,`), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(',\n')])).expect(
      422,
      {
        message: `${SHEET}Row 2: No matching user for provided information.`,
      },
    );
    await upload(`${CSV_HEADER}\n${row('zed', 'x'.repeat(5 * 1024 * 1024))}\n`).expect(422, {
      message: `${SHEET}Row 2: No matching user for provided information.`,
    });
    await upload(`${CSV_HEADER}\n${HOST},gitlab_migration,"100"x,,zed,alice,\n`).expect(422, {
      message: `${SHEET}The provided CSV file could not be processed.`,
    });
    await upload(`${CSV_HEADER}\n${HOST},gitlab_migration,"100,,zed,alice,\n`).expect(422, {
      message: `${SHEET}The provided CSV file could not be processed.`,
    });
    await upload(`${CSV_HEADER}\n` + `${HOST},gitlab_migration,1,,,,\r`.repeat(50_001)).expect(422, {
      message: `${SHEET}The provided CSV file exceeds the maximum number of rows (50000).`,
    });
    // GitLab's delimiter ceiling (625,000), checked before the cells are split: 10 MB of commas is not ten million strings.
    await upload(`${CSV_HEADER}\n${row('zed', '')}` + ','.repeat(625_000)).expect(422, {
      message: `${SHEET}The provided CSV file has too many rows or columns to be processed.`,
    });
    await upload(`${CSV_HEADER}\n${row('zed', '')}` + ','.repeat(625_000 - 12) + '\n').expect(201);
    await upload('\r\n\r\n').expect(422, { message: `${SHEET}The provided CSV was not correctly formatted.` });
    await upload('').expect(422, { message: `${SHEET}The provided CSV was not correctly formatted.` });
  });
});
