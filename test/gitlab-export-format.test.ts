// Relation files in GitLab's format, both ways. Each relation has one record written here by hand
// in the shape of GitLab's import/export tree (lib/gitlab/import_export/{group,project}/
// import_export.yml and the NDJSON files GitLab's exports write: key names, nesting, enum
// spellings, timestamps with milliseconds in UTC, dates as days). A test exports the same kind of
// data from forgegate and checks that each record has exactly that shape, give or take the keys
// forgegate adds for its own importer; another imports the hand-written project records.
import { gzipSync, gunzipSync } from 'node:zlib';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

type Row = Record<string, unknown>;

const TIME = '2024-03-04T10:11:12.345Z';
const DAY = '2024-05-01';

const groupLabel = {
  id: 71,
  title: 'backend',
  color: '#336699',
  project_id: null,
  group_id: 9,
  created_at: TIME,
  updated_at: TIME,
  template: false,
  description: 'Server side',
  type: 'GroupLabel',
  priorities: [],
};

const epicColumns = {
  id: 501,
  milestone_id: null,
  group_id: 9,
  author_id: 3,
  iid: 2,
  updated_by_id: null,
  last_edited_by_id: null,
  lock_version: 0,
  start_date: DAY,
  end_date: null,
  last_edited_at: null,
  created_at: TIME,
  updated_at: TIME,
  title: 'Checkout v2',
  description: 'The new flow',
  start_date_sourcing_milestone_id: null,
  due_date_sourcing_milestone_id: null,
  start_date_fixed: DAY,
  due_date_fixed: null,
  start_date_is_fixed: true,
  due_date_is_fixed: false,
  closed_by_id: null,
  closed_at: null,
  parent_id: 500,
  relative_position: null,
  state: 'opened',
  start_date_sourcing_epic_id: null,
  due_date_sourcing_epic_id: null,
  confidential: false,
  color: '#1068BF',
};

/** A project milestone, on its own and as a release's milestone link carries it. */
const projectMilestone = {
  id: 32,
  title: 'v1.0',
  project_id: 12,
  group_id: null,
  description: 'First cut',
  due_date: '2024-06-30',
  start_date: null,
  created_at: TIME,
  updated_at: TIME,
  state: 'closed',
  iid: 1,
  events: [],
};

/** One hand-written record per relation, as GitLab's export writes it. */
const GITLAB: Record<string, Row> = {
  'group/self': {
    name: 'Platform',
    path: 'platform',
    description: 'Shared services',
    avatar: { url: null },
    membership_lock: false,
    share_with_group_lock: false,
    visibility_level: 10,
    request_access_enabled: true,
    parent_id: null,
    lfs_enabled: true,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: 2,
    subgroup_creation_level: 0,
    emails_disabled: null,
  },
  'group/labels': groupLabel,
  'group/milestones': {
    id: 31,
    title: 'Q2',
    project_id: null,
    group_id: 9,
    description: 'Second quarter',
    due_date: '2024-06-30',
    start_date: '2024-04-01',
    created_at: TIME,
    updated_at: TIME,
    state: 'active',
    iid: 1,
    events: [],
  },
  'group/epics': {
    ...epicColumns,
    parent: { ...epicColumns, id: 500, iid: 1, parent_id: null, title: 'Checkout' },
    award_emoji: [{ id: 8, name: 'thumbsup', user_id: 4, awardable_type: 'Epic', awardable_id: 501, created_at: TIME, updated_at: TIME }],
    events: [],
    label_links: [{ target_id: 501, target_type: 'Epic', label_id: 71, created_at: null, updated_at: null, label: groupLabel }],
    notes: [],
    resource_state_events: [],
  },
  'group/members': {
    id: 91,
    access_level: 30,
    source_id: 9,
    source_type: 'Namespace',
    user_id: 4,
    notification_level: 3,
    created_at: TIME,
    updated_at: TIME,
    created_by_id: null,
    invite_email: null,
    invite_token: null,
    invite_accepted_at: null,
    requested_at: null,
    expires_at: null,
    ldap: false,
    override: false,
    user: { id: 4, public_email: null, username: 'dana' },
  },
  'project/labels': {
    ...groupLabel,
    project_id: 12,
    group_id: null,
    type: 'ProjectLabel',
    priorities: [{ project_id: 12, priority: 1, created_at: TIME, updated_at: TIME }],
  },
  'project/milestones': projectMilestone,
  'project/releases': {
    id: 41,
    tag: 'v1.0.0',
    description: 'Notes',
    project_id: 12,
    created_at: TIME,
    updated_at: TIME,
    author_id: 3,
    name: 'First',
    sha: '0123456789abcdef0123456789abcdef01234567',
    released_at: TIME,
    links: [{ id: 5, url: 'https://example.com/pkg', name: 'pkg', filepath: '/pkg', link_type: 'package', created_at: TIME, updated_at: TIME }],
    milestone_releases: [
      {
        milestone_id: 32,
        release_id: 41,
        milestone: projectMilestone,
      },
    ],
  },
  'project/project_members': {
    id: 92,
    access_level: 40,
    source_id: 12,
    source_type: 'Project',
    user_id: 4,
    notification_level: 3,
    created_at: TIME,
    updated_at: TIME,
    created_by_id: 1,
    invite_email: null,
    invite_token: null,
    invite_accepted_at: null,
    requested_at: null,
    expires_at: '2030-01-01',
    ldap: false,
    override: false,
    user: { id: 4, public_email: null, username: 'dana' },
  },
};

/**
 * The keys forgegate adds to GitLab's records (GitLab's importer ignores keys it does not know):
 * who a contributor is, for the placeholder user a destination creates.
 */
const FORGEGATE_ONLY = ['author', 'award_emoji[].user', 'user.name', 'user.email', 'user.source_hostname'];
const forgegateOnly = (path: string) => FORGEGATE_ONLY.some((p) => path === p || path.startsWith(`${p}.`));

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DATE = /^\d{4}-\d\d-\d\d$/;

/**
 * A record's shape: every key path with the kind of its value (`object`, `array`, a timestamp,
 * a date, a scalar type), arrays by their first element. Null says nothing about the kind.
 */
function shape(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) {
    out.set(path, 'array');
    if (value.length) shape(value[0], `${path}[]`, out);
  } else if (value && typeof value === 'object') {
    if (path) out.set(path, 'object');
    for (const [key, v] of Object.entries(value)) {
      const child = path ? `${path}.${key}` : key;
      if (!forgegateOnly(child)) shape(v, child, out);
    }
  } else if (value !== null) {
    const kind = typeof value === 'string' && TIMESTAMP.test(value) ? 'timestamp' : typeof value === 'string' && DATE.test(value) ? 'date' : typeof value;
    out.set(path, kind);
  } else out.set(path, out.get(path) ?? 'null');
  return out;
}

/** Shapes compared key by key: the same keys; where both are non-null, the same kind. */
function expectSameShape(ours: Row, theirs: Row) {
  const a = shape(ours);
  const b = shape(theirs);
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [key, kind] of b) {
    const mine = a.get(key);
    if (kind !== 'null' && mine !== 'null') expect(`${key}: ${mine}`).toBe(`${key}: ${kind}`);
  }
}

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
let group: { id: number };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  t = await createTestApp();
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  const dana = await t.user('dana');
  group = (await t.api('post', '/groups').send({ name: 'Platform', path: 'platform', visibility: 'internal' }).expect(201)).body;
  await t.api('post', `/groups/${group.id}/members`).send({ user_id: dana.id, access_level: 30 }).expect(201);
  await t.api('post', `/groups/${group.id}/labels`).send({ name: 'backend', color: '#336699', description: 'Server side' }).expect(201);
  await t.api('post', `/groups/${group.id}/milestones`).send({ title: 'Q2', start_date: '2024-04-01', due_date: '2024-06-30' }).expect(201);
  const parent = (await t.api('post', `/groups/${group.id}/epics`).send({ title: 'Checkout' }).expect(201)).body;
  const epic = (
    await t
      .api('post', `/groups/${group.id}/epics`, dana.token)
      .send({ title: 'Checkout v2', labels: 'backend', parent_id: parent.id, start_date_is_fixed: true, start_date_fixed: DAY })
      .expect(201)
  ).body;
  await t.api('post', `/groups/${group.id}/epics/${epic.iid}/award_emoji`, dana.token).send({ name: 'thumbsup' }).expect(201);

  project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: dana.id, access_level: 40, expires_at: '2030-01-01' }).expect(201);
  await t.api('post', `/projects/${project.id}/labels`).send({ name: 'ui', color: '#112233', priority: 1 }).expect(201);
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'v1.0', due_date: '2024-06-30' }).expect(201);
  await t
    .api('post', `/projects/${project.id}/releases`)
    .send({
      tag_name: 'v1.0.0',
      ref: 'main',
      name: 'First',
      milestones: ['v1.0'],
      assets: { links: [{ name: 'pkg', url: 'https://example.com/pkg', filepath: '/pkg', link_type: 'package' }] },
    })
    .expect(201);
  await t.api('post', `/groups/${group.id}/export_relations`).expect(202);
  await t.api('post', `/projects/${project.id}/export_relations`).expect(202);
  await t.deps.jobs.drain();
});
afterAll(async () => {
  await t?.close();
});

describe("forgegate's exports have GitLab's shape", () => {
  for (const key of Object.keys(GITLAB)) {
    it(key, async () => {
      const [kind, relation] = key.split('/');
      const id = kind === 'group' ? group.id : project.id;
      const res = await t.api('get', `/${kind}s/${id}/export_relations/download?relation=${relation}`).buffer(true).parse(binary).expect(200);
      const records = lines(res.body as Buffer);
      // The record with the most nesting filled in (the epic with a parent, the label with a priority).
      const filled = (r: Row) => Boolean(r.parent) || Boolean((r.priorities as unknown[] | undefined)?.length);
      const ours = records.find(filled) ?? records[0];
      expect(ours).toBeDefined();
      expectSameShape(ours, GITLAB[key]);
    });
  }

  it('the shape check sees a renamed key and a timestamp without milliseconds (positive control)', () => {
    const label = GITLAB['group/labels'];
    const { title, ...renamed } = label;
    expect(() => expectSameShape({ ...renamed, name: title }, label)).toThrow();
    expect(() => expectSameShape({ ...label, created_at: '2024-03-04 10:11:12 UTC' }, label)).toThrow();
    expect(() => expectSameShape(label, label)).not.toThrow();
  });
});

describe("GitLab's records import into a project", () => {
  it('labels (with their priority), milestones and releases (with links and milestones)', async () => {
    const target = (await t.api('post', '/projects').send({ name: 'Target', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
    const post = (relation: string, records: Row[]) =>
      t
        .api('post', '/projects/import-relation')
        .field('path', target.path_with_namespace)
        .field('relation', relation)
        .attach('file', gzipSync(`${records.map((r) => JSON.stringify(r)).join('\n')}\n`), `${relation}.ndjson.gz`)
        .expect(201);
    await post('labels', [GITLAB['project/labels']]);
    await post('milestones', [GITLAB['project/milestones']]);
    await post('releases', [GITLAB['project/releases']]);
    const labels = (await t.api('get', `/projects/${target.id}/labels?include_ancestor_groups=false`).expect(200)).body;
    expect(labels.map((l: Row) => [l.name, l.color, l.description, l.priority])).toEqual([['backend', '#336699', 'Server side', 1]]);
    const milestones = (await t.api('get', `/projects/${target.id}/milestones`).expect(200)).body;
    expect(milestones.map((m: Row) => [m.title, m.state, m.due_date])).toEqual([['v1.0', 'closed', '2024-06-30']]);
    const release = (await t.api('get', `/projects/${target.id}/releases/v1.0.0`).expect(200)).body;
    expect(release).toMatchObject({ name: 'First', description: 'Notes', milestones: [expect.objectContaining({ title: 'v1.0' })] });
    expect(release.assets.links).toEqual([expect.objectContaining({ name: 'pkg', url: 'https://example.com/pkg', link_type: 'package' })]);
  });
});
