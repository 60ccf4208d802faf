// The read side of direct transfer (issue 41): the bulk-import routes driven by @gitbeaker/rest
// 43.8.0, the same viewer getting the same answer through REST and GraphQL, a constant number of
// statements per page, and destination paths looked up exactly (through the paths' indexes).
// The app is its own source: it pulls from its own export routes over loopback.
import { Gitlab } from '@gitbeaker/rest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';
import { expectTwins, type Twin } from './helpers/twins.ts';

type Row = Record<string, unknown>;
type User = Awaited<ReturnType<TestApp['user']>>;

let t: TestApp;
let alice: User;
let bob: User;
let api: InstanceType<typeof Gitlab>;
/** Alice's migrations: one finished, one failed (its source group does not exist). */
let finished: Row;
let failed: Row;
let failedEntity: Row;

/** Runs the app's queued jobs (its exports and its imports) until the migration is over. */
async function migrate(id: number): Promise<Row> {
  for (let round = 0; round < 100; round++) {
    await t.deps.jobs.drain().catch(() => undefined);
    const status = (await t.api('get', `/bulk_imports/${id}`, alice.token).expect(200)).body;
    if (!['created', 'started'].includes(status.status)) return status;
  }
  throw new Error('the migration did not end');
}

const groupEntity = (source: string, slug: string, namespace = '') => ({
  sourceType: 'group_entity',
  sourceFullPath: source,
  destinationSlug: slug,
  destinationNamespace: namespace,
});

beforeAll(async () => {
  t = await createTestApp();
  await t.api('put', '/application/settings').send({ bulk_import_enabled: true, allow_local_requests_from_web_hooks_and_services: true }).expect(200);
  alice = await t.user('alice');
  bob = await t.user('bob');
  api = gitbeaker(t.base, alice.token);
  const group = (await t.api('post', '/groups').send({ name: 'Acme', path: 'acme' }).expect(201)).body;
  await t.api('post', `/groups/${group.id}/labels`).send({ name: 'bug', color: '#ff0000' }).expect(201);
});
afterAll(() => t?.close());

describe('@gitbeaker/rest 43.8.0: Migrations', () => {
  it('creates migrations, lists and shows them and their entities; failures and cancel through its requester', async () => {
    const source = { url: t.base, access_token: t.root.token };
    // The destination is written the way gitbeaker's type names it (camelCase, decamelized on the wire).
    const created = await api.Migrations.create(source, [groupEntity('acme', 'acme-copy')]);
    expect(created).toMatchObject({ status: 'created', source_type: 'gitlab', source_url: t.base, has_failures: false });
    finished = await migrate(created.id);
    expect(finished).toMatchObject({ id: created.id, status: 'finished' });
    expect((await t.api('get', '/groups/acme-copy/labels').expect(200)).body.map((l: Row) => l.name)).toEqual(['bug']);

    // The source group is there when the migration is created (GitLab checks), gone when it runs.
    const doomed = (await t.api('post', '/groups').send({ name: 'Missing', path: 'missing' }).expect(201)).body;
    failed = await api.Migrations.create(source, [groupEntity('missing', 'missing-copy')]);
    await t.api('put', `/groups/${doomed.id}`).send({ path: 'moved-away' }).expect(200);
    expect(await migrate(failed.id as number)).toMatchObject({ status: 'failed', has_failures: true });

    expect((await api.Migrations.all()).map((m) => [m.id, m.status])).toEqual([
      [created.id, 'finished'],
      [failed.id, 'failed'],
    ]);
    expect((await api.Migrations.all({ status: 'failed' })).map((m) => m.id)).toEqual([failed.id]);
    expect(await api.Migrations.show(created.id)).toMatchObject({ id: created.id, status: 'finished', has_failures: false });

    const all = await api.Migrations.allEntities();
    expect(all.map((e) => [e.bulk_import_id, e.source_full_path, e.status])).toEqual([
      [created.id, 'acme', 'finished'],
      [failed.id, 'missing', 'failed'],
    ]);
    const [entity] = await api.Migrations.allEntities({ bulkImportId: failed.id as number });
    failedEntity = entity!;
    expect(failedEntity).toMatchObject({ source_full_path: 'missing', destination_full_path: 'missing-copy', status: 'failed', has_failures: true });
    expect(await api.Migrations.showEntity(failed.id as number, failedEntity.id as number)).toEqual(failedEntity);
    expect(failedEntity.failures).toEqual([expect.objectContaining({ relation: 'entity', exception_class: 'BulkImports::Error', source_title: 'missing' })]);

    // gitbeaker 43.8 has no method for an entity's failures nor for cancel: its requester sends them.
    const failures = await api.Migrations.requester.get(`bulk_imports/${failed.id}/entities/${failedEntity.id}/failures`, {});
    expect(failures.status).toBe(200);
    expect(failures.body).toEqual(failedEntity.failures);

    const pending = await api.Migrations.create(source, [groupEntity('acme', 'acme-later')]);
    const canceled = await api.Migrations.requester.post(`bulk_imports/${pending.id}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: pending.id, status: 'canceled' });
    expect((await api.Migrations.allEntities({ bulkImportId: pending.id })).map((e) => e.status)).toEqual(['canceled']);
    await t.deps.jobs.drain().catch(() => undefined);
    await t.api('get', '/groups/acme-later').expect(404);
  });

  it('answers another user’s migration with 404, and anonymous callers with 401', async () => {
    const other = gitbeaker(t.base, bob.token);
    const status = async (call: Promise<unknown>) =>
      call.then(
        () => 200,
        (error: { cause?: { response?: { status: number } } }) => error.cause?.response?.status,
      );
    expect(await status(other.Migrations.show(finished.id as number))).toBe(404);
    expect(await status(other.Migrations.allEntities({ bulkImportId: finished.id as number }))).toBe(404);
    expect(await other.Migrations.all()).toEqual([]);
    const anonymous = new Gitlab({ host: t.base, token: '' });
    expect(await status(anonymous.Migrations.all())).toBe(401);
  });
});

const IMPORT_FIELDS = 'id status sourceType sourceUrl createdAt updatedAt hasFailures';
const importFields = {
  id: 'id',
  status: 'status',
  source_type: 'sourceType',
  source_url: 'sourceUrl',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  has_failures: 'hasFailures',
};
const FAILURE_FIELDS = 'relation step exceptionClass exceptionMessage correlationIdValue sourceUrl sourceTitle createdAt';
/** A failure's fields, under `prefix` in both answers (`failures.0.` of an entity). */
const failureFields = (prefix = '') =>
  Object.fromEntries(
    Object.entries({
      relation: 'relation',
      step: 'step',
      exception_class: 'exceptionClass',
      exception_message: 'exceptionMessage',
      correlation_id_value: 'correlationIdValue',
      source_url: 'sourceUrl',
      source_title: 'sourceTitle',
      created_at: 'createdAt',
    }).map(([rest, graphql]) => [`${prefix}${rest}`, `${prefix}${graphql}`]),
  );
const ENTITY_FIELDS = `id bulkImportId status entityType sourceFullPath destinationFullPath destinationName destinationSlug destinationNamespace
  parentId namespaceId projectId createdAt updatedAt migrateProjects migrateMemberships hasFailures failures { ${FAILURE_FIELDS} }`;
const entityFields = {
  id: 'id',
  bulk_import_id: 'bulkImportId',
  status: 'status',
  entity_type: 'entityType',
  source_full_path: 'sourceFullPath',
  destination_full_path: 'destinationFullPath',
  destination_name: 'destinationName',
  destination_slug: 'destinationSlug',
  destination_namespace: 'destinationNamespace',
  parent_id: 'parentId',
  namespace_id: 'namespaceId',
  project_id: 'projectId',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  migrate_projects: 'migrateProjects',
  migrate_memberships: 'migrateMemberships',
  has_failures: 'hasFailures',
  ...failureFields('failures.0.'),
};

/** The twins of every bulk-import read, for alice's failed migration. */
function twins(): Record<string, Twin> {
  const id = failed.id as number;
  const entityId = failedEntity.id as number;
  const inList = (key: string, value: unknown) => (body: unknown) => (body as Row[]).find((x) => x[key] === value);
  return {
    list: {
      rest: '/bulk_imports?status=failed',
      restPick: inList('id', id),
      graphql: `{ bulkImports(status: "failed") { nodes { ${IMPORT_FIELDS} } } }`,
      at: (data) => (data.bulkImports as { nodes: Row[] } | null)?.nodes.find((x) => x.id === id),
      fields: importFields,
    },
    one: {
      rest: `/bulk_imports/${id}`,
      graphql: `query($id: Int!) { bulkImport(id: $id) { ${IMPORT_FIELDS} } }`,
      variables: { id },
      at: 'bulkImport',
      fields: importFields,
    },
    allEntities: {
      rest: '/bulk_imports/entities',
      restPick: inList('id', entityId),
      graphql: `{ bulkImportEntities { nodes { ${ENTITY_FIELDS} } } }`,
      at: (data) => (data.bulkImportEntities as { nodes: Row[] } | null)?.nodes.find((x) => x.id === entityId),
      fields: entityFields,
    },
    entitiesOfOne: {
      rest: `/bulk_imports/${id}/entities`,
      restPick: inList('id', entityId),
      graphql: `query($id: Int!) { bulkImportEntities(bulkImportId: $id) { nodes { ${ENTITY_FIELDS} } } }`,
      variables: { id },
      at: (data) => (data.bulkImportEntities as { nodes: Row[] } | null)?.nodes.find((x) => x.id === entityId),
      fields: entityFields,
    },
    entity: {
      rest: `/bulk_imports/${id}/entities/${entityId}`,
      graphql: `query($id: Int!, $entity: Int!) { bulkImportEntity(bulkImportId: $id, id: $entity) { ${ENTITY_FIELDS} } }`,
      variables: { id, entity: entityId },
      at: 'bulkImportEntity',
      fields: entityFields,
    },
    failure: {
      rest: `/bulk_imports/${id}/entities/${entityId}/failures`,
      restPick: (body) => (body as Row[])[0],
      graphql: `query($id: Int!, $entity: Int!) { bulkImportEntity(bulkImportId: $id, id: $entity) { failures { ${FAILURE_FIELDS} } } }`,
      variables: { id, entity: entityId },
      at: 'bulkImportEntity.failures.0',
      fields: failureFields(),
    },
  };
}

describe('REST and GraphQL twins', () => {
  it('give the owner of a migration the same imports, entities and failures', async () => {
    for (const twin of Object.values(twins())) {
      const read = await expectTwins(t, alice.token, twin, 'visible');
      expect(read.rest, twin.rest).toBeDefined();
    }
  });

  it('give another user 404 for the migration (an empty list for the lists) and anonymous callers 401', async () => {
    const { list, allEntities, ...ofOne } = twins();
    for (const twin of Object.values(ofOne)) await expectTwins(t, bob.token, twin, 'not-found');
    // The lists are bob's own: alice's migration is not in them.
    for (const twin of [list, allEntities]) await expectTwins(t, bob.token, twin!, 'not-found');
    for (const twin of Object.values(twins())) await expectTwins(t, null, twin, 'unauthorized');
  });
});

describe('statements per page', () => {
  /** Carol's 20 migrations, the first with 20 entities, its first entity with 20 failures and the second with one. */
  async function seed() {
    const carol = await t.user('carol');
    const imports = await t.db.bulkImport.createManyAndReturn({
      data: Array.from({ length: 20 }, () => ({
        userId: carol.id,
        sourceUrl: 'https://source.test',
        accessTokenEncrypted: 'x',
        status: -1,
        hasFailures: true,
      })),
    });
    const first = imports[0]!.id;
    const entities = await t.db.bulkImportEntity.createManyAndReturn({
      data: Array.from({ length: 20 }, (_, i) => ({
        bulkImportId: first,
        sourceType: 'group_entity',
        sourceFullPath: `group-${i}`,
        destinationSlug: `group-${i}`,
        destinationName: `group-${i}`,
        destinationNamespace: '',
        status: -1,
        hasFailures: true,
      })),
    });
    const failure = (entityId: number, i: number) => ({
      entityId,
      relation: 'labels',
      pipelineStep: 'run',
      exceptionClass: 'BulkImports::Error',
      exceptionMessage: `failure ${i}`,
    });
    await t.db.bulkImportFailure.createMany({
      data: [...Array.from({ length: 20 }, (_, i) => failure(entities[0]!.id, i)), ...entities.slice(1).map((e, i) => failure(e.id, i))],
    });
    return { token: carol.token, first, many: entities[0]!.id, one: entities[1]!.id };
  }

  it('lists migrations, entities (all, of one) and failures with as many statements for 1 item as for 20, REST and GraphQL', async () => {
    const { token, first, many, one } = await seed();
    await expectCounterSees(t, () => t.api('get', '/bulk_imports?per_page=2', token).expect(200));
    const reads: Record<string, (n: number) => Promise<unknown>> = {
      migrations: async (n) => {
        expect((await t.api('get', `/bulk_imports?per_page=${n}`, token).expect(200)).body).toHaveLength(n);
        expect((await t.graphql(`{ bulkImports(first: ${n}) { nodes { id } } }`, {}, token)).body.data.bulkImports.nodes).toHaveLength(n);
      },
      entities: async (n) => {
        expect((await t.api('get', `/bulk_imports/entities?per_page=${n}`, token).expect(200)).body).toHaveLength(n);
        const gql = await t.graphql(`{ bulkImportEntities(first: ${n}) { nodes { id failures { relation } } } }`, {}, token);
        expect(gql.body.data.bulkImportEntities.nodes).toHaveLength(n);
      },
      'entities of one migration': async (n) => {
        const page = (await t.api('get', `/bulk_imports/${first}/entities?per_page=${n}`, token).expect(200)).body as Row[];
        expect(page).toHaveLength(n);
        expect((page.at(-1)!.failures as Row[]).length).toBeGreaterThan(0);
        const gql = await t.graphql(`{ bulkImportEntities(bulkImportId: ${first}, first: ${n}) { nodes { id failures { relation } } } }`, {}, token);
        expect(gql.body.data.bulkImportEntities.nodes).toHaveLength(n);
      },
      failures: async (n) => {
        const entity = n === 1 ? one : many;
        expect((await t.api('get', `/bulk_imports/${first}/entities/${entity}/failures`, token).expect(200)).body).toHaveLength(n);
        const gql = await t.graphql(`{ bulkImportEntity(bulkImportId: ${first}, id: ${entity}) { failures { relation } } }`, {}, token);
        expect(gql.body.data.bulkImportEntity.failures).toHaveLength(n);
      },
    };
    for (const [name, read] of Object.entries(reads)) {
      await read(1); // settles once-per-token bookkeeping
      const small = await countQueries(t, () => read(1));
      expect(small, name).toBeGreaterThan(0);
      expect(await countQueries(t, () => read(20)), name).toBe(small);
    }
  });
});

describe('destination paths', () => {
  it('match a namespace exactly whatever the case: `_` in the path the user typed is no wildcard', async () => {
    await t.api('post', '/groups', alice.token).send({ name: 'Team X', path: 'team-x' }).expect(201);
    const start = (namespace: string, slug: string) =>
      t.api('post', '/bulk_imports', alice.token).send({
        configuration: { url: t.base, access_token: t.root.token },
        entities: [{ source_type: 'group_entity', source_full_path: 'acme', destination_slug: slug, destination_namespace: namespace }],
      });
    const wildcard = await start('team_x', 'acme');
    expect(wildcard.status).toBe(422);
    expect(wildcard.body).toEqual({ message: "Import failed. Destination 'team_x' is invalid, or you don't have permission." });
    // The same namespace in other letters is the namespace; a group or a project by the path is taken.
    await t
      .api('post', '/projects', alice.token)
      .send({ name: 'Taken', path: 'taken', namespace_id: (await t.api('get', '/groups/team-x').expect(200)).body.id });
    expect((await start('TEAM-X', 'Taken')).body).toEqual({ message: "Import failed. 'TEAM-X/Taken' already exists. Change the destination and try again." });
    expect((await start('Team-X', 'fresh').expect(201)).body).toMatchObject({ status: 'created' });
  });

  it('are read through the paths’ trigram indexes, not every namespace and project', async () => {
    await t.api('post', '/groups', alice.token).send({ name: 'Plans', path: 'plans' }).expect(201);
    // The source project must exist (GitLab checks it at create).
    await t
      .api('post', '/projects')
      .send({ name: 'App', path: 'app', namespace_id: (await t.api('get', '/groups/acme').expect(200)).body.id })
      .expect(201);
    await t.db.$executeRawUnsafe(
      `INSERT INTO namespaces (name, path, full_path, kind, traversal_ids, visibility, updated_at)
       SELECT 'team ' || i, 'team-' || i, 'team-' || i, 'group', ARRAY[0], 'private', now() FROM generate_series(1, 20000) i`,
    );
    await t.db.$executeRawUnsafe(`UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE traversal_ids = ARRAY[0]`);
    await t.db.$executeRawUnsafe(
      `INSERT INTO projects (name, path, namespace_id, visibility, updated_at, last_activity_at)
       SELECT 'project ' || i, 'project-' || i, (SELECT id FROM namespaces WHERE full_path = 'team-1'), 'private', now(), now() FROM generate_series(1, 20000) i`,
    );
    // VACUUM also moves the trigram indexes' pending entries into the index, as time would.
    await t.db.$executeRawUnsafe('VACUUM ANALYZE namespaces');
    await t.db.$executeRawUnsafe('VACUUM ANALYZE projects');
    t.queryCounter.reset();
    t.queryCounter.record = true;
    await t
      .api('post', '/bulk_imports', alice.token)
      .send({
        configuration: { url: t.base, access_token: t.root.token },
        entities: [{ source_type: 'project_entity', source_full_path: 'acme/app', destination_slug: 'project-777', destination_namespace: 'plans' }],
      })
      .expect(201);
    t.queryCounter.record = false;
    // The destination's lookups (the app is its own source: its probes of acme/app read paths too).
    const destination = (values: unknown[]) => values.some((v) => typeof v === 'string' && /plans|project-777/.test(v));
    const lookups = t.queryCounter.statements.flatMap((text, i) =>
      /ILIKE/.test(text) && destination(t.queryCounter.values[i]!) ? [{ text, values: t.queryCounter.values[i]! }] : [],
    );
    // The parent, then the destination's path as a namespace and as a project.
    expect(lookups).toHaveLength(3);
    for (const [i, { text, values }] of lookups.entries()) {
      const { scanned, indexes, plan } = await planOf(text, values);
      const shown = `${text}\n${plan.join('\n')}`;
      expect(scanned, shown).not.toContain('namespaces');
      expect(scanned, shown).not.toContain('projects');
      // The namespaces by their full path; the project by its path (or its namespace's).
      expect(indexes, shown).toContain(i < 2 ? 'namespaces_full_path_idx' : 'projects_path_idx');
    }
    // The positive control: without the index, the same statement reads every namespace.
    const withoutIndex = await planOf(lookups[0]!.text, lookups[0]!.values, 'namespaces_full_path_idx');
    expect(withoutIndex.scanned).toContain('namespaces');
  });
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/** The tables a statement's plan reads whole, and the indexes it reads (`without` one index, dropped for the EXPLAIN and rolled back). */
async function planOf(text: string, values: unknown[], without?: string) {
  const sql = new pg.Client(pgConfigFromUrl(t.databaseUrl));
  await sql.connect();
  try {
    await sql.query('BEGIN');
    if (without) await sql.query(`DROP INDEX ${without}`);
    const { rows } = await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const nodes = nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
    return {
      scanned: nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
      indexes: nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])),
      plan: nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`),
    };
  } finally {
    await sql.query('ROLLBACK');
    await sql.end();
  }
}
