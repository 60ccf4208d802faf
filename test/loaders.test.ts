import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { batchBy, loadExisting, SettledLoader } from '../src/core/loaders.ts';
import { projectsWithNamespace } from '../src/core/store.ts';
import { findProject } from '../src/modules/projects/service.ts';
import { authenticate, authenticateToken } from '../src/auth/authenticate.ts';
import { issueJobToken } from '../src/auth/job-tokens.ts';
import { tokenDigest } from '../src/auth/tokens.ts';
import { Viewer } from '../src/auth/viewer.ts';
import { createContext } from '../src/core/context.ts';
import { SqlReader } from '../src/db/rows.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { inZone } from './helpers/zone.ts';

/** A test app with the process in `zone` (see inZone), closed afterwards. */
const appInZone = (zone: string, run: (t: TestApp) => Promise<void>) =>
  inZone(zone, async () => {
    const t = await createTestApp();
    try {
      await run(t);
    } finally {
      await t.close();
    }
  });

describe('SettledLoader', () => {
  it('batches keys as DataLoader does, then hands settled values over without a promise, and forgets them on clear', async () => {
    const batches: number[][] = [];
    const facts = new SettledLoader(async (ids: readonly number[]) => {
      batches.push([...ids]);
      return ids.map((id) => ({ id, url: `/p/${id}` }));
    });
    const first = facts.use(1, (f) => f.url);
    const second = facts.use(1, (f) => f.id);
    const other = facts.get(2);
    expect(first).toBeInstanceOf(Promise);
    expect(other).toBeInstanceOf(Promise);
    expect(await Promise.all([first, second, other])).toEqual(['/p/1', 1, { id: 2, url: '/p/2' }]);
    expect(batches).toEqual([[1, 2]]);
    // Settled: the value at once, as a plain value, without another batch.
    expect(facts.use(1, (f) => f.url)).toBe('/p/1');
    expect(facts.get(2)).toEqual({ id: 2, url: '/p/2' });
    expect(batches).toEqual([[1, 2]]);
    // Cleared: read again, through a promise.
    facts.clear(1);
    const again = facts.use(1, (f) => f.url);
    expect(again).toBeInstanceOf(Promise);
    expect(await again).toBe('/p/1');
    facts.clearAll();
    expect(facts.get(2)).toBeInstanceOf(Promise);
    await facts.get(2);
    expect(batches).toEqual([[1, 2], [1], [2]]);
    // Primed: a plain value at once; a key already read keeps its value, as DataLoader's prime does.
    facts.prime(3, { id: 3, url: '/primed' }).prime(2, { id: 2, url: '/other' });
    expect(facts.get(3)).toEqual({ id: 3, url: '/primed' });
    expect(facts.get(2)).toEqual({ id: 2, url: '/p/2' });
    expect(await facts.load(2)).toEqual({ id: 2, url: '/p/2' });
    // A key cleared while its batch runs (a write in between) is not settled by that batch.
    const read = facts.load(4);
    facts.clear(4);
    await read;
    expect(facts.get(4)).toBeInstanceOf(Promise);
    expect(batches).toEqual([[1, 2], [1], [2], [4]]);
    await facts.get(4);
  });

  it('preloads the keys not read yet in one batch, and fails as that read fails', async () => {
    const batches: number[][] = [];
    let fail = false;
    const rows = new SettledLoader(async (ids: readonly number[]) => {
      batches.push([...ids]);
      if (fail) throw new Error('Connection terminated unexpectedly');
      return ids.map((id) => id * 10);
    });
    await rows.preload([1, 2]);
    expect([rows.get(1), rows.get(2)]).toEqual([10, 20]);
    await rows.preload(new Set([2, 3, 4]));
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(rows.use(4, (v) => v + 1)).toBe(41);
    fail = true;
    await expect(rows.preload([5, 1])).rejects.toThrow('Connection terminated unexpectedly');
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('settles neither a failed batch nor an Error handed back for one key', async () => {
    let fail = true;
    const rows = new SettledLoader(async (ids: readonly number[]) => {
      if (fail) throw new Error('Connection terminated unexpectedly');
      return ids.map((id) => (id === 2 ? new Error('no such row') : id * 10));
    });
    await expect(rows.use(1, (v) => v)).rejects.toThrow('Connection terminated unexpectedly');
    fail = false;
    // DataLoader forgot the failed key: read again, and now settled.
    expect(await rows.get(1)).toBe(10);
    expect(rows.get(1)).toBe(10);
    await expect(rows.get(2)).rejects.toThrow('no such row');
    const failed = rows.get(2);
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toThrow('no such row');
  });
});

describe('request loaders', () => {
  it('are made on first use, kept for the request, and never shared between requests', async () => {
    const t = await createTestApp();
    try {
      const [a, b] = [createContext(t.deps, Viewer.anonymous()), createContext(t.deps, Viewer.anonymous())];
      expect(Object.keys(a.loaders)).toEqual([]);
      const project = a.loaders.project;
      expect(a.loaders.project).toBe(project);
      expect(Object.keys(a.loaders)).toEqual(['project']);
      expect(b.loaders.project).not.toBe(project);
      // An area's loaders (registered by the module manifest) the same way.
      expect(a.loaders.releases).toBe(a.loaders.releases);
      expect(a.loaders.releases).not.toBe(b.loaders.releases);
      expect(Object.keys(a.loaders)).toEqual(['project', 'releases']);
      expect(await a.loaders.user.load(t.root.id)).toMatchObject({ username: 'root' });
    } finally {
      await t.close();
    }
  });
});

describe('loadExisting', () => {
  it('leaves out keys without a row, and fails when the read fails (loadMany would hand the error back in the list)', async () => {
    const rows = batchBy(
      async (ids: readonly number[]) => ids.filter((id) => id !== 2).map((id) => ({ id })),
      (r) => r.id,
    );
    expect(await loadExisting(rows, [3, 2, 1])).toEqual([{ id: 3 }, { id: 1 }]);
    const lost = batchBy<number, { id: number }>(
      async () => {
        throw new Error('Connection terminated unexpectedly');
      },
      (r) => r.id,
    );
    expect(await lost.loadMany([1])).toEqual([expect.any(Error)]);
    await expect(loadExisting(lost, [1, 2])).rejects.toThrow('Connection terminated unexpectedly');
  });
});

describe('projectsWithNamespace', () => {
  it("reads the rows Prisma's include reads, field for field, in one statement, by id and by path", async () => {
    // Timestamps are UTC in the columns: read in another zone, they must still be the same instants.
    await appInZone('America/New_York', async (t) => {
      const group = (await t.api('post', '/groups').send({ name: 'G', path: 'g' }).expect(201)).body;
      const sub = (await t.api('post', '/groups').send({ name: 'S', path: 's', parent_id: group.id }).expect(201)).body;
      const nested = (
        await t
          .api('post', '/projects')
          .send({ name: 'App', namespace_id: sub.id, topics: ['a', 'b'], description: 'd' })
          .expect(201)
      ).body;
      const own = (await t.api('post', '/projects').send({ name: 'Mine' }).expect(201)).body;
      const ids = [own.id, nested.id];
      const expected = await t.db.project.findMany({ where: { id: { in: ids } }, include: { namespace: true } });
      t.queryCounter.reset();
      const rows = await projectsWithNamespace(t.deps.sql, [...ids, 2 ** 31 - 1]);
      expect(t.queryCounter.count).toBe(1);
      // Same keys, values and types (dates as Dates, arrays as arrays): a column added to either
      // table and not to the statement fails here.
      const byId = (list: { id: number }[]) => [...list].sort((a, b) => a.id - b.id);
      expect(byId(rows)).toStrictEqual(byId(expected));
      expect(await projectsWithNamespace(t.deps.sql, [])).toEqual([]);
      // Through the service, by full path (case-insensitively) and by id, the same row, for an
      // administrator and for a member, whose level in the project comes with it: the check that
      // follows sends nothing more. An outsider's read of the private project finds nothing.
      const developer = await t.user();
      await t.api('post', `/projects/${nested.id}/members`).send({ user_id: developer.id, access_level: 30 }).expect(201);
      const member = new Viewer(await t.db.user.findUniqueOrThrow({ where: { id: developer.id } }), null);
      const outsider = new Viewer(await t.db.user.findUniqueOrThrow({ where: { id: (await t.user()).id } }), null);
      const admin = new Viewer(await t.db.user.findUniqueOrThrow({ where: { id: t.root.id } }), null);
      for (const viewer of [admin, member]) {
        for (const ref of [{ fullPath: 'G/S/APP' }, { id: nested.id }]) {
          const ctx = createContext(t.deps, viewer);
          t.queryCounter.reset();
          const found = await findProject(ctx, ref);
          expect(found).toStrictEqual(expected.find((p) => p.id === nested.id));
          expect(await ctx.policy.projectAccessLevel(found!)).toBe(viewer === admin ? 50 : 30);
          expect(t.queryCounter.count).toBe(1);
        }
      }
      const ctx = createContext(t.deps, outsider);
      t.queryCounter.reset();
      expect(await findProject(ctx, { fullPath: 'g/s/app' })).toBeNull();
      expect(await findProject(ctx, { fullPath: 'g/app' })).toBeNull();
      expect(t.queryCounter.count).toBe(2);

      // Users (authors, members) through the request's loader: the rows Prisma reads.
      const someone = await t.user();
      await t.db.user.update({ where: { id: someone.id }, data: { confirmedAt: new Date('2026-03-04T05:06:07.089Z'), bio: 'b' } });
      const userIds = [someone.id, t.root.id];
      const users = await createContext(t.deps, Viewer.anonymous()).loaders.user.loadMany([...userIds, 2 ** 31 - 1]);
      expect(users).toStrictEqual([
        ...(await t.db.user.findMany({ where: { id: { in: userIds } } })).sort((a, b) => userIds.indexOf(a.id) - userIds.indexOf(b.id)),
        null,
      ]);
    });
  });
});

describe('credential lookups', () => {
  it("read a token and a job token with their user in one statement each, the rows Prisma's include reads", async () => {
    // East of UTC: a `date` or `timestamp` read as local time would move the expiry back by hours.
    await appInZone('Asia/Kolkata', async (t) => {
      const key = t.deps.secrets.tokenDigestKey;
      const someone = await t.user();
      await t.db.user.update({ where: { id: someone.id }, data: { confirmedAt: new Date('2026-03-04T05:06:07.089Z'), bio: 'b' } });
      const token = await t.token(someone.id, ['read_api', 'read_repository'], { expiresAt: new Date('2031-01-31T00:00:00Z') });
      const digest = tokenDigest(key, token);
      // Used a moment ago (no last_used_at write follows the read), and rotated from another token.
      const previous = await t.db.personalAccessToken.findFirstOrThrow({ where: { userId: t.root.id } });
      await t.db.personalAccessToken.update({ where: { digest }, data: { lastUsedAt: new Date(Date.now() - 1_234), previousTokenId: previous.id } });
      const { user, ...row } = await t.db.personalAccessToken.findUniqueOrThrow({ where: { digest }, include: { user: true } });

      t.queryCounter.reset();
      const viewer = await authenticateToken(t.deps, key, token);
      expect(t.queryCounter.count).toBe(1);
      // Same keys, values and types: a column added to either table and not to the statement fails here.
      expect(viewer.user).toStrictEqual(user);
      expect(viewer.token).toStrictEqual(row);
      expect(viewer.credentialProblem).toBeNull();

      // A job token expiring in an hour is valid only if its timestamp is read as UTC.
      const project = (await t.api('post', '/projects').send({ name: 'Jobs' }).expect(201)).body;
      const job = await issueJobToken(t.db, key, { projectId: project.id, userId: someone.id, minutes: 60 });
      t.queryCounter.reset();
      const jobViewer = await authenticate(t.deps, key, { jobToken: job.token });
      expect(t.queryCounter.count).toBe(1);
      expect(jobViewer.user).toStrictEqual(user);
      expect(jobViewer.job).toEqual({ projectId: project.id });
    });
  });
});

describe('SqlReader', () => {
  it('reads timestamp(3) columns as the UTC instants they hold, whatever the fraction and the year', async () => {
    await appInZone('America/Los_Angeles', async (t) => {
      // Two thousand instants over three centuries with every kind of fraction (none, .1, .12, .123),
      // and years before 1000, which Date.UTC would move to the 1900s and take the slow path.
      const rows = await t.deps.sql.rows<{ at: Date; iso: string }>(
        `SELECT at, to_char(at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS iso FROM (
           SELECT (timestamp '1900-01-01' + i * interval '53 days 7 hours 11 minutes 13.117 seconds' + (i % 4) * interval '100 milliseconds')::timestamp(3) AS at
           FROM generate_series(0, 1999) AS i
           UNION ALL SELECT unnest(ARRAY['0999-12-31 23:59:59.9', '0001-01-01 00:00:00', '2026-02-28 23:59:59.99']::timestamp(3)[])
         ) s`,
        [],
      );
      expect(rows).toHaveLength(2003);
      const fractions = new Set(rows.map((r) => r.iso.slice(20, 23).replace(/0+$/, '').length));
      expect([...fractions].sort()).toEqual([0, 1, 2, 3]);
      for (const { at, iso } of rows) expect(at.toISOString(), iso).toBe(new Date(iso).toISOString());
    });
  });
});

describe('SqlReader rows', () => {
  it("are node-postgres's rows, property for property and in order, however the columns are named, with `a.b` as `b` of an object `a`", async () => {
    const t = await createTestApp();
    const pool = new pg.Pool({ connectionString: t.url, max: 1 });
    try {
      const reader = new SqlReader(pool, false);
      // As node-postgres builds them: the reference.
      const plain = async (text: string) => (await pool.query({ text, types: { getTypeParser: pg.types.getTypeParser } })).rows;
      /** Rows with their keys in order and their prototypes. */
      const described = (rows: Record<string, unknown>[]) => ({
        rows,
        keys: rows.map((r) => Object.keys(r)),
        prototypes: rows.map((r) => Object.getPrototypeOf(r)),
      });
      /** Read twice: the second read goes through the builder kept for the statement. */
      const read = async (text: string) => [described(await reader.rows(text, [])), described(await reader.rows(text, []))];
      const wide = `SELECT ${Array.from({ length: 70 }, (_, i) => `${i} AS "c${i}"`).join(', ')}`;
      const odd = `SELECT 1 AS "a", 2 AS "a", 'x' AS "with ""quotes"" and \\", 't'::bool AS "é", '{1,2}'::int[] AS "\u2028", 4 AS "constructor"`;
      // Names that cannot nest stay at the top as selected: a name and a deeper one, empty parts.
      const flat = ['SELECT 1 AS "a", 2 AS "a.b"', 'SELECT 2 AS "a.b", 1 AS "a"', 'SELECT 1 AS "a.", 2 AS ".b"', 'SELECT 1 AS "a..b"'];
      // A __proto__ column, which a literal would take for the prototype, is an own property.
      const proto = 'SELECT 3 AS "__proto__", 4 AS "b"';
      for (const text of [wide, odd, 'SELECT id, username FROM users ORDER BY id', ...flat, proto]) {
        for (const seen of await read(text)) expect(seen, text).toEqual(described(await plain(text)));
      }
      // Positive control: the comparison sees a property out of place.
      const [first] = await reader.rows<Record<string, unknown>>(odd, []);
      const { a, ...rest } = first!;
      expect(described([{ ...rest, a }])).not.toEqual(described(await plain(odd)));
      // Duplicate names keep the last value in the first place, as node-postgres's do.
      expect(first).toMatchObject({ a: 2, 'with "quotes" and \\': 'x', é: true, '\u2028': [1, 2], constructor: 4 });
      expect(Object.getOwnPropertyDescriptor((await reader.rows(proto, []))[0], '__proto__')?.value).toBe(3);
      // Joined columns: an object per prefix, at any depth, where its first column is.
      const joined = await read('SELECT 1 AS "id", 2 AS "user.id", NULL AS "user.name", 3 AS "kind", 4 AS "user.namespace.id", 5 AS "x.y.z"');
      for (const seen of joined) {
        expect(seen.rows).toEqual([{ id: 1, user: { id: 2, name: null, namespace: { id: 4 } }, kind: 3, x: { y: { z: 5 } } }]);
        expect(seen.keys).toEqual([['id', 'user', 'kind', 'x']]);
        expect(Object.keys(seen.rows[0]!.user as object)).toEqual(['id', 'name', 'namespace']);
      }
      // The same text over other columns (`SELECT *` after a migration) gets rows of its own.
      await pool.query('CREATE TABLE shifting (a int)');
      await pool.query('INSERT INTO shifting VALUES (1)');
      expect(await reader.rows('SELECT * FROM shifting', [])).toEqual([{ a: 1 }]);
      await pool.query("ALTER TABLE shifting ADD COLUMN b text DEFAULT 'b'");
      expect(await reader.rows('SELECT * FROM shifting', [])).toEqual([{ a: 1, b: 'b' }]);
    } finally {
      await pool.end();
      await t.close();
    }
  });
});

describe('SqlReader statements', () => {
  it('are prepared once per connection by default, and unnamed with DB_PREPARED_STATEMENTS=false', async () => {
    const t = await createTestApp();
    try {
      expect(t.deps.sql.prepared).toBe(true);
      // A connection of its own (prepared statements live in a session); the statement finds itself.
      const text = 'SELECT statement FROM pg_prepared_statements WHERE statement LIKE $1';
      const preparedAfterTwoRuns = async (prepared: boolean) => {
        const pool = new pg.Pool({ connectionString: t.url, max: 1 });
        try {
          const reader = new SqlReader(pool, prepared);
          await reader.rows(text, ['%pg_prepared_statements%']);
          return (await reader.rows<{ statement: string }>(text, ['%pg_prepared_statements%'])).map((r) => r.statement);
        } finally {
          await pool.end();
        }
      };
      expect(await preparedAfterTwoRuns(true)).toEqual([text]);
      expect(await preparedAfterTwoRuns(false)).toEqual([]);
    } finally {
      await t.close();
    }
    const unprepared = await createTestApp({ env: { DB_PREPARED_STATEMENTS: 'false' } });
    try {
      expect(unprepared.deps.sql.prepared).toBe(false);
      await unprepared.api('get', '/user').expect(200);
    } finally {
      await unprepared.close();
    }
  });
});
