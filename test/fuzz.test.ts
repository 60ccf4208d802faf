// Generated requests over every REST route, every GraphQL root field and the alert intake, with
// hostile and random values, against the real app on a loopback port. Every JSON, form and
// multipart body may carry deep nesting, NUL bytes, unpaired surrogates and dates PostgreSQL cannot
// store, in values and in keys. Any 5xx fails the run and names the request; the app must still
// answer /-/health at the end.
// FUZZ_SEED=<n> replays a run; FUZZ_REQUESTS=<n> changes its size (default 5,000, the least the fuzz suite must send).
import http from 'node:http';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueJobToken } from '../src/auth/job-tokens.ts';
import { restRoutes, schema, webRoutes } from '../src/kernel.ts';
import type { JsonSchema } from '../src/rest/declare.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';
import { prng } from './helpers/random.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 5_000);
const CONCURRENCY = 8;

const random = prng(SEED);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
const chance = (p: number) => random() < p;

// Values that broke (or could break) something somewhere: encodings, NUL, ranges, traversal, LIKE wildcards.
const HOSTILE_TEXT = [
  '',
  ' ',
  'main',
  'v1.0',
  'README.md',
  'acme/app',
  '%',
  '_',
  '\\',
  "a'b",
  '"',
  '<script>x</script>',
  '../../etc/passwd',
  '..',
  '.',
  '-n',
  '--upload-pack=touch /tmp/pwned',
  'é',
  '日本',
  '\u0000',
  'a\u0000b',
  '\n',
  'x'.repeat(3000),
  '0000-01-01',
  '9999-12-31',
  '10000-01-01',
  '2026-13-45',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  'gid://gitlab/Project/1',
  'gid://gitlab/Project/99999999999',
  'T2Zmc2V0Q29ubmVjdGlvbjox',
  'bogus-cursor',
  'HEAD~999',
  'refs/heads/../x',
  '$(id)',
  '*',
  '**/*',
  'main:README.md',
  '\ud800',
  'x😀',
  '😀'.slice(0, 1),
];
// Text PostgreSQL cannot store as sent: NUL bytes, and unpaired surrogates (JSON carries them as
// `\ud800` escapes; forms and multipart as the invalid UTF-8 bytes a careless encoder writes).
const UNSTORABLE_TEXT = ['\u0000', 'a\u0000b', '\ud800', 'a\udc00b', 'cut 😀'.slice(0, 5), '\udfff\ud800', 'ok 😀'];
// Dates outside PostgreSQL's years 1-9999 or ISO 8601, and epoch milliseconds past JavaScript's range.
const BAD_DATES = [
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '10000-01-01',
  '10000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '+275760-09-14T00:00:00Z',
  '-271821-04-20T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-05:00',
  '2026-02-30',
  '2026-13-45',
  '2026-01-01T25:61:00Z',
  'yesterday',
  '1e309',
  '-1',
  '99999999999999999999',
];
const BAD_EPOCHS = [-1e20, 8.64e15 + 1, 1e300, -62198755200000, 253402300800000, -0.5];
const HOSTILE_KEYS = ['\u0000', 'a\u0000', '\ud800', 'k\udc00', '__proto__', 'constructor', '', 'a[b]', '[]', '0000-01-01', 'x'.repeat(300)];
// Around GitLab's limit of 32 and far past it: 5,000 levels once overflowed the server's stack.
const DEPTHS = [2, 31, 32, 33, 100, 5_000];

const HOSTILE_INTS = ['0', '1', '2', '-1', '10', '100', '101', '2147483647', '2147483648', '99999999999999999999', '1.5', '1e3', 'abc', '', '0x10'];
const HOSTILE_PATH_SEGMENTS = [
  '1',
  '2',
  '0',
  '-1',
  '99999999999999999999',
  '2147483648',
  'acme',
  'acme%2Fapp',
  'acme%2F%25',
  'acme%2F_pp',
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%ZZ',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  'README.md',
  'v1.0',
  'main',
  'x'.repeat(500),
  '%25',
  '_',
  'root',
  '.',
  '..',
];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text as UTF-8, an unpaired surrogate as the CESU-8 bytes a careless encoder writes for it (invalid UTF-8). */
function looseUtf8(text: string): Buffer {
  const chunks: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(LONE_SURROGATE)) {
    const unit = m[0].charCodeAt(0);
    chunks.push(Buffer.from(text.slice(last, m.index), 'utf8'), Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]));
    last = m.index! + 1;
  }
  chunks.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(chunks);
}

/** encodeURIComponent over `looseUtf8` bytes (encodeURIComponent itself throws on an unpaired surrogate). */
const percentEncode = (text: string) =>
  [...looseUtf8(text)]
    .map((b) => (/[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/**
 * A value nested `levels` deep, objects and arrays by turns, with a hostile leaf. Kept as a marker
 * and written out as text: JSON.stringify itself overflows the stack on a few thousand levels.
 */
class Deep {
  readonly keys: string[];
  readonly leaf = pick([...HOSTILE_TEXT, ...UNSTORABLE_TEXT]);
  constructor(readonly levels: number) {
    this.keys = Array.from({ length: Math.min(levels, 8) }, () => pick(['a', 'title', 'name', ...HOSTILE_KEYS]));
  }
  private key(i: number) {
    return this.keys[i % this.keys.length];
  }
  json(): string {
    let open = '';
    let close = '';
    for (let i = 0; i < this.levels; i++) {
      open += i % 2 ? '[' : `{${JSON.stringify(this.key(i))}:`;
      close = (i % 2 ? ']' : '}') + close;
    }
    return open + JSON.stringify(this.leaf) + close;
  }
  /** The bracket suffix of a form field name holding the leaf: `[a][0][title]...`. */
  brackets(): string {
    return Array.from({ length: this.levels }, (_, i) => (i % 2 ? '[0]' : `[${this.key(i)}]`)).join('');
  }
}

const deepValue = () => new Deep(pick(DEPTHS));

/** A member set as an own property, even `__proto__`. */
const setMember = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** Deep nesting, unstorable text and bad dates, in values and in keys, added to a body's members. */
function withHostileMembers(params: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(params);
  if (chance(0.25)) setMember(params, pick([...names, ...HOSTILE_KEYS, 'extra']), deepValue());
  if (chance(0.2)) setMember(params, pick(HOSTILE_KEYS), pick([...UNSTORABLE_TEXT, ...BAD_DATES]));
  if (chance(0.25) && names.length) setMember(params, pick(names), pick([...UNSTORABLE_TEXT, ...BAD_DATES, ...BAD_EPOCHS]));
  return params;
}

/** JSON text of a value that may hold `Deep` markers. */
function toJson(value: unknown): string {
  const deep: Deep[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Deep ? `\u0001${deep.push(v) - 1}\u0001` : v));
  return text.replace(/"\\u0001(\d+)\\u0001"/g, (_, i: string) => deep[Number(i)].json());
}

/** Form fields of a value, nested members named with brackets as clients write them (`a[b][0]`). */
function formFields(params: Record<string, unknown>): [string, string][] {
  const fields: [string, string][] = [];
  const stack: [string, unknown][] = Object.entries(params).reverse();
  while (stack.length) {
    const [name, value] = stack.pop()!;
    if (value instanceof Deep) fields.push([name + value.brackets(), value.leaf]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      if (!entries.length) fields.push([name, '']);
      for (const [key, inner] of entries.reverse()) stack.push([`${name}[${key}]`, inner]);
    } else fields.push([name, String(value)]);
  }
  return fields;
}

const formBody = (params: Record<string, unknown>) =>
  formFields(params)
    .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)
    .join('&');

/** A multipart/form-data body of the same fields (names and values as loose UTF-8), sometimes with a file part. */
function multipartBody(params: Record<string, unknown>): { type: string; body: Buffer } {
  const boundary = `fuzz${Math.floor(random() * 1e9)}`;
  const part = (disposition: Buffer, value: Buffer) =>
    Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="`), disposition, Buffer.from('\r\n\r\n'), value, Buffer.from('\r\n')]);
  const parts = formFields(params).map(([name, value]) => part(Buffer.concat([looseUtf8(name.replaceAll('"', '%22')), Buffer.from('"')]), looseUtf8(value)));
  if (chance(0.2))
    parts.push(
      part(Buffer.concat([Buffer.from('file"; filename="'), looseUtf8(pick(HOSTILE_TEXT).replaceAll('"', '')), Buffer.from('"')]), Buffer.from('content')),
    );
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) };
}

function valueFor(spec: JsonSchema | undefined, depth = 0): unknown {
  if (chance(0.15)) return pick(HOSTILE_TEXT);
  const type = Array.isArray(spec?.type) ? spec!.type[0] : spec?.type;
  if (spec?.enum && chance(0.7)) return pick(spec.enum as unknown[]);
  if (type === 'integer') return chance(0.8) ? pick(HOSTILE_INTS) : Math.floor(random() * 50);
  if (type === 'boolean') return pick([true, false, 'true', 'no', 'maybe', 1]);
  if (type === 'array') return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => valueFor(spec?.items as JsonSchema, depth + 1));
  if (type === 'object') {
    const props = (spec?.properties ?? {}) as Record<string, JsonSchema>;
    return Object.fromEntries(
      Object.entries(props)
        .filter(() => chance(0.7))
        .map(([k, v]) => [k, valueFor(v, depth + 1)]),
    );
  }
  if (spec?.format === 'date-time') return chance(0.4) ? '2026-01-01T00:00:00Z' : pick([...BAD_DATES, ...BAD_EPOCHS]);
  if (spec?.format === 'date') return chance(0.4) ? pick(['2026-01-01', '']) : pick(BAD_DATES);
  return pick(HOSTILE_TEXT);
}

type Fuzzed = { method: string; path: string; headers: Record<string, string>; body?: string | Buffer };

/** Fills a route's path (`:id`, `{*wild}`, `{.:format}`), query and body from its declared parameters. */
function restRequest(route: (typeof restRoutes)[number], prefix: string, tokens: Record<string, string | null>): Fuzzed {
  const path =
    prefix +
    route.path
      .replace(/\{\.:(\w+)\}/g, () => (chance(0.5) ? `.${pick(['zip', 'tar.gz', 'tar.bz2', 'tar', 'exe', ''])}` : ''))
      .replace(/\{\*(\w+)\}/g, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(HOSTILE_PATH_SEGMENTS)).join('/'))
      .replace(/:(\w+)/g, () => pick(HOSTILE_PATH_SEGMENTS));
  const params: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.params)) if (chance(0.6)) params[name] = valueFor(spec.schema);
  for (const name of ['page', 'per_page', 'search', 'sort', 'order_by', 'private_token', 'sudo'])
    if (chance(0.08)) params[name] = pick([...HOSTILE_INTS, ...HOSTILE_TEXT]);
  const headers: Record<string, string> = {};
  const tokenName = pick(Object.keys(tokens));
  if (tokens[tokenName]) headers[tokenName === 'job' ? 'JOB-TOKEN' : 'PRIVATE-TOKEN'] = tokens[tokenName]!;
  if (chance(0.03)) headers.Sudo = pick(['1', '2', '99999999999999999999', '%', 'root', 'nobody']);
  const writes = route.method === 'POST' || route.method === 'PUT';
  let query = '';
  let body: string | Buffer | undefined;
  if (writes && chance(0.8)) {
    const encoding = random();
    if (encoding < 0.6) {
      headers['Content-Type'] = pick(['application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-7', 'application/vnd.api+json']);
      body = chance(0.95)
        ? toJson(withHostileMembers(params))
        : pick(['{', '[1,2', '"\\u0000"', '"\\ud800"', 'null', '{"a":{"b":{"c":{"d":{"e":1}}}}}', `${'['.repeat(5_000)}`]);
      if (chance(0.03)) headers['Content-Encoding'] = pick(['gzip', 'br', 'snappy']);
    } else if (encoding < 0.8) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = formBody(withHostileMembers(params));
      if (chance(0.1)) body += `&deep${'[x]'.repeat(pick(DEPTHS))}=1`;
    } else {
      const multipart = multipartBody(withHostileMembers(params));
      headers['Content-Type'] = multipart.type;
      body = multipart.body;
    }
  } else {
    query = Object.entries(params)
      .map(
        ([k, v]) =>
          `${percentEncode(k)}=${chance(0.9) ? percentEncode(typeof v === 'object' ? JSON.stringify(v) : String(v)) : pick(['%00', '%E0%A4%A', '%ED%A0%80', '%', '%25'])}`,
      )
      .join('&');
  }
  return { method: route.method, path: `${path}${query ? `?${query}` : ''}`, headers, body };
}

function graphqlValue(type: GraphQLInputType, depth = 0): unknown {
  if (chance(0.08)) return pick([null, 'x', 99999999999, -1, '\u0000', '\ud800', {}, deepValue()]);
  if (isNonNullType(type)) return graphqlValue(type.ofType, depth);
  if (isListType(type)) return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => graphqlValue(type.ofType, depth + 1));
  if (isEnumType(type)) return pick(type.getValues()).name;
  if (isInputObjectType(type)) {
    if (depth > 3) return {};
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((f) => isNonNullType(f.type) || chance(0.5))
        .map((f) => [f.name, graphqlValue(f.type, depth + 1)]),
    );
  }
  if (isScalarType(type)) {
    if (type.name === 'Int') return pick([0, 1, 2, -1, 100, 2147483647, Math.floor(random() * 20)]);
    if (type.name === 'Boolean') return chance(0.5);
    if (type.name === 'Time') return chance(0.4) ? '2026-01-01T00:00:00Z' : pick([...BAD_DATES, ...BAD_EPOCHS, 'never']);
    if (type.name === 'Date') return chance(0.4) ? '2026-01-01' : pick(BAD_DATES);
    return pick(HOSTILE_TEXT);
  }
  return null;
}

/** A selection of up to `depth` levels: a few scalar fields and, sometimes, an object field with its own selection. */
function selection(type: GraphQLObjectType, variables: Record<string, unknown>, defs: string[], depth: number): string {
  const fields = Object.values(type.getFields());
  const chosen = fields.filter(() => chance(0.35)).slice(0, 6);
  const parts: string[] = ['__typename'];
  for (const field of chosen) {
    const named = getNamedType(field.type);
    const args = field.args.filter((a) => isNonNullType(a.type) || chance(0.3)).map((a) => argument(a, variables, defs));
    const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''}`;
    if (isObjectType(named)) {
      if (depth > 0) parts.push(`${call} { ${selection(named, variables, defs, depth - 1)} }`);
    } else if (!('getFields' in named)) {
      parts.push(call);
    }
  }
  return parts.join(' ');
}

function argument(arg: GraphQLArgument, variables: Record<string, unknown>, defs: string[]) {
  const name = `v${defs.length}`;
  defs.push(`$${name}: ${arg.type.toString()}`);
  variables[name] = graphqlValue(arg.type);
  return `${arg.name}: $${name}`;
}

function graphqlRequest(tokens: Record<string, string | null>): Fuzzed {
  const mutation = chance(0.3);
  const root = (mutation ? schema.getMutationType() : schema.getQueryType())!;
  const field = pick(Object.values(root.getFields()));
  const variables: Record<string, unknown> = {};
  const defs: string[] = [];
  const args = field.args.filter((a) => isNonNullType(a.type) || chance(0.5)).map((a) => argument(a, variables, defs));
  const named = getNamedType(field.type);
  const inner = isObjectType(named) ? ` { ${selection(named, variables, defs, 3)} }` : '';
  const query = `${mutation ? 'mutation' : 'query'}${defs.length ? `(${defs.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${inner} }`;
  const tokenName = pick(Object.keys(tokens).filter((n) => n !== 'job'));
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (tokens[tokenName]) headers.Authorization = `Bearer ${tokens[tokenName]}`;
  return { method: 'POST', path: '/api/graphql', headers, body: toJson({ query, variables: withHostileMembers(variables) }) };
}

type Intake = { path: string; token: string; prometheusPath: string };

const alertText = () => pick([...HOSTILE_TEXT, ...UNSTORABLE_TEXT, 'Disk full', `${'x'.repeat(199)}😀`]);
const alertTime = () => (chance(0.3) ? '2026-01-01T00:00:00Z' : pick([...BAD_DATES, ...BAD_EPOCHS, '']));

/** An alert as the generic format or one Alertmanager element reads it; each field present or not. */
function alertPayload(): Record<string, unknown> {
  if (chance(0.25)) {
    const element = () => ({
      status: pick(['firing', 'resolved', 'x']),
      labels: { severity: pick(['critical', 'P2', 'warning', 'zzz']), alertname: alertText() },
      annotations: { title: alertText(), description: alertText(), runbook: alertText() },
      startsAt: alertTime(),
      endsAt: pick(['0001-01-01T00:00:00Z', alertTime()]),
      generatorURL: pick(['http://127.0.0.1:9090/graph?g0.expr=up', 'not a url', alertText()]),
    });
    const alerts = Array.from({ length: Math.floor(random() * 3) }, element);
    return { version: '4', groupKey: 'g', status: 'firing', receiver: 'r', groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: '', alerts };
  }
  const fields: Record<string, () => unknown> = {
    title: alertText,
    description: alertText,
    start_time: alertTime,
    end_time: alertTime,
    service: alertText,
    monitoring_tool: () => pick(['Prometheus', alertText()]),
    hosts: () => pick([alertText(), [alertText(), [alertText()]]]),
    severity: () => pick(['high', 'unknown', alertText()]),
    fingerprint: () => pick([alertText(), 7, [alertText(), 1]]),
    gitlab_environment_name: alertText,
  };
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([name]) => chance(name === 'end_time' ? 0.15 : 0.6))
      .map(([name, make]) => [name, make()]),
  );
}

/** A payload for the project's HTTP endpoint (now and then the Prometheus address, an unknown endpoint or a bad key). */
function alertRequest(intake: Intake): Fuzzed {
  const path = chance(0.85)
    ? intake.path
    : pick([intake.prometheusPath, intake.path.replace(/[0-9a-f]{16}\.json$/, '0000000000000000.json'), intake.path.replace(/\.json$/, '')]);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (chance(0.9)) headers.Authorization = `Bearer ${intake.token}`;
  else if (chance(0.5)) headers.Authorization = `Basic ${Buffer.from(`:${pick([intake.token, 'wrong'])}`).toString('base64')}`;
  const body = chance(0.95)
    ? toJson(withHostileMembers(alertPayload()))
    : pick(['', '{', '[]', '"\\ud800"', 'null', `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`]);
  return { method: 'POST', path, headers, body };
}

let t: TestApp;
let intake: Intake;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

beforeAll(async () => {
  // Bad tokens are part of the mix: keep the failed-authentication ban from blocking the run.
  t = await createTestApp({ env: { AUTH_BAN_MAX_RETRY: '1000000' } });
  const { project } = await seedProject(t, { visibility: 'internal' });
  await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1.0', ref: 'main', name: 'One' }).expect(201);
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'm1' }).expect(201);
  const created = await t.graphql('mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { integration { token url } } }', {
    input: { projectPath: project.path_with_namespace, name: 'Fuzz', active: true },
  });
  const { token, url } = created.body.data.httpIntegrationCreate.integration;
  intake = { path: new URL(url).pathname, token, prometheusPath: `/${project.path_with_namespace}/prometheus/alerts/notify.json` };
});
afterAll(async () => {
  agent.destroy();
  await t.close();
});

function send(port: number, r: Fuzzed): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        // Archives can be large: keep only the start of a body, for the report.
        if (size < 2_000) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, 300) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

describe(`fuzzing every route family (seed ${SEED}; FUZZ_SEED to replay)`, () => {
  it(`answers ${TOTAL} generated REST, GraphQL and alert intake requests without a single 5xx, and is alive after`, { timeout: 600_000 }, async () => {
    const port = Number(new URL(t.base).port);
    const user = await t.user('fuzzer');
    const readRepository = await t.token(user.id, ['read_repository']);
    const project = await t.db.project.findFirstOrThrow();
    const { token: job } = await issueJobToken(t.db, t.deps.secrets.tokenDigestKey, { projectId: project.id, userId: t.root.id });
    const tokens: Record<string, string | null> = { root: t.root.token, user: user.token, readRepository, anonymous: null, bad: 'glpat-not-a-token', job };
    const routes = [...restRoutes.map((r) => ({ r, prefix: '/api/v4' })), ...webRoutes.map((r) => ({ r, prefix: '' }))];
    const requests: Fuzzed[] = [];
    // Every route at least twice, then a random mix; about a fifth GraphQL, one in twenty alert intake.
    for (const { r, prefix } of routes) requests.push(restRequest(r, prefix, tokens), restRequest(r, prefix, tokens));
    while (requests.length < TOTAL) {
      const kind = random();
      if (kind < 0.22) requests.push(graphqlRequest(tokens));
      else if (kind < 0.27) requests.push(alertRequest(intake));
      else {
        const { r, prefix } = pick(routes);
        requests.push(restRequest(r, prefix, tokens));
      }
    }
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const r = requests[next++];
          const res = await send(port, r);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) failures.push(`${res.status} ${r.method} ${r.path} ${String(r.body ?? '').slice(0, 400)} -> ${res.body}`);
        }
      }),
    );
    console.log(`fuzz seed ${SEED}: ${requests.length} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(requests.length).toBeGreaterThanOrEqual(5_000);
    // Positive control: the mix reaches successful answers, refusals and missing resources alike.
    expect(statuses.get(200)).toBeGreaterThan(100);
    expect(statuses.get(400)).toBeGreaterThan(100);
    // Routes GitLab authenticates first answer anonymous and bad tokens 401 before any lookup, so
    // fewer requests get as far as a missing resource.
    expect(statuses.get(401)).toBeGreaterThan(100);
    expect(statuses.get(404)).toBeGreaterThan(40);
    expect(failures.slice(0, 20)).toEqual([]);
    // Alive and answering after all of it.
    expect(await send(port, { method: 'GET', path: '/-/health', headers: {} })).toEqual({ status: 200, body: '{"status":"ok"}' });
  });
});
