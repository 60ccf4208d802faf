import { ParamError } from '../graphql/errors.ts';

type Raw = Record<string, unknown>;

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

  private fail(name: string, problem: string): undefined {
    this.problems.push(`${this.prefix ? `${this.prefix}[${name}]` : name} ${problem}`);
    return undefined;
  }

  /** A parameter by name; `range[start]` reads the nested value the extended query parser built. */
  value(name: string): unknown {
    const nested = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
    if (!nested) return this.raw[name];
    const parent = this.raw[nested[1]];
    return parent !== null && typeof parent === 'object' ? (parent as Raw)[nested[2]] : undefined;
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
  int(name: string, opts: { required?: boolean; min?: number; allowBlank?: boolean } = {}): number | undefined {
    const value = this.value(name);
    if (value === undefined && opts.required && opts.allowBlank === false) this.fail(name, 'is missing');
    if (isBlank(value)) return opts.required ? this.fail(name, value === undefined && opts.allowBlank !== false ? 'is missing' : 'is empty') : undefined;
    const text = String(value);
    if (!/^-?\d{1,15}$/.test(text)) return this.fail(name, 'is invalid');
    const n = Number(text);
    if (opts.min !== undefined && n < opts.min) return this.fail(name, 'does not have a valid value');
    return n;
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

  intOneOf(name: string, values: readonly number[], opts: { required?: boolean } = {}): number | undefined {
    const value = this.int(name, opts);
    if (value === undefined) return undefined;
    return values.includes(value) ? value : this.fail(name, 'does not have a valid value');
  }

  /** ISO 8601 date-time, as the UTC string a GraphQL DateTime variable takes. */
  dateTime(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined || value === '') return undefined;
    const date = new Date(value);
    return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(date.getTime()) ? date.toISOString() : this.fail(name, 'is invalid');
  }

  /** Calendar date `YYYY-MM-DD` (a GraphQL Date variable); an empty string means "clear": null. */
  date(name: string): string | null | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (value === '') return null;
    const date = new Date(`${value}T00:00:00Z`);
    const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
    return valid ? value : this.fail(name, 'is invalid');
  }

  stringArray(name: string): string[] | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    if (value === '' ) return [];
    const list = Array.isArray(value) ? value : String(value).split(',');
    if (list.some((v) => typeof v !== 'string' && typeof v !== 'number')) return this.fail(name, 'is invalid');
    return list.map(String);
  }

  intArray(name: string): number[] | undefined {
    const list = this.stringArray(name);
    if (list === undefined) return undefined;
    if (list.some((v) => !/^\d{1,15}$/.test(v))) return this.fail(name, 'is invalid');
    return list.map(Number);
  }

  /**
   * An array of hashes under a nested key (`assets[links][]` as form fields or JSON), each read
   * through its own Params that reports problems with the full name: `assets[links][0][url] is missing`.
   */
  hashes(...path: string[]): Params[] | undefined {
    let value: unknown = this.raw;
    for (const key of path) value = value && typeof value === 'object' ? (value as Raw)[key] : undefined;
    if (value === undefined) return undefined;
    const name = `${path[0]}${path.slice(1).map((k) => `[${k}]`).join('')}`;
    // qs gives an object with numeric keys for `a[links][0][name]`, an array for `a[links][][name]`.
    const list = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : null;
    if (!list || list.some((v) => !v || typeof v !== 'object')) return this.fail(name, 'is invalid');
    return list.map((v, i) => new Params(v as Raw, `${name}[${i}]`, this.problems));
  }

  /** `:id` of a project or group: a numeric id or a URL-encoded full path. */
  ref(name: string): { id?: number; fullPath?: string } {
    const value = this.string(name, { required: true, allowBlank: false });
    if (value === undefined) return {};
    return /^\d+$/.test(value) ? { id: Number(value) } : { fullPath: value };
  }

  /** `:id` of an API route, or the `{*full_path}` of a web route (`/<full_path>/-/...`). */
  projectRef(): { id?: number; fullPath?: string } {
    const segments = this.raw.full_path;
    return Array.isArray(segments) ? { fullPath: segments.join('/') } : this.ref('id');
  }

  /** A `{*name}` wildcard as a path; `.` and `..` segments are refused like GitLab's file paths. */
  wildcardPath(name: string): string | undefined {
    const segments = this.raw[name];
    if (!Array.isArray(segments)) return undefined;
    if (segments.some((s) => s === '..' || s === '.' || String(s).includes('/'))) return this.fail(name, 'should be a valid file path');
    return segments.join('/');
  }

  /** At least one of the given parameters must be present (Grape's `at_least_one_of`). */
  atLeastOneOf(...names: string[]) {
    if (names.some((n) => this.has(n))) return;
    this.problems.push(`${names.join(', ')} are missing, at least one parameter must be provided`);
  }

  /** Grape's `mutually_exclusive` with a custom message: `a, b <message>`. */
  mutuallyExclusive(names: string[], message: string) {
    if (names.filter((n) => this.has(n)).length > 1) this.problems.push(`${names.join(', ')} ${message}`);
  }

  check() {
    if (this.problems.length) throw new ParamError(this.problems.join(', '));
  }
}
