// What GitLab's direct-transfer importer asks of a source before and while it pulls a group
// (lib/bulk_imports/clients/http.rb, clients/graphql.rb, groups/graphql/*, projects/graphql/*,
// groups/extractors/subgroups_extractor.rb), asked here as it asks them: the REST client's token in
// `private_token` with its `page`/`per_page`, the GraphQL client's Bearer token and body.
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

let t: TestApp;
let token: string;

/** GitLab's BulkImports::Clients::HTTP: every request carries the token and a page as query parameters. */
const rest = (method: 'get' | 'head', path: string, query: Record<string, string | number> = {}) =>
  request(t.base)
    [method](`/api/v4/${path}`)
    .set('Content-Type', 'application/json')
    .query({ page: 1, per_page: 30, private_token: token, ...query });

/** GitLab's BulkImports::Clients::Graphql. */
const graphql = (query: string, variables: Record<string, unknown>) =>
  request(t.base)
    .post('/api/graphql')
    .set({ 'Content-Type': 'application/json', Authorization: `Bearer ${token}` })
    .send(JSON.stringify({ query, operationName: null, variables }));

// The importer's queries, verbatim (GitLab 16.1 and later).
const GET_GROUP = `query($full_path: ID!) {
  group(fullPath: $full_path) {
    id
    name
    path
    description
    visibility
    emails_disabled: emailsDisabled
    lfs_enabled: lfsEnabled
    mentions_disabled: mentionsDisabled
    project_creation_level: projectCreationLevel
    request_access_enabled: requestAccessEnabled
    require_two_factor_authentication: requireTwoFactorAuthentication
    share_with_group_lock: shareWithGroupLock
    subgroup_creation_level: subgroupCreationLevel
    two_factor_grace_period: twoFactorGracePeriod
  }
}`;
const GET_PROJECTS = `query($full_path: ID!, $cursor: String, $per_page: Int) {
  group(fullPath: $full_path) {
    projects(includeSubgroups: false, notAimedForDeletion: true, first: $per_page, after: $cursor) {
      page_info: pageInfo {
        next_page: endCursor
        has_next_page: hasNextPage
      }
      nodes {
        id
        name
        path
        full_path: fullPath
      }
    }
  }
}`;
const GET_PROJECT = `query($full_path: ID!) {
  project(fullPath: $full_path) {
    id
    name
    visibility
    created_at: createdAt
  }
}`;
const GET_REPOSITORY = `query($full_path: ID!) {
  project(fullPath: $full_path) {
    httpUrlToRepo
  }
}`;

type ProjectsPage = {
  errors?: unknown;
  data: { group: { projects: { page_info: { next_page: string | null; has_next_page: boolean }; nodes: { name: string; path: string }[] } } };
};

beforeAll(async () => {
  t = await createTestApp();
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
  const owner = await t.user('mover');
  token = owner.token;
  const group = (await t.api('post', '/groups', token).send({ name: 'Source', path: 'source', description: 'To move' }).expect(201)).body;
  await t.api('post', '/groups', token).send({ name: 'Child', path: 'child', parent_id: group.id }).expect(201);
  for (const name of ['one', 'two', 'three']) await t.api('post', '/projects', token).send({ name, namespace_id: group.id }).expect(201);
});
afterAll(async () => {
  await t?.close();
});

describe('before the import starts', () => {
  it('answers /version and /metadata with a version and edition GitLab accepts', async () => {
    for (const path of ['version', 'metadata']) {
      const { body } = await rest('get', path).expect(200);
      // GitLab's importer parses major.minor.patch, refuses majors below 14, checks the token's scopes from 15.5
      // and migrates projects from 15.x; epics come only from an enterprise source.
      const [major, minor] = /^(\d+)\.(\d+)\.(\d+)/.exec(body.version)!.slice(1).map(Number);
      expect(major * 100 + minor).toBeGreaterThanOrEqual(1605);
      expect(body.enterprise).toBe(true);
    }
  });

  it("shows the token's scopes (GitLab wants `api`)", async () => {
    const { body } = await rest('get', 'personal_access_tokens/self').expect(200);
    expect(body.scopes).toContain('api');
  });

  it('answers the bulk-import probe (export_relations/status) when enabled, 404 when not', async () => {
    await rest('get', 'groups/source/export_relations/status').expect(200, []);
    await t.api('put', '/application/settings').send({ bulk_import_enabled: false }).expect(200);
    try {
      await rest('get', 'groups/source/export_relations/status').expect(404);
    } finally {
      await t.api('put', '/application/settings').send({ bulk_import_enabled: true }).expect(200);
    }
  });
});

describe("the importer's GraphQL queries, verbatim", () => {
  it("reads the group's attributes", async () => {
    const { body } = await graphql(GET_GROUP, { full_path: 'source' }).expect(200);
    expect(body).toEqual({
      data: {
        group: {
          id: expect.stringMatching(/^gid:\/\/gitlab\/Group\/\d+$/),
          name: 'Source',
          path: 'source',
          description: 'To move',
          visibility: 'private',
          emails_disabled: false,
          lfs_enabled: true,
          mentions_disabled: null,
          project_creation_level: 'developer',
          request_access_enabled: true,
          require_two_factor_authentication: false,
          share_with_group_lock: false,
          subgroup_creation_level: 'owner',
          two_factor_grace_period: 48,
        },
      },
    });
  });

  it("lists the group's own projects page by page, as the importer follows `next_page`", async () => {
    const names: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const variables: Record<string, unknown> = { full_path: 'source', cursor, per_page: 2 };
      const body: ProjectsPage = (await graphql(GET_PROJECTS, variables).expect(200)).body;
      expect(body.errors).toBeUndefined();
      const projects: ProjectsPage['data']['group']['projects'] = body.data.group.projects;
      for (const node of projects.nodes) {
        expect(node).toEqual({
          id: expect.stringMatching(/^gid:\/\/gitlab\/Project\/\d+$/),
          name: node.name,
          path: node.path,
          full_path: `source/${node.path}`,
        });
        names.push(node.name);
      }
      if (!projects.page_info.has_next_page) break;
      cursor = projects.page_info.next_page;
    }
    expect(names.sort()).toEqual(['one', 'three', 'two']);
  });

  it("reads a project's attributes and its repository's URL", async () => {
    const project = (await graphql(GET_PROJECT, { full_path: 'source/one' }).expect(200)).body;
    expect(project).toEqual({
      data: { project: { id: expect.stringMatching(/^gid:\/\/gitlab\/Project\/\d+$/), name: 'one', visibility: 'private', created_at: expect.any(String) } },
    });
    const repository = (await graphql(GET_REPOSITORY, { full_path: 'source/one' }).expect(200)).body;
    expect(repository).toEqual({ data: { project: { httpUrlToRepo: `${EXTERNAL_URL}/source/one.git` } } });
  });

  it('lists subgroups through REST, 100 a page', async () => {
    const { body } = await rest('get', `groups/${encodeURIComponent('source')}/subgroups`, { per_page: 100 }).expect(200);
    expect(body.map((g: { full_path: string }) => g.full_path)).toEqual(['source/child']);
  });
});

describe('downloading as the importer does', () => {
  it('answers HEAD with the type and length it checks, then the file; `self` is one JSON object', async () => {
    await rest('get', 'groups/source/export_relations/status').expect(200);
    await request(t.base).post('/api/v4/groups/source/export_relations').query({ private_token: token }).expect(202);
    await t.deps.jobs.drain();
    const head = await rest('head', 'groups/source/export_relations/download', { relation: 'self' }).expect(200);
    expect(head.headers['content-type']).toBe('application/gzip');
    const length = Number(head.headers['content-length']);
    expect(length).toBeGreaterThan(0);
    const res = await rest('get', 'groups/source/export_relations/download', { relation: 'self' })
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect((res.body as Buffer).length).toBe(length);
    // GitLab's importer reads `self.json` whole with a JSON parser.
    expect(JSON.parse(gunzipSync(res.body as Buffer).toString('utf8'))).toMatchObject({ name: 'Source', path: 'source', visibility_level: 0 });
  });
});
