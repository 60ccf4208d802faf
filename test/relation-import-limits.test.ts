import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';

// POST /projects/import-relation under hostile files (issue #37): decompression bombs, huge lines,
// many lines, bytes no column can store, bundles with escaping paths. Each is a clear 4xx, the
// import is recorded as failed, and the server keeps answering.

type User = Awaited<ReturnType<TestApp['user']>>;

const MIB = 1024 * 1024;
const ndjson = (objects: object[]) => gzipSync(objects.map((o) => JSON.stringify(o)).join('\n') + '\n');

/** Gzips a generated stream (a bomb is never held decompressed). */
async function gzipOf(parts: () => Generator<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(parts()).pipe(createGzip({ level: 9 }))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
/** `{"name":"aaaa…` of `bytes` bytes and no newline: one line that never ends. */
const endlessLine = (bytes: number) =>
  gzipOf(function* () {
    yield Buffer.from('{"name":"');
    const block = Buffer.alloc(MIB, 'a');
    for (let left = bytes; left > 0; left -= MIB) yield left >= MIB ? block : block.subarray(0, left);
  });
/** `count` copies of one short line. */
const manyLines = (line: string, count: number) =>
  gzipOf(function* () {
    const block = Buffer.from(`${line}\n`.repeat(10_000));
    for (let i = 0; i < count / 10_000; i++) yield block;
  });

let t: TestApp;
let maintainer: User;
let project: { id: number; path_with_namespace: string };

const importFile = (relation: string, file: Buffer, name = 'file.ndjson.gz', token = maintainer.token) =>
  t.api('post', '/projects/import-relation', token).field('path', project.path_with_namespace).field('relation', relation).attach('file', file, name);
const refused = (message: string) => ({ message: `The relation file could not be imported: ${message}` });
const settings = (change: Record<string, unknown>) => t.api('put', '/application/settings').send(change).expect(200);
const lastImport = () => t.db.relationImport.findFirstOrThrow({ where: { projectId: project.id }, orderBy: { id: 'desc' } });
/** The server still serves requests (the process survived). */
const stillServing = () => t.api('get', '/version').expect(200);

function graphqlImport(relation: string, file: Buffer) {
  const operations = {
    query:
      'mutation($file: Upload!, $path: ID!, $relation: String!) { projectImportRelation(input: { projectPath: $path, relation: $relation, file: $file }) { relationImport { status } errors } }',
    variables: { file: null, path: project.path_with_namespace, relation },
  };
  return request(t.base)
    .post('/api/graphql')
    .set('Authorization', `Bearer ${maintainer.token}`)
    .field('operations', JSON.stringify(operations))
    .field('map', JSON.stringify({ 0: ['variables.file'] }))
    .attach('0', file, 'file.ndjson.gz');
}

beforeAll(async () => {
  // Uploads stay small here: a bundle past this is the "huge file" case.
  t = await createTestApp({ env: { MAX_UPLOAD_SIZE_MB: '4' } });
  const group = (await t.api('post', '/groups').send({ name: 'Acme', path: 'acme' }).expect(201)).body;
  project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
  maintainer = await t.user('maint');
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
  await settings({ bulk_import_enabled: true });
});
afterAll(() => t.close());

describe('the bulk_import_enabled gate', () => {
  it('refuses imports with 403 while the setting is off, through REST and GraphQL, and records nothing', async () => {
    const labels = ndjson([{ name: 'gated' }]);
    await settings({ bulk_import_enabled: false });
    await importFile('labels', labels).expect(403, { message: '403 Forbidden' });
    await importFile('labels', labels, 'file.ndjson.gz', t.root.token).expect(403, { message: '403 Forbidden' });
    const gql = await graphqlImport('labels', labels);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await t.db.relationImport.count({ where: { projectId: project.id } })).toBe(0);

    await settings({ bulk_import_enabled: true });
    await importFile('labels', labels).expect(201);
    expect(await t.db.label.count({ where: { projectId: project.id, name: 'gated' } })).toBe(1);
  });
});

describe('file limits (application settings)', () => {
  it('are GitLab-like settings with defaults, changed by administrators within bounds', async () => {
    const current = (await t.api('get', '/application/settings').expect(200)).body;
    expect(current).toMatchObject({ max_decompressed_archive_size: 256, max_import_ndjson_row_size: 50, max_import_ndjson_rows: 100_000 });
    await t
      .api('put', '/application/settings')
      .send({ max_import_ndjson_row_size: 0, max_import_ndjson_rows: -1 })
      .expect(400, {
        message: { max_import_ndjson_row_size: ['must be greater than 0'], max_import_ndjson_rows: ['must be greater than 0'] },
      });
    await t
      .api('put', '/application/settings')
      .send({ max_import_ndjson_row_size: 257 })
      .expect(400, { message: { max_import_ndjson_row_size: ['must be less than or equal to 256'] } });
    await t.api('put', '/application/settings', maintainer.token).send({ max_import_ndjson_rows: 5 }).expect(403);
    const gql = await t.graphql(
      'mutation { applicationSettingsUpdate(input: { maxImportNdjsonRows: 7 }) { applicationSettings { maxImportNdjsonRows maxImportNdjsonRowSize maxDecompressedArchiveSize } errors } }',
    );
    expect(gql.body.data.applicationSettingsUpdate.applicationSettings).toEqual({
      maxImportNdjsonRows: 7,
      maxImportNdjsonRowSize: 50,
      maxDecompressedArchiveSize: 256,
    });
    await settings({ max_import_ndjson_rows: 100_000 });
  });

  it('a line longer than max_import_ndjson_row_size is refused without being read whole (REST and GraphQL)', async () => {
    await settings({ max_import_ndjson_row_size: 1 });
    try {
      const huge = await endlessLine(2 * MIB);
      await importFile('labels', huge).expect(400, refused('Line 1 is larger than 1 MiB'));
      expect(await lastImport()).toMatchObject({ status: 'failed', error: 'Line 1 is larger than 1 MiB' });
      const gql = await graphqlImport('labels', huge);
      expect(gql.body.data.projectImportRelation).toEqual({
        relationImport: null,
        errors: ['The relation file could not be imported: Line 1 is larger than 1 MiB'],
      });
      // The second line is the long one; a line just under the limit is read.
      const second = gzipSync(`{"name":"first"}\n{"name":"${'b'.repeat(MIB)}"}\n`);
      await importFile('labels', second).expect(400, refused('Line 2 is larger than 1 MiB'));
      await importFile('labels', gzipSync(`{"name":"short","description":"${'c'.repeat(MIB - 100)}"}\n`)).expect(201);
      expect(await t.db.label.count({ where: { projectId: project.id, name: 'short' } })).toBe(1);
    } finally {
      await settings({ max_import_ndjson_row_size: 50 });
    }
  });

  it('a file decompressing past max_decompressed_archive_size is refused; one under it imports', async () => {
    await settings({ max_decompressed_archive_size: 1 });
    try {
      const blank = ' '.repeat(99);
      await importFile('labels', await manyLines(blank, 20_000)).expect(400, refused('The file decompresses to more than 1 MiB'));
      expect(await lastImport()).toMatchObject({ status: 'failed', error: 'The file decompresses to more than 1 MiB' });
      await importFile('labels', await manyLines(blank, 10_000)).expect(201);
    } finally {
      await settings({ max_decompressed_archive_size: 256 });
    }
  });

  it('a file with more rows than max_import_ndjson_rows is refused (blank rows count); one at the limit imports', async () => {
    await settings({ max_import_ndjson_rows: 3 });
    try {
      const labels = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `row-${i}` }));
      await importFile('labels', ndjson(labels(4))).expect(400, refused('The file has more than 3 rows'));
      await importFile('labels', gzipSync('{"name":"row-0"}\n\n\n\n')).expect(400, refused('The file has more than 3 rows'));
      await importFile('labels', ndjson(labels(3))).expect(201);
      expect(await t.db.label.count({ where: { projectId: project.id, name: { startsWith: 'row-' } } })).toBe(3);
    } finally {
      await settings({ max_import_ndjson_rows: 100_000 });
    }
  });
});

describe('large records', () => {
  it('are written in transactions of at most 8 MiB of file, not 200 records at a time', async () => {
    await expectCounterSees(t, () => t.api('get', '/version').expect(200));
    const labels = (prefix: string, description: string) => ndjson(Array.from({ length: 5 }, (_, i) => ({ name: `${prefix}-${i}`, description })));
    const small = await countQueries(t, () => importFile('labels', labels('small', 'x')).expect(201));
    // Five rows of 3 MiB: the first three fill a transaction, the other two make a second one.
    const large = await countQueries(t, () => importFile('labels', labels('large', 'y'.repeat(3 * MIB))).expect(201));
    expect(large - small).toBe(1);
    expect(await t.db.label.count({ where: { projectId: project.id, name: { startsWith: 'large-' } } })).toBe(5);
  });
});

describe('bombs at the default limits', () => {
  it("a 600 MB line (the issue's 0.6 MB file) is refused at 50 MiB: the process stays up and keeps its memory", async () => {
    const bomb = await endlessLine(600 * 1000 * 1000);
    expect(bomb.length).toBeLessThan(MIB);
    const peakBefore = process.resourceUsage().maxRSS;
    await importFile('labels', bomb).expect(400, refused('Line 1 is larger than 50 MiB'));
    // Bounded by the row limit, not by the 600 MB the line decompresses to.
    expect(process.resourceUsage().maxRSS - peakBefore).toBeLessThan(200 * 1024);
    await stillServing();
    await importFile('labels', ndjson([{ name: 'after-the-bomb' }])).expect(201);
  });

  it('twenty million tiny lines stop at the 100,000th row', async () => {
    const file = await manyLines('{"name":" "}', 20_000_000);
    expect(file.length).toBeLessThan(MIB);
    await importFile('labels', file).expect(400, refused('The file has more than 100000 rows'));
    expect(await lastImport()).toMatchObject({ status: 'failed', error: 'The file has more than 100000 rows' });
    await stillServing();
  });

  it('a cut or corrupt gzip stream is the request’s 400, not the process’s failure', async () => {
    const whole = ndjson(Array.from({ length: 2000 }, (_, i) => ({ name: `cut-${i}`, description: `label number ${i}` })));
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    await importFile('labels', cut).expect(400, refused('The file is not gzip-compressed newline-delimited JSON'));
    const corrupt = Buffer.from(whole);
    // Reserved header flags: zlib refuses the stream at its first bytes.
    corrupt[3] = 0xe0;
    await importFile('labels', corrupt).expect(400, refused('The file is not gzip-compressed newline-delimited JSON'));
    await stillServing();
  });
});

describe('records no column can hold', () => {
  it('a NUL byte, a year-0 date, an out-of-range priority: 400 naming the line and field, the import marked failed', async () => {
    const released = { released_at: '2024-01-01T00:00:00Z' };
    await importFile(
      'releases',
      ndjson([
        { tag_name: 'fine', ...released },
        { tag_name: 'v1\u0000', ...released },
      ]),
    ).expect(400, refused('Line 2: tag_name contains a null byte'));
    expect(await lastImport()).toMatchObject({ relation: 'releases', status: 'failed', error: 'Line 2: tag_name contains a null byte' });
    await importFile('releases', ndjson([{ tag_name: 'v2', ...released, links: [{ name: 'x\u0000', url: 'https://example.com' }] }])).expect(
      400,
      refused('Line 1: links[0][name] contains a null byte'),
    );
    await importFile('milestones', ndjson([{ title: 'M0', start_date: '0000-01-01' }])).expect(
      400,
      refused('Line 1: start_date must be between the years 1 and 9999'),
    );
    await importFile('milestones', ndjson([{ title: 'M1', due_date: '+010000-01-01' }])).expect(
      400,
      refused('Line 1: due_date must be between the years 1 and 9999'),
    );
    await importFile('releases', ndjson([{ tag_name: 'v3', released_at: '-000001-01-01T00:00:00Z' }])).expect(
      400,
      refused('Line 1: released_at must be between the years 1 and 9999'),
    );
    await importFile('labels', ndjson([{ name: 'big', priority: 1e20 }])).expect(400, refused('Line 1: priority must be an integer'));
    await importFile('labels', ndjson([{ name: 'half', priority: 1.5 }])).expect(400, refused('Line 1: priority must be an integer'));
    await importFile('self', ndjson([{ description: 'a\u0000b' }])).expect(400, refused('Line 1: description contains a null byte'));
    expect(await t.db.milestone.count({ where: { projectId: project.id } })).toBe(0);

    const gql = await graphqlImport('milestones', ndjson([{ title: 'M0', start_date: '0000-01-01' }]));
    expect(gql.body.data.projectImportRelation.errors).toEqual([
      'The relation file could not be imported: Line 1: start_date must be between the years 1 and 9999',
    ]);
  });

  it('a contributor whose fields are not text is stored as text, not a 500', async () => {
    const author = { id: 99, username: 42, name: ['x'], email: 7, source_hostname: 'https://other.test' };
    await importFile('releases', ndjson([{ tag_name: 'odd-author', released_at: '2024-01-01T00:00:00Z', author }])).expect(201);
    const release = await t.db.release.findFirstOrThrow({ where: { projectId: project.id, tag: 'odd-author' } });
    expect(release.authorId).not.toBeNull();
    expect(await t.db.importSourceUser.findFirstOrThrow({ where: { sourceHostname: 'https://other.test' } })).toMatchObject({
      sourceUsername: '42',
      sourceName: 'x',
    });
  });
});

describe('paths that try to leave the repository', () => {
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  /** Files under DATA_DIR outside the project's repository, and beside DATA_DIR, named like the hostile entries. */
  const escaped = () => {
    const repo = t.deps.git.pathFor(project.id);
    const beside = fs.readdirSync(path.dirname(t.config.dataDir)).map((name) => path.join(path.dirname(t.config.dataDir), name));
    return [...files(t.config.dataDir).filter((f) => !f.startsWith(repo)), ...beside].filter((f) => /pwned|passwd-link|escaped\.ndjson/.test(path.basename(f)));
  };

  it('an upload named ../../x is spooled under its own name', async () => {
    await importFile('labels', ndjson([{ name: 'traversal' }]), '../../../escaped.ndjson.gz').expect(201);
    expect(await t.db.label.count({ where: { projectId: project.id, name: 'traversal' } })).toBe(1);
    expect(escaped()).toEqual([]);
  });

  it('a bundle whose trees hold "..", a symlink to /etc/passwd and a .git entry is stored as objects only: nothing lands outside', async () => {
    const work = fs.mkdtempSync(path.join(t.config.dataDir, 'evil-'));
    const git = (args: string[], input?: string) =>
      execFileSync('git', ['-C', work, ...args], {
        input,
        env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' },
      })
        .toString()
        .trim();
    git(['init', '-q', '--bare']);
    const blob = git(['hash-object', '-w', '--stdin'], 'escaped\n');
    const link = git(['hash-object', '-w', '--stdin'], '/etc/passwd');
    const inner = git(['mktree'], `100644 blob ${blob}\tpwned\n120000 blob ${link}\tpasswd-link\n`);
    const root = git(['mktree'], `040000 tree ${inner}\t..\n040000 tree ${inner}\t.git\n`);
    git(['update-ref', 'refs/heads/evil', git(['commit-tree', root], 'evil\n')]);
    git(['bundle', 'create', '-q', 'evil.bundle', '--branches']);
    const bundle = fs.readFileSync(path.join(work, 'evil.bundle'));
    fs.rmSync(work, { recursive: true, force: true });

    await importFile('repository_bundle', bundle, '../evil.bundle').expect(201);
    const repo = t.deps.git.pathFor(project.id);
    // The bare repository has the branch; no file of it was written anywhere (no checkout).
    const entries = execFileSync('git', ['-C', repo, 'ls-tree', '-r', '--name-only', 'evil']).toString().split('\n').filter(Boolean);
    expect(entries.sort()).toEqual(['.git/passwd-link', '.git/pwned', '../passwd-link', '../pwned'].sort());
    expect(escaped()).toEqual([]);
    expect(files(repo).some((f) => /pwned|passwd-link/.test(f))).toBe(false);
  });

  it('a bundle larger than the upload limit is a 413 before git sees it', async () => {
    await importFile('repository_bundle', Buffer.alloc(5 * MIB, 1), 'huge.bundle').expect(413, { message: '413 Request Entity Too Large' });
    await stillServing();
  });
});
