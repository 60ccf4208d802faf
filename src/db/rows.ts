import { createHash } from 'node:crypto';
import pg from 'pg';
import { COLUMNS, type ModelName } from '../generated/columns.ts';

// Prisma keeps DateTime in `timestamp(3)` columns holding UTC, and `@db.Date` as UTC midnight;
// node-postgres would read both as local time.
const DATE = 1082;
const TIMESTAMP = 1114;
const parsedAsIso = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const twoDigits = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/**
 * `YYYY-MM-DD HH:MM:SS[.f[f[f]]]` read by position: a list of 100 releases holds ~1,500 timestamps,
 * and building an ISO string for Date's parser costs twice as much (bench/RESULTS.md, "Figures behind the code").
 * Anything else (years before 1000, which Date.UTC would move, BC, infinity) goes to the parser.
 */
function utcTimestamp(text: string): Date {
  const length = text.length;
  if (length < 19 || length > 23 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(0) === 48) return parsedAsIso(text);
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const ms = length > 20 ? digit(text, 20) * 100 + (length > 21 ? digit(text, 21) * 10 : 0) + (length > 22 ? digit(text, 22) : 0) : 0;
  return new Date(Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), ms));
}
const utcDate = (text: string) => new Date(`${text}T00:00:00Z`);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === TIMESTAMP) return utcTimestamp;
    if (oid === DATE) return utcDate;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/**
 * Reads over the pool itself, for the few statements nearly every request runs (a project with its
 * namespace). Prisma's `$queryRaw` spends three times node-postgres's CPU per statement
 * (parameterizing, planning, mapping), a tenth of a small request (bench/RESULTS.md, "Figures behind the code"). Same pool, so the same timeouts, the same statement counter and the
 * same errors (`isDatabaseUnavailable` reads node-postgres's); rows come back with the columns'
 * own names (`a.b` as `b` of an object `a`, see `rowBuilder`) and JavaScript values as Prisma's
 * would be (timestamps and dates as UTC `Date`s). Not for writes: those stay with Prisma and its
 * transactions.
 *
 * `prepared`: each statement is prepared once per connection, under a name derived from its text,
 * and PostgreSQL plans it once instead of on every request. The access-level reads go through the
 * membership views, which take PostgreSQL longer to plan than to run (bench/RESULTS.md, "Figures behind the code").
 * Off (`DB_PREPARED_STATEMENTS=false`), statements are unnamed, as a transaction-mode PgBouncer
 * that does not track prepared statements needs.
 */
export class SqlReader {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly pool: pg.Pool,
    readonly prepared = true,
  ) {}

  private readonly builders = new Map<string, RowBuilder>();

  async rows<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query<unknown[]>({ name: this.prepared ? this.nameOf(text) : undefined, text, values, types, rowMode: 'array' });
    let builder = this.builders.get(text);
    if (!builder?.fits(result.fields)) {
      builder = rowBuilder(result.fields);
      this.builders.set(text, builder);
    }
    return result.rows.map(builder.build) as T[];
  }

  /** The same name for the same text in every process and reader: node-postgres refuses a name reused for other text. */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `fg_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

type RowBuilder = { fits(fields: readonly pg.FieldDef[]): boolean; build(values: unknown[]): pg.QueryResultRow };

/**
 * The rows of a statement as objects with one property per column, in column order, built by an
 * object literal made for the statement's columns. node-postgres copies a null-prototype template
 * into each row and stores the columns by name: objects of more than a few properties built that
 * way are slow to build and to read, arrays given to a literal much less so (bench/RESULTS.md, "Figures behind the code"). The
 * literal is compiled once per statement (the columns of a text do not
 * change; `fits` checks that they did not).
 *
 * A column named `a.b` is `b` of an object `a` (a joined model's columns, as `selectList` names
 * them with a prefix), at any depth: the shape Prisma's `include` gives, built by the same literal.
 * Names are written as JSON strings, never as code. Names that cannot nest (`a` and `a.b` both,
 * an empty part) leave every column at the top, named as selected; with a `__proto__` column,
 * which a literal would take for the prototype, the rows are built as node-postgres builds them.
 */
function rowBuilder(fields: readonly pg.FieldDef[]): RowBuilder {
  const names = fields.map((field) => field.name);
  const fits = (other: readonly pg.FieldDef[]) => other.length === names.length && other.every((field, i) => field.name === names[i]);
  if (names.some((name) => name.split('.').includes('__proto__'))) {
    // node-postgres's own way: a copy of a template that holds every name as an own property.
    const template: pg.QueryResultRow = Object.create(null);
    for (const name of names) template[name] = null;
    return {
      fits,
      build: (values) => {
        const row: pg.QueryResultRow = { ...template };
        for (const [i, name] of names.entries()) row[name] = values[i];
        return row;
      },
    };
  }
  const shape = nestedShape(names) ?? new Map(names.map((name, i) => [name, i]));
  return { fits, build: new Function('values', `return ${literalOf(shape)};`) as RowBuilder['build'] };
}

/** Column names as a tree of properties; a leaf is its column's index (the last of equal names, in the first one's place). */
type Shape = Map<string, number | Shape>;

function nestedShape(names: string[]): Shape | null {
  const root: Shape = new Map();
  for (const [index, name] of names.entries()) {
    const parts = name.split('.');
    if (parts.includes('')) return null;
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const child = node.get(part) ?? new Map();
      if (typeof child === 'number') return null;
      node.set(part, child);
      node = child;
    }
    if (node.get(parts.at(-1)!) instanceof Map) return null;
    node.set(parts.at(-1)!, index);
  }
  return root;
}

const literalOf = (shape: Shape): string =>
  `{ ${[...shape].map(([key, value]) => `${JSON.stringify(key)}: ${typeof value === 'number' ? `values[${value}]` : literalOf(value)}`).join(', ')} }`;

/** A model's fields, as the generated column maps know them. */
export type FieldOf<M extends ModelName> = keyof (typeof COLUMNS)[M] & string;

/**
 * A select list reading a model's fields (those in `pick`, else all but `omit`) from the table
 * aliased `alias`, each named `<prefix><field>` (with a `user.` prefix, SqlReader reads them as an
 * object `user`). The columns come from the maps generated from the Prisma schema
 * (src/generated/columns.ts), so a row reads as Prisma's would.
 */
export function selectList<M extends ModelName>(
  model: M,
  alias: string,
  { prefix = '', omit = [], pick }: { prefix?: string; omit?: readonly FieldOf<M>[]; pick?: readonly FieldOf<M>[] } = {},
): string {
  const columns: Record<string, string> = COLUMNS[model];
  const omitted = new Set<string>(omit);
  const fields = (pick ?? Object.keys(columns)).filter((field) => !omitted.has(field));
  return fields.map((field) => `${alias}.${columns[field]} AS "${prefix}${field}"`).join(', ');
}

/**
 * The WHERE clause of a statement whose conditions depend on the request (filters given or not, a
 * viewer signed in or not), with the values they bind: `bind` takes a value and returns its
 * placeholder, numbered after the values the statement starts with. Values are always bound, never
 * spliced into the text, so the text depends on which conditions are present only (and a prepared
 * statement serves every request with the same ones).
 */
export class Conditions {
  readonly values: unknown[];
  private readonly parts: string[] = [];

  constructor(values: unknown[] = []) {
    this.values = [...values];
  }

  readonly bind = (value: unknown): string => {
    this.values.push(value);
    return `$${this.values.length}`;
  };

  /** Adds a condition; null adds none. */
  and(condition: string | null): this {
    if (condition !== null) this.parts.push(`(${condition})`);
    return this;
  }

  /** The conditions joined with AND; TRUE when there are none. */
  toString(): string {
    return this.parts.length ? this.parts.join(' AND ') : 'TRUE';
  }
}
