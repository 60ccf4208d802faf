// npx tsx bench/migration.ts [records] (also the last part of `npm run bench`): direct transfer of a
// group holding `records` objects (default 10,000: a fifth each of group labels, group milestones,
// epics, group members and project releases with a link each), seeded in SQL on the source,
// between two forgegate servers on loopback, with one POST /bulk_imports; beside it the floor, the
// same records copied with one export and one import in one process (the relation-exports
// functions, no HTTP, no job queue between the steps). Prints the time of each and the peak RSS
// (the kernel's high-water mark, getrusage) of the destination process and of the floor's.
//
// The source serves from this process; the destination and the floor each run in a process of
// their own with `npm start`'s node flags. Databases: three new ones on BENCH_DATABASE_URL's server
// (or TEST_DATABASE_URL's, DATABASE_URL's), else on the embedded server the source starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { loadConfig } from '../src/config.ts';
import { createContext, type Context } from '../src/core/context.ts';
import { writeSettings } from '../src/core/settings.ts';
import { pgConfigFromUrl } from '../src/db/adapter-fixes.ts';
import { QueryCounter } from '../src/db/client.ts';
import { createAppServer } from '../src/http-server.ts';
import { createGroup } from '../src/modules/groups/service.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { exportDir, exportFilePath } from '../src/modules/relation-exports/files.ts';
import { importGroupRelation, importRelation, type GroupFileRelation } from '../src/modules/relation-exports/import.ts';
import { fileExtension, type Relation } from '../src/modules/relation-exports/relations.ts';
import { EXPORT_QUEUE, exportStatuses, startExport } from '../src/modules/relation-exports/service.ts';
import { startRuntime, type Runtime } from '../src/server.ts';
import { startCommand } from './starts.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GROUP = 'bench';
const PROJECT = 'app';
/** The relations the migration's pipelines import, in their stage order (bulk-imports/service.ts PIPELINES). */
const GROUP_FILES: GroupFileRelation[] = ['members', 'labels', 'milestones', 'epics'];
const PROJECT_FILES = ['repository_bundle', 'labels', 'milestones', 'project_members', 'releases'] as const;

type Figures = { ms: number; maxRss: number; sql: number; cpuMs: number };
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/**
 * A runtime on `databaseUrl` (migrated at start) with an HTTP server and root's `api` token; its
 * DATA_DIR throwaway, or `shared` (the source's, whose repositories the floor exports), kept.
 */
async function serve(databaseUrl: string | undefined, externalUrl: string, shared?: string) {
  const dataDir = shared ?? fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-bench-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', EXTERNAL_URL: externalUrl });
  const queryCounter = new QueryCounter();
  const runtime = await startRuntime(config, { queryCounter, databaseUrl });
  const server = createAppServer(buildApp(runtime.deps)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const root = await runtime.deps.db.user.findUniqueOrThrow({ where: { username: 'root' } });
  const { token } = await issueToken(runtime.deps.db, runtime.deps.secrets.tokenDigestKey, { userId: root.id, name: 'bench', scopes: ['api'] });
  await writeSettings(runtime.deps.db, { bulkImportEnabled: true, allowLocalRequestsFromWebHooksAndServices: true });
  return {
    runtime,
    base,
    token,
    queryCounter,
    ctx: createContext(runtime.deps, new Viewer(root, null)),
    async close() {
      server.close();
      await runtime.close();
      if (!shared) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const usage = (counter: QueryCounter): Omit<Figures, 'ms'> => {
  const u = process.resourceUsage();
  return { maxRss: u.maxRSS * 1024, sql: counter.count, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 };
};

// ------------------------------------------------------------------------------------------------
// The destination: serves until its parent asks for its figures.

async function destination() {
  const app = await serve(process.env.MIGRATION_DATABASE_URL, 'http://destination.bench');
  await app.runtime.startWorker();
  process.on('message', async () =>
    process.send!({ figures: usage(app.queryCounter), copied: await countRecords(app.runtime.deps.db, GROUP).catch(() => null) }),
  );
  process.send!({ base: app.base, token: app.token });
}

// ------------------------------------------------------------------------------------------------
// The floor: both databases in one process, each relation exported to a file and imported from it.

/** One relation's export file of the floor's source, as an upload. */
function exported(source: Context, portable: { kind: 'project' | 'group'; id: number }, relation: Relation) {
  const file = exportFilePath(exportDir(source.deps.config.dataDir, portable, source.viewer.user!.id), relation, fileExtension(relation));
  return { filename: path.basename(file), size: fs.statSync(file).size, stream: () => fs.createReadStream(file) };
}

async function floor() {
  const source = await serve(process.env.SOURCE_DATABASE_URL, 'http://source.bench', process.env.SOURCE_DATA_DIR);
  const target = await serve(process.env.MIGRATION_DATABASE_URL, 'http://destination.bench');
  const before = usage(source.queryCounter);
  const beforeTarget = target.queryCounter.count;
  const started = performance.now();
  const from = source.ctx;
  const group = await from.db.namespace.findFirstOrThrow({ where: { fullPath: GROUP } });
  const project = await from.db.project.findFirstOrThrow({ where: { namespaceId: group.id, path: PROJECT } });
  await startExport(from, { groupId: group.id }, 'group', false);
  await startExport(from, { projectId: project.id }, 'project', false);
  await from.deps.jobs.drain({ queues: [EXPORT_QUEUE] });
  const statuses = [...(await exportStatuses(from, { groupId: group.id }, 'group')), ...(await exportStatuses(from, { projectId: project.id }, 'project'))];
  const failed = statuses.filter((s) => s.status !== 1);
  if (failed.length) throw new Error(`floor: exports failed: ${failed.map((s) => s.relation).join(', ')}`);

  const to = target.ctx;
  const copy = await createGroup(to, { name: group.name, path: GROUP, parentId: null, description: group.description, visibility: 'private' });
  for (const relation of GROUP_FILES) await importGroupRelation(to, copy, relation, exported(from, { kind: 'group', id: group.id }, relation));
  const app = await createProject(to, { name: project.name, path: PROJECT, namespaceId: copy.id, description: project.description, visibility: 'private' });
  for (const relation of PROJECT_FILES)
    await importRelation(to, { projectId: app.id }, relation, exported(from, { kind: 'project', id: project.id }, relation));
  const ms = performance.now() - started;
  const after = usage(source.queryCounter);
  const figures = { ms, maxRss: after.maxRss, cpuMs: after.cpuMs - before.cpuMs, sql: after.sql - before.sql + target.queryCounter.count - beforeTarget };
  process.send!({ figures, copied: await countRecords(to.db, GROUP) });
  await Promise.all([source.close(), target.close()]);
}

// ------------------------------------------------------------------------------------------------
// The run

/** What the group holds on either side: the figures are for a copy that arrived whole. */
async function countRecords(db: Runtime['deps']['db'], fullPath: string) {
  const group = await db.namespace.findFirstOrThrow({ where: { fullPath } });
  const project = await db.project.findFirstOrThrow({ where: { namespaceId: group.id, path: PROJECT } });
  const [labels, milestones, epics, members, releases, links] = await Promise.all([
    db.label.count({ where: { groupId: group.id } }),
    db.milestone.count({ where: { groupId: group.id } }),
    db.epic.count({ where: { groupId: group.id } }),
    // The seeded members; the group's creator is its owner on both sides.
    db.member.count({ where: { namespaceId: group.id, accessLevel: 30 } }),
    db.release.count({ where: { projectId: project.id } }),
    db.releaseLink.count({ where: { release: { projectId: project.id } } }),
  ]);
  return { labels, milestones, epics, members, releases, links };
}

/** The group and its project through the API, then its records in SQL (one INSERT … SELECT each). */
async function seed(app: Awaited<ReturnType<typeof serve>>, records: number) {
  const post = async (p: string, body: object) => {
    const res = await fetch(`${app.base}/api/v4${p}`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': app.token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: number }>;
  };
  const group = await post('/groups', { name: 'Bench', path: GROUP, description: 'migrated' });
  const project = await post('/projects', { name: 'App', path: PROJECT, namespace_id: group.id, initialize_with_readme: true });
  const n = Math.floor(records / 5);
  const { db } = app.runtime.deps;
  const g = group.id;
  // The members are the contributors too: epics and releases are theirs, fifty authors in turn.
  await db.$executeRaw`INSERT INTO users (username, name, email, updated_at)
    SELECT 'member' || i, 'Member ' || i, 'member' || i || '@source.bench', now() FROM generate_series(1, ${n}::int) i`;
  await db.$executeRaw`INSERT INTO members (namespace_id, user_id, access_level, updated_at)
    SELECT ${g}, id, 30, now() FROM users WHERE username LIKE 'member%'`;
  const author = (i: string) => `(SELECT id FROM users WHERE username = 'member' || (1 + ${i} % 50))`;
  await db.$executeRaw`INSERT INTO labels (group_id, name, color, description, updated_at)
    SELECT ${g}, 'label-' || i, '#336699', repeat('x', 80), now() FROM generate_series(1, ${n}::int) i`;
  await db.$executeRaw`INSERT INTO milestones (group_id, iid, title, description, start_date, due_date, updated_at)
    SELECT ${g}, i, 'milestone-' || i, repeat('y', 80), date '2030-01-01', date '2030-03-31', now() FROM generate_series(1, ${n}::int) i`;
  await db.$executeRawUnsafe(
    `INSERT INTO epics (group_id, iid, title, description, author_id, updated_at)
     SELECT $1, i, 'epic ' || i, repeat('z', 80), ${author('i')}, now() FROM generate_series(1, $2::int) i`,
    g,
    n,
  );
  // A tree: every epic past the tenth has a parent.
  await db.$executeRaw`UPDATE epics e SET parent_id = p.id FROM epics p WHERE e.group_id = ${g} AND p.group_id = ${g} AND e.iid > 10 AND p.iid = e.iid / 10`;
  await db.$executeRawUnsafe(
    `INSERT INTO releases (project_id, tag, name, description, author_id, released_at, created_at, updated_at)
     SELECT $1, 'v' || i, 'Release ' || i, repeat('w', 200), ${author('i')}, now(), now(), now() FROM generate_series(1, $2::int) i`,
    project.id,
    n,
  );
  await db.$executeRaw`INSERT INTO release_links (release_id, name, url, created_at, updated_at)
    SELECT id, 'bin', 'https://cdn.bench/' || id, now(), now() FROM releases WHERE project_id = ${project.id}`;
  return countRecords(db, GROUP);
}

/** Starts this file in another process (`role`), with `npm start`'s node flags; resolves with its first message. */
function child<T>(role: string, env: Record<string, string>): { process: ChildProcess; first: Promise<T> } {
  const { env: startEnv, nodeFlags } = startCommand();
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'bench/migration.ts', role], {
    cwd: ROOT,
    env: { ...process.env, ...startEnv, ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let errors = '';
  proc.stderr!.on('data', (c: Buffer) => (errors += c.toString()));
  const first = new Promise<T>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as T));
    proc.once('exit', (code) => reject(new Error(`${role} exited (${code}):\n${errors.slice(-3000)}`)));
  });
  return { process: proc, first };
}

/** Three new databases on the server of `url` (the source's, the destination's, the floor's); dropped by `drop`. */
async function databases(url: string) {
  const admin = new pg.Client(pgConfigFromUrl(url));
  await admin.connect();
  const suffix = randomBytes(4).toString('hex');
  const names = ['source', 'destination', 'floor'].map((n) => `fg_bench_migration_${n}_${suffix}`);
  for (const name of names) await admin.query(`CREATE DATABASE "${name}"`);
  const urlOf = (name: string) => {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  return {
    source: urlOf(names[0]!),
    destination: urlOf(names[1]!),
    floor: urlOf(names[2]!),
    async drop() {
      for (const name of names) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The destination's figures so far (CPU and statements since it started, its peak RSS) and what its copy of the group holds. */
function ask(destination: ChildProcess): Promise<{ figures: Omit<Figures, 'ms'>; copied: Record<string, number> }> {
  return new Promise((resolve) => {
    destination.once('message', (m) => resolve(m as { figures: Omit<Figures, 'ms'>; copied: Record<string, number> }));
    destination.send('figures');
  });
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, intervalMs: number): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The whole benchmark: seeds, migrates, copies the floor; returns the lines to print. */
export async function runMigrationBench(records = 10_000): Promise<string[]> {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  // Without a server, the source's embedded one holds the other two databases as well.
  const dbs = serverUrl ? await databases(serverUrl) : null;
  const source = await serve(dbs?.source, 'http://source.bench');
  const others = dbs ?? (await databases(source.runtime.database.url));
  const worker = await source.runtime.startWorker();
  const lines: string[] = [];
  const children: ChildProcess[] = [];
  try {
    const seeded = await seed(source, records);
    const total = Object.entries(seeded).reduce((sum, [k, v]) => sum + (k === 'links' ? 0 : v), 0);
    lines.push(`source: ${JSON.stringify(seeded)} (${total} records)`);

    // The migration, as a user starts it: one POST, then the status until it is over.
    const dest = child<{ base: string; token: string }>('destination', { MIGRATION_DATABASE_URL: others.destination });
    children.push(dest.process);
    const { base, token } = await dest.first;
    const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
    const sqlBefore = source.queryCounter.count;
    const idle = await ask(dest.process);
    const started = performance.now();
    const res = await fetch(`${base}/api/v4/bulk_imports`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        configuration: { url: source.base, access_token: source.token },
        entities: [{ source_type: 'group_entity', source_full_path: GROUP, destination_slug: GROUP, destination_namespace: '' }],
      }),
    });
    if (res.status !== 201) throw new Error(`POST /bulk_imports: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: number };
    const status = await poll(
      async () => ((await (await fetch(`${base}/api/v4/bulk_imports/${id}`, { headers })).json()) as { status: string }).status,
      (s) => s !== 'created' && s !== 'started',
      100,
    );
    const ms = performance.now() - started;
    if (status !== 'finished') {
      const entities = await (await fetch(`${base}/api/v4/bulk_imports/${id}/entities`, { headers })).text();
      throw new Error(`the migration ended ${status}: ${entities}`);
    }
    const answer = await ask(dest.process);
    if (JSON.stringify(answer.copied) !== JSON.stringify(seeded)) throw new Error(`the migration copied ${JSON.stringify(answer.copied)}`);
    const migrated = {
      ms,
      maxRss: answer.figures.maxRss,
      cpuMs: answer.figures.cpuMs - idle.figures.cpuMs,
      sql: answer.figures.sql - idle.figures.sql,
      sourceSql: source.queryCounter.count - sqlBefore,
    };
    dest.process.kill('SIGTERM');

    // The floor, in a process of its own; this process's worker would take its export jobs.
    await worker.stop(10_000);
    const run = child<{ figures: Figures; copied: Record<string, number> }>('floor', {
      SOURCE_DATABASE_URL: dbs?.source ?? source.runtime.database.url,
      SOURCE_DATA_DIR: source.runtime.deps.config.dataDir,
      MIGRATION_DATABASE_URL: others.floor,
    });
    children.push(run.process);
    const { figures: base2, copied } = await run.first;
    if (JSON.stringify(copied) !== JSON.stringify(seeded)) throw new Error(`floor copied ${JSON.stringify(copied)}`);

    lines.push(
      `| migration of ${total} records | time | peak RSS | CPU | SQL statements |`,
      '|---|---|---|---|---|',
      `| POST /bulk_imports between two servers (destination process) | ${(migrated.ms / 1000).toFixed(1)} s | ${mb(migrated.maxRss)} | ${(migrated.cpuMs / 1000).toFixed(1)} s | ${migrated.sql} (+ ${migrated.sourceSql} on the source) |`,
      `| floor: one export and one import in one process | ${(base2.ms / 1000).toFixed(1)} s | ${mb(base2.maxRss)} | ${(base2.cpuMs / 1000).toFixed(1)} s | ${base2.sql} |`,
      `| ratio | **${(migrated.ms / base2.ms).toFixed(2)}×** | ${(migrated.maxRss / base2.maxRss).toFixed(2)}× | | |`,
    );
    return lines;
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await source.close();
    if (dbs) await dbs.drop();
  }
}

// Run as a script (not imported by bench/index.ts).
if (process.argv[1]?.endsWith('migration.ts')) {
  const role = process.argv[2];
  if (role === 'destination') await destination();
  else if (role === 'floor') await floor();
  else {
    const records = Number(role ?? 10_000);
    console.log(
      `bench/migration.ts, ${records} records, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const line of await runMigrationBench(records)) console.log(line);
  }
}
