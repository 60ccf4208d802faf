// /api/graphql executes with graphql-jit; Yoga's own executor is the reference. The same documents
// on the same data answer the same bytes (data, errors with their locations, paths and extensions,
// HTTP status), and the compiled path is really the one taken. test/graphql-gitlab-documents.test.ts
// compares GitLab's frontend documents the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASES_QUERY } from '../bench/documents.ts';
import { jitExecutions } from '../src/graphql/jit.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';

let t: TestApp;
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
let fullPath: string;
let outsider: string;
let readRepository: string;

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  const { project } = await seedProject(t);
  fullPath = project.path_with_namespace;
  const p = `/projects/${project.id}`;
  await t.api('post', `${p}/milestones`).send({ title: 'M1', description: 'first' }).expect(201);
  await t
    .api('post', `${p}/releases`)
    .send({
      tag_name: 'v1',
      ref: 'main',
      name: 'One',
      description: 'The **first** :tada:',
      milestones: ['M1'],
      assets: { links: [{ name: 'linux', url: 'https://cdn.test/linux', direct_asset_path: '/bin/linux', link_type: 'package' }] },
    })
    .expect(201);
  await t.api('post', `${p}/releases`).send({ tag_name: 'v2', ref: 'main', description: 'second' }).expect(201);
  outsider = (await t.user('outsider')).token;
  readRepository = await t.token(t.root.id, ['read_repository']);
});
afterAll(() => t.close());

describe('graphql-jit behind /api/graphql', () => {
  it("answers the bench's release list as the reference executor does, for a member and an outsider", async () => {
    const member = await engines.compare(RELEASES_QUERY, { fullPath });
    expect(member.body.data.project.releases.nodes.map((r: { tagName: string }) => r.tagName)).toEqual(['v2', 'v1']);
    expect(member.body.data.project.releases.nodes[1].assets.links.nodes).toHaveLength(1);
    expect((await engines.compare(RELEASES_QUERY, { fullPath }, outsider)).body.data).toEqual({ project: null });
  });

  it('drops skipped fields and keeps included ones, by variables and literals', async () => {
    const doc = `query($fullPath: ID!, $skipAuthor: Boolean!, $withAssets: Boolean!) {
      project(fullPath: $fullPath) { releases(first: 5) { nodes {
        tagName author @skip(if: $skipAuthor) { username } assets @include(if: $withAssets) { count }
        ... on Release @skip(if: $skipAuthor) { name } ...Links @include(if: true) upcoming: upcomingRelease @skip(if: false)
      } } }
    }
    fragment Links on Release { links { selfUrl } }`;
    for (const [skipAuthor, withAssets] of [
      [true, false],
      [false, true],
    ]) {
      const { body } = await engines.compare(doc, { fullPath, skipAuthor, withAssets });
      const [node] = body.data.project.releases.nodes;
      expect('author' in node, 'author').toBe(!skipAuthor);
      expect('assets' in node, 'assets').toBe(withAssets);
    }
  });

  it('answers introspection, aliases and an operation picked by name', async () => {
    await engines.compare(
      '{ __schema { queryType { name } mutationType { name } } __type(name: "Release") { name kind fields { name type { name kind ofType { name } } } } }',
    );
    await engines.compare(`query A { currentUser { username } } query B { me: currentUser { __typename id } }`, {}, t.root.token, { operationName: 'B' });
  });

  it('answers errors the same way: field errors, payload errors, variables, scopes, cost and time', async () => {
    // A resolver's domain error, with its path, location and extensions.
    const forbidden = await engines.compare('{ outboxEmails { totalCount } }', {}, outsider);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // A mutation's payload errors, reported in extensions.payloadErrors (the data do not change).
    const invalid = await engines.compare(`mutation($input: MilestoneCreateInput!) { milestoneCreate(input: $input) { errors milestone { id } } }`, {
      input: { projectPath: fullPath, title: 'bad', startDate: '2099-03-01', dueDate: '2099-02-01' },
    });
    expect(invalid.body.extensions.payloadErrors).toHaveLength(1);
    // Variables that do not coerce, or are missing: the reference executor's words on both apps.
    await engines.compare('query($first: Int) { projects(first: $first) { count } }', { first: 'many' }, t.root.token, { compiled: false });
    await engines.compare('query($fullPath: ID!) { project(fullPath: $fullPath) { id } }', {}, t.root.token, { compiled: false });
    // Several operations and no name: graphql-jit compiles nothing, the reference answers.
    await engines.compare('query A { currentUser { id } } query B { currentUser { username } }', {}, t.root.token, { compiled: false });
    // Refused before execution: a token without the scope, a query over its cost ceiling.
    const scope = await engines.compare(RELEASES_QUERY, { fullPath }, readRepository, { compiled: false });
    expect(scope.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    await engines.compare(
      `{ project(fullPath: "${fullPath}") { repository { blobs(paths: ["README.md"], ref: "main") { nodes { path } } } } }`,
      {},
      readRepository,
    );
    const hostile = `{ project(fullPath: "${fullPath}") { ${Array.from({ length: 30 }, (_, i) => `a${i}: releases(first: 100) { nodes { name assets { links(first: 100) { nodes { url } } } } }`).join(' ')} } }`;
    expect((await engines.compare(hostile, {}, t.root.token, { compiled: false })).body.errors[0].message).toMatch(/exceeds max complexity/);
    // GRAPHQL_TIMEOUT_MS wraps the compiled executor too.
    const slow = await graphqlEngines(t, { ...t.deps, config: { ...t.deps.config, graphqlTimeoutMs: 1 } });
    expect((await slow.compare(RELEASES_QUERY, { fullPath })).body.errors[0].extensions.code).toBe('QUERY_TIMEOUT');
  });

  it('runs a document compiled from its second sighting on, and not at all on the reference app', async () => {
    const doc = `{ currentUser { username } } # counted`;
    const counts = () => ({ ...jitExecutions });
    const start = counts();
    await engines.post(engines.reference, { query: doc }, t.root.token);
    expect(counts(), 'the reference app').toEqual(start);
    await engines.post(engines.jit, { query: doc }, t.root.token);
    expect(counts(), 'first sighting').toEqual({ compiled: start.compiled, reference: start.reference + 1 });
    for (let i = 0; i < 3; i++) await engines.post(engines.jit, { query: doc }, t.root.token);
    expect(counts(), 'compiled').toEqual({ compiled: start.compiled + 3, reference: start.reference + 1 });
  });
});
