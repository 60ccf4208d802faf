import { ParamError } from '../core/errors.ts';
import { isStorableDate, MAX_ID, parseId } from '../core/input.ts';

type Raw = Record<string, unknown>;

/**
 * An id beyond int4 names no row. GitLab looks it up and answers 404 "<Resource> Not Found"; it is
 * read as 0, which no row has, so the lookup answers the same 404 through the normal path.
 */
const NO_ROW_ID = 0;
const isIdName = (name: string) => name === 'id' || name.endsWith('_id') || name.endsWith('_ids') || name === 'iids';

/** An ISO 8601 date-time: a date, `T` or a space, and a time with an optional zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * Grape-style parameter reading for the REST facade: every accessor records a problem instead of
 * throwing, and `check()` answers them together, GitLab's way:
 * `{"error": "name is missing, visibility does not have a valid value"}`.
 */
export class Params {
  constructor(
    readonly raw: Raw,
    /** Set on the Params of one element of a nested array, e.g. `assets[links][0]`. */
    private readonly prefix = '',
    private readonly problems: string[] = [],
  ) {}

  /** The name a problem reports: `assets[links][0][url]` inside nested hashes. */
  private fullName(name: string) {
    return this.prefix ? `${this.prefix}[${name}]` : name;
  }

  private fail(name: string, problem: string): undefined {
    this.problems.push(`${this.fullName(name)} ${problem}`);
    return undefined;
  }

  /** Records a problem found by a rule outside the accessors (`content is missing`). */
  problem(name: string, problem: string) {
    this.fail(name, problem);
  }

  /** Records a problem a rule words whole (`a, b are missing, at least one parameter must be provided`). */
  report(sentence: string) {
    this.problems.push(sentence);
  }

  /** A parameter by name. */
  value(name: string): unknown {
    return this.raw[name];
  }

  has(name: string) {
    return this.value(name) !== undefined;
  }

  string(name: string, opts: { required?: boolean; allowBlank?: boolean; max?: number } = {}): string | undefined {
    const value = this.value(name);
    if (value === undefined || value === null) return opts.required ? this.fail(name, 'is missing') : undefined;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return this.fail(name, 'is invalid');
    const text = String(value);
    if (opts.allowBlank === false && text.trim() === '') return this.fail(name, 'is empty');
    if (opts.max !== undefined && text.length > opts.max) return this.fail(name, `is too long (maximum is ${opts.max} characters)`);
    return text;
  }

  /** `allowBlank: false` with `required` reports a missing value as Grape does: missing and empty. */
  int(name: string, opts: { required?: boolean; allowBlank?: boolean } = {}): number | undefined {
    const value = this.value(name);
    if (value === undefined && opts.required && opts.allowBlank === false) this.fail(name, 'is missing');
    if (isBlank(value)) return opts.required ? this.fail(name, value === undefined && opts.allowBlank !== false ? 'is missing' : 'is empty') : undefined;
    const text = String(value);
    if (!/^-?\d{1,400}$/.test(text)) return this.fail(name, 'is invalid');
    const n = Number(text);
    // Grape reads any integer; past int4 an id names no row, and a count or page is as good as the largest.
    if (Math.abs(n) > MAX_ID) return isIdName(name) ? NO_ROW_ID : Math.sign(n) * MAX_ID;
    return n;
  }

  /** Grape's Float: a decimal number, JSON's or a string's. */
  float(name: string): number | undefined {
    const value = this.value(name);
    if (isBlank(value)) return undefined;
    const n = typeof value === 'number' ? value : /^\s*-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(String(value)) ? Number(value) : Number.NaN;
    return Number.isFinite(n) ? n : this.fail(name, 'is invalid');
  }

  bool(name: string, opts: { required?: boolean } = {}): boolean | undefined {
    const value = this.raw[name];
    if (isBlank(value)) return opts.required ? this.fail(name, 'is missing') : undefined;
    if (value === true || value === false) return value;
    const text = String(value).toLowerCase();
    if (['true', '1', 't', 'yes', 'y'].includes(text)) return true;
    if (['false', '0', 'f', 'no', 'n'].includes(text)) return false;
    return this.fail(name, 'is invalid');
  }

  oneOf<T extends string>(name: string, values: readonly T[], opts: { required?: boolean } = {}): T | undefined {
    const value = this.string(name, opts);
    if (value === undefined) return undefined;
    return (values as readonly string[]).includes(value) ? (value as T) : this.fail(name, 'does not have a valid value');
  }

  /** ISO 8601 date-time, as the UTC string a GraphQL Time variable takes. */
  dateTime(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined || value === '') return undefined;
    const date = new Date(value);
    return /^\d{4}-\d{2}-\d{2}/.test(value) && isStorableDate(date) ? date.toISOString() : this.fail(name, 'is invalid');
  }

  /** Calendar date `YYYY-MM-DD` (a GraphQL Date variable); an empty string means "clear": null, unless required. */
  date(name: string, opts: { required?: boolean } = {}): string | null | undefined {
    const value = this.string(name, { required: opts.required, allowBlank: !opts.required });
    if (value === undefined) return undefined;
    if (value === '') return null;
    // Grape's Date coerces a date-time to its date (`2020-01-01T00:00:00Z` is 2020-01-01), as Ruby's Date.parse does.
    const day = DATE_TIME.test(value) ? value.slice(0, 10) : value;
    const date = new Date(`${day}T00:00:00Z`);
    const valid = /^\d{4}-\d{2}-\d{2}$/.test(day) && isStorableDate(date) && date.toISOString().startsWith(day);
    return valid ? day : this.fail(name, 'is invalid');
  }

  /** An array (`name[]=a&name[]=b` or JSON) or a comma-separated string. */
  stringArray(name: string, opts: { required?: boolean } = {}): string[] | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return opts.required ? this.fail(name, 'is missing') : undefined;
    if (value === '') return [];
    const list = Array.isArray(value) ? value : String(value).split(',');
    if (list.some((v) => typeof v !== 'string' && typeof v !== 'number')) return this.fail(name, 'is invalid');
    return list.map(String);
  }

  intArray(name: string): number[] | undefined {
    const list = this.stringArray(name);
    if (list === undefined) return undefined;
    if (list.some((v) => !/^\d{1,400}$/.test(v))) return this.fail(name, 'is invalid');
    return list.map((v) => parseId(v) ?? NO_ROW_ID);
  }

  /** A hash (`range[start]=1&range[end]=2`, or a JSON object), read through a Params that names its keys `range[start]`. */
  hash(name: string): Params | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return this.fail(name, 'is invalid');
    return new Params(value as Raw, this.fullName(name), this.problems);
  }

  /**
   * An array of hashes (`assets[links][][url]` as form fields, or JSON), each read through its own
   * Params that reports problems with the full name: `assets[links][0][url] is missing`.
   */
  hashes(name: string): Params[] | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    // qs gives an object with numeric keys for `a[links][0][name]`, an array for `a[links][][name]`.
    const list = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : null;
    if (!list || list.some((v) => !v || typeof v !== 'object')) return this.fail(name, 'is invalid');
    return list.map((v, i) => new Params(v as Raw, `${this.fullName(name)}[${i}]`, this.problems));
  }

  /** `:id` of a project or group: a numeric id or a URL-encoded full path. */
  ref(name: string): { id?: number; fullPath?: string } {
    const value = this.string(name, { required: true, allowBlank: false });
    if (value === undefined) return {};
    // Like GitLab's find_project: digits are an id when they can be one, else a path (which an
    // id beyond int4 never is, so it ends as GitLab's 404, not a type error).
    const id = parseId(value);
    return id !== null ? { id } : { fullPath: value };
  }

  /** `:id` of an API route, or the `{*full_path}` of a web route (`/<full_path>/-/...`). */
  projectRef(): { id?: number; fullPath?: string } {
    const segments = this.segments('full_path');
    return segments ? { fullPath: segments.join('/') } : this.ref('id');
  }

  /** The segments a `{*name}` wildcard matched. */
  segments(name: string): string[] | undefined {
    const segments = this.raw[name];
    return Array.isArray(segments) ? segments.map(String) : undefined;
  }

  /**
   * A `{*name}` wildcard as a path. Clients may send the whole path as one encoded segment
   * (`bin%2Fapp`, as gitbeaker encodes it): it is decoded like Grape does, so both spellings name
   * the same path. `.` and `..` segments are refused, encoded or not, like GitLab's file paths.
   */
  wildcardPath(name: string): string | undefined {
    const segments = this.segments(name)?.flatMap((s) => s.split('/'));
    if (!segments) return undefined;
    if (segments.some((s) => s === '..' || s === '.')) return this.fail(name, 'should be a valid file path');
    return segments.join('/');
  }

  check() {
    if (this.problems.length) throw new ParamError(this.problems.join(', '));
  }
}
