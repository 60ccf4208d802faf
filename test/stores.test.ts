import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Every SQL statement lives in a store (docs/development.md, "Stores"): an area's in
// src/modules/<area>/store.ts, infrastructure's in a store.ts or *-store.ts of the folder that owns
// it. src/db (the engine: SqlReader, Conditions, migrations, readiness) and src/generated are exempt.

const SRC = path.resolve(import.meta.dirname, '../src');

/** Statement text, and the raw and plain reader calls that run it. */
const SQL = [
  /\bSELECT\s/,
  /\bINSERT INTO\b/,
  /\bUPDATE\s+[\w."]+\s+SET\b/,
  /\bDELETE FROM\b/,
  /\$(queryRaw|executeRaw)(Unsafe)?\s*[`(<]/,
  /\bsql\.rows\s*[(<]/,
  /\bPrisma\.(sql|raw)\b/,
];

const exempt = (file: string) => /^(db|generated)\//.test(file) || /(^|\/|-)store\.ts$/.test(file);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `file:line: text` of each line with SQL in a file that is not a store. */
function sqlOutsideStores(files: { file: string; text: string }[]): string[] {
  return files
    .filter(({ file }) => !exempt(file))
    .flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, i) => (SQL.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
}

describe('stores', () => {
  it('flags statement text and raw calls outside stores, and not in stores, src/db or src/generated (the check works)', () => {
    const samples = [
      { file: 'modules/tags/service.ts', text: 'const q = `SELECT id FROM tags WHERE name = $1`;' },
      { file: 'modules/tags/service.ts', text: 'await ctx.db.$queryRaw`SELECT 1`;' },
      { file: 'auth/policy.ts', text: "await db.$executeRawUnsafe('x');\nawait this.sql.rows(TEXT, []);" },
      { file: 'jobs/queue.ts', text: 'return `UPDATE pgboss.job SET state = 1`;\nconst x = Prisma.sql`1`;' },
      { file: 'modules/tags/service.ts', text: "type D = Pick<Db, '$queryRaw'>; // select the tags\nconst selected = 1;" },
      { file: 'modules/tags/store.ts', text: 'await db.$queryRaw`DELETE FROM tags`;' },
      { file: 'auth/counter-store.ts', text: "pool.query('INSERT INTO counters VALUES (1)');" },
      { file: 'db/readiness.ts', text: 'await db.$queryRaw`SELECT 1`;' },
      { file: 'generated/columns.ts', text: 'SELECT ' },
    ];
    expect(sqlOutsideStores(samples)).toEqual([
      'modules/tags/service.ts:1: const q = `SELECT id FROM tags WHERE name = $1`;',
      'modules/tags/service.ts:1: await ctx.db.$queryRaw`SELECT 1`;',
      "auth/policy.ts:1: await db.$executeRawUnsafe('x');",
      'auth/policy.ts:2: await this.sql.rows(TEXT, []);',
      'jobs/queue.ts:1: return `UPDATE pgboss.job SET state = 1`;',
      'jobs/queue.ts:2: const x = Prisma.sql`1`;',
    ]);
  });

  it('has no SQL outside stores in src', () => {
    const files = sourceFiles(SRC).map((full) => ({ file: path.relative(SRC, full), text: fs.readFileSync(full, 'utf8') }));
    expect(files.filter(({ file }) => /(^|\/|-)store\.ts$/.test(file)).length).toBeGreaterThan(10);
    expect(sqlOutsideStores(files)).toEqual([]);
  });
});
