import { rules } from '../core/input-rules.ts';
import { asUpload, type Upload } from '../core/upload.ts';
import type { Params } from './params.ts';

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) for one parameter. */
export type JsonSchema = { [key: string]: unknown };

/**
 * One declared route parameter, Grape's `requires`/`optional`: how `Params` reads and checks it
 * (problems carry GitLab's messages), whether it is required, and its schema for the OpenAPI
 * document. `V` is what the route's `variables` and `result` see once every check passed:
 * `undefined` is part of it only for an optional parameter without a default.
 */
export type Param<V> = {
  readonly read: (p: Params, name: string) => V | undefined;
  readonly required: boolean;
  readonly schema: JsonSchema;
};

export type ParamShape = { readonly [name: string]: Param<unknown> };

/** The checked values of a route's declared parameters. */
export type Values<S extends ParamShape> = { -readonly [K in keyof S]: S[K] extends Param<infer V> ? V : never };

type Common<T> = {
  required?: boolean;
  default?: T;
  description?: string;
  /**
   * What the use case accepts, for the OpenAPI document only (`{ enum: [...] }`, `{ minimum: 1 }`):
   * the service checks it, so the rule holds for GraphQL too and lives in one place.
   */
  documented?: JsonSchema;
};

/** Required or defaulted parameters are always there; other optional ones may be undefined. */
type Out<T, O> = O extends { required: true } ? T : O extends { default: T } ? T : T | undefined;

function declare<T, O extends Common<T>>(opts: O, schema: JsonSchema, read: (p: Params, name: string) => T | undefined): Param<Out<T, O>> {
  return {
    required: opts.required === true,
    schema: {
      ...schema,
      ...opts.documented,
      ...(opts.default !== undefined && { default: opts.default }),
      ...(opts.description && { description: opts.description }),
    },
    read: (p, name) => {
      const value = read(p, name);
      return (value === undefined ? opts.default : value) as Out<T, O> | undefined;
    },
  };
}

type StringOpts = Common<string> & { allowBlank?: boolean; max?: number };
type IntOpts = Common<number> & { allowBlank?: boolean };

/** Reads every declared parameter of a shape on `p`, in declaration order (the order of Grape's messages). */
export function readAll<S extends ParamShape>(shape: S, p: Params): Values<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(shape)) values[name] = spec.read(p, name);
  return values as Values<S>;
}

const objectSchema = (shape: ParamShape): JsonSchema => {
  const required = Object.entries(shape)
    .filter(([, spec]) => spec.required)
    .map(([name]) => name);
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(shape).map(([name, spec]) => [name, spec.schema])),
    ...(required.length && { required }),
  };
};

type Ref = { id?: number; fullPath?: string };
const REF_SCHEMA: JsonSchema = {
  type: ['integer', 'string'],
  description: 'The ID or URL-encoded full path of the project or group',
};

/** A declaration given no options (`param.string()`). */
type NoOptions = Record<never, never>;

/** The declarations a route's `params` are built from; each reads through the `Params` accessor of the same name. */
export const param = {
  string: <const O extends StringOpts = NoOptions>(opts: O = {} as O) =>
    declare<string, O>(opts, { type: 'string', ...(opts.max !== undefined && { maxLength: opts.max }) }, (p, name) => p.string(name, opts)),

  int: <const O extends IntOpts = NoOptions>(opts: O = {} as O) => declare<number, O>(opts, { type: 'integer' }, (p, name) => p.int(name, opts)),

  float: <const O extends { description?: string } = NoOptions>(opts: O = {} as O) => declare<number, O>(opts, { type: 'number' }, (p, name) => p.float(name)),

  bool: <const O extends Common<boolean> = NoOptions>(opts: O = {} as O) => declare<boolean, O>(opts, { type: 'boolean' }, (p, name) => p.bool(name, opts)),

  oneOf: <const V extends string, const O extends Common<V> = NoOptions>(values: readonly V[], opts: O = {} as O) =>
    declare<V, O>(opts, { type: 'string', enum: [...values] }, (p, name) => p.oneOf(name, values, opts)),

  /** ISO 8601 date-time, given to the operation as a UTC string. */
  dateTime: <const O extends { description?: string } = NoOptions>(opts: O = {} as O) =>
    declare<string, O>(opts, { type: 'string', format: 'date-time' }, (p, name) => p.dateTime(name)),

  /** `YYYY-MM-DD`; an empty string clears the date (null). */
  date: <const O extends { description?: string; required?: boolean } = NoOptions>(opts: O = {} as O) =>
    declare<string | null, O>(opts, { type: ['string', 'null'], format: 'date' }, (p, name) => p.date(name, opts)),

  /** An array, or a comma-separated string. */
  stringArray: <const O extends { description?: string; required?: boolean } = NoOptions>(opts: O = {} as O) =>
    declare<string[], O>(opts, { type: 'array', items: { type: 'string' } }, (p, name) => p.stringArray(name, opts)),

  intArray: <const O extends { description?: string } = NoOptions>(opts: O = {} as O) =>
    declare<number[], O>(opts, { type: 'array', items: { type: 'integer' } }, (p, name) => p.intArray(name)),

  /** A nested hash whose keys are declared like a route's own (`range[start]`). */
  hash: <const S extends ParamShape, const O extends { description?: string } = NoOptions>(shape: S, opts: O = {} as O) =>
    declare<Values<S>, O>(opts, objectSchema(shape), (p, name) => {
      const child = p.hash(name);
      return child && readAll(shape, child);
    }),

  /** An array of nested hashes (`assets[links][][url]`), each element read like `hash`. */
  hashes: <const S extends ParamShape, const O extends { description?: string } = NoOptions>(shape: S, opts: O = {} as O) =>
    declare<Values<S>[], O>(opts, { type: 'array', items: objectSchema(shape) }, (p, name) => p.hashes(name)?.map((child) => readAll(shape, child))),

  /** A parameter a JSON body may set to null (to clear a value), else read as `inner` declares. */
  nullable: <V>(inner: Param<V>): Param<V | null> => ({
    required: inner.required,
    schema: { anyOf: [inner.schema, { type: 'null' }] },
    read: (p, name) => (p.value(name) === null ? null : inner.read(p, name)),
  }),

  /** A multipart file part (Grape's `type: File`): missing → `<name> is missing`, a plain field → `<name> is invalid`. */
  file: <const O extends { description?: string; required?: boolean } = NoOptions>(opts: O = {} as O) =>
    declare<Upload, O>(opts, { type: 'string', format: 'binary' }, (p, name) => {
      const value = p.value(name);
      if (value === undefined || value === null || value === '') {
        if (opts.required) p.problem(name, 'is missing');
        return undefined;
      }
      const upload = asUpload(value);
      if (!upload) p.problem(name, 'is invalid');
      return upload ?? undefined;
    }),

  /** `:id` of a project or group: a numeric id or a URL-encoded full path. */
  ref: (): Param<Ref> => ({ required: true, schema: REF_SCHEMA, read: (p, name) => p.ref(name) }),

  /** `:id` of an API route or `{*full_path}` of a web route, so one declaration serves both. */
  projectRef: (): Param<Ref> => ({ required: true, schema: REF_SCHEMA, read: (p) => p.projectRef() }),

  /** A `{*name}` wildcard as a repository path; `.` and `..` segments are refused. */
  wildcardPath: (): Param<string | undefined> => ({ required: false, schema: { type: 'string' }, read: (p, name) => p.wildcardPath(name) }),

  /** The segments a `{*name}` wildcard matched, for a route that splits them itself. */
  segments: (): Param<string[]> => ({ required: true, schema: { type: 'string' }, read: (p, name) => p.segments(name) }),
};

/**
 * A check across parameters, run after each one was read. Rules that hold for a use case whatever
 * the interface (Grape's `at_least_one_of`, `mutually_exclusive`, `values:`) live in its service
 * (`core/input-rules.ts`); a route rule only reads the request (e.g. content required unless a
 * base64 body is explicitly null), or is one GitLab declares on its REST parameters alone.
 */
export type Rule = { readonly description: string; readonly check: (p: Params) => void };

/** Route rules of GitLab's REST parameters that its GraphQL input does not have. */
export const rule = {
  /** Grape's `at_least_one_of` on the request: a parameter sent as null counts as given. */
  atLeastOneOf: (...names: string[]): Rule => {
    const fields = Object.fromEntries(names.map((name) => [name, name]));
    return {
      description: `At least one of ${names.join(', ')} is required.`,
      check: (p) => {
        const problem = rules.atLeastOneOf(p.raw, fields, { nullIsGiven: true });
        if (problem) p.report(problem.rest);
      },
    };
  },
};
