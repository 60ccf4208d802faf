// Generated requests over every REST route and every GraphQL root field, with hostile and random
// values, against the real app on a loopback port. Any 5xx fails the run and names the request.
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
  '', ' ', 'main', 'v1.0', 'README.md', 'acme/app', '%', '_', '\\', "a'b", '"', '<script>x</script>', '../../etc/passwd', '..', '.',
  '-n', '--upload-pack=touch /tmp/pwned', 'é', '日本', '\u0000', 'a\u0000b', '\n', 'x'.repeat(3000), '0000-01-01', '9999-12-31', '10000-01-01',
  '2026-13-45', '1e309', 'NaN', 'null', 'true', '[]', '{}', 'gid://gitlab/Project/1', 'gid://gitlab/Project/99999999999', 'T2Zmc2V0Q29ubmVjdGlvbjox',
  'bogus-cursor', 'HEAD~999', 'refs/heads/../x', '$(id)', '*', '**/*', 'main:README.md',
];
const HOSTILE_INTS = ['0', '1', '2', '-1', '10', '100', '101', '2147483647', '2147483648', '99999999999999999999', '1.5', '1e3', 'abc', '', '0x10'];
const HOSTILE_PATH_SEGMENTS = [
  '1', '2', '0', '-1', '99999999999999999999', '2147483648', 'acme', 'acme%2Fapp', 'acme%2F%25', 'acme%2F_pp', '%00', 'a%00b', '%E0%A4%A', '%ZZ',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'README.md', 'v1.0', 'main', 'x'.repeat(500), '%25', '_', 'root', '.', '..',
];

function valueFor(spec: JsonSchema | undefined, depth = 0): unknown {
  if (chance(0.15)) return pick(HOSTILE_TEXT);
  const type = Array.isArray(spec?.type) ? spec!.type[0] : spec?.type;
  if (spec?.enum && chance(0.7)) return pick(spec.enum as unknown[]);
  if (type === 'integer') return chance(0.8) ? pick(HOSTILE_INTS) : Math.floor(random() * 50);
  if (type === 'boolean') return pick([true, false, 'true', 'no', 'maybe', 1]);
  if (type === 'array') return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => valueFor(spec?.items as JsonSchema, depth + 1));
  if (type === 'object') {
    const props = (spec?.properties ?? {}) as Record<string, JsonSchema>;
    return Object.fromEntries(Object.entries(props).filter(() => chance(0.7)).map(([k, v]) => [k, valueFor(v, depth + 1)]));
  }
  if (spec?.format === 'date-time') return pick(['2026-01-01T00:00:00Z', '0000-01-01T00:00:00Z', 'yesterday', '2026-02-30T25:61:00Z']);
  if (spec?.format === 'date') return pick(['2026-01-01', '0000-01-01', '2026-02-30', '']);
  return pick(HOSTILE_TEXT);
}

type Fuzzed = { method: string; path: string; headers: Record<string, string>; body?: string };

/** Fills a route's path (`:id`, `{*wild}`, `{.:format}`), query and body from its declared parameters. */
function restRequest(route: (typeof restRoutes)[number], prefix: string, tokens: Record<string, string | null>): Fuzzed {
  const path = prefix + route.path
    .replace(/\{\.:(\w+)\}/g, () => (chance(0.5) ? `.${pick(['zip', 'tar.gz', 'tar.bz2', 'tar', 'exe', ''])}` : ''))
    .replace(/\{\*(\w+)\}/g, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(HOSTILE_PATH_SEGMENTS)).join('/'))
    .replace(/:(\w+)/g, () => pick(HOSTILE_PATH_SEGMENTS));
  const params: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.params)) if (chance(0.6)) params[name] = valueFor(spec.schema);
  for (const name of ['page', 'per_page', 'search', 'sort', 'order_by', 'private_token', 'sudo']) if (chance(0.08)) params[name] = pick([...HOSTILE_INTS, ...HOSTILE_TEXT]);
  const headers: Record<string, string> = {};
  const tokenName = pick(Object.keys(tokens));
  if (tokens[tokenName]) headers[tokenName === 'job' ? 'JOB-TOKEN' : 'PRIVATE-TOKEN'] = tokens[tokenName]!;
  if (chance(0.03)) headers.Sudo = pick(['1', '2', '99999999999999999999', '%', 'root', 'nobody']);
  const writes = route.method === 'POST' || route.method === 'PUT';
  let query = '';
  let body: string | undefined;
  if (writes && chance(0.8)) {
    if (chance(0.7)) {
      headers['Content-Type'] = pick(['application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-7', 'application/vnd.api+json']);
      body = chance(0.95) ? JSON.stringify(params) : pick(['{', '[1,2', '"\\u0000"', 'null', '{"a":{"b":{"c":{"d":{"e":1}}}}}']);
      if (chance(0.03)) headers['Content-Encoding'] = pick(['gzip', 'br', 'snappy']);
    } else {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])).toString();
      if (chance(0.1)) body += `&deep${'[x]'.repeat(40)}=1`;
    }
  } else {
    query = Object.entries(params)
      .map(([k, v]) => `${encodeURIComponent(k)}=${chance(0.9) ? encodeURIComponent(typeof v === 'object' ? JSON.stringify(v) : String(v)) : pick(['%00', '%E0%A4%A', '%', '%25'])}`)
      .join('&');
  }
  return { method: route.method, path: `${path}${query ? `?${query}` : ''}`, headers, body };
}

function graphqlValue(type: GraphQLInputType, depth = 0): unknown {
  if (chance(0.08)) return pick([null, 'x', 99999999999, -1, '\u0000', {}]);
  if (isNonNullType(type)) return graphqlValue(type.ofType, depth);
  if (isListType(type)) return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => graphqlValue(type.ofType, depth + 1));
  if (isEnumType(type)) return pick(type.getValues()).name;
  if (isInputObjectType(type)) {
    if (depth > 3) return {};
    return Object.fromEntries(Object.values(type.getFields()).filter((f) => isNonNullType(f.type) || chance(0.5)).map((f) => [f.name, graphqlValue(f.type, depth + 1)]));
  }
  if (isScalarType(type)) {
    if (type.name === 'Int') return pick([0, 1, 2, -1, 100, 2147483647, Math.floor(random() * 20)]);
    if (type.name === 'Boolean') return chance(0.5);
    if (type.name === 'Time') return pick(['2026-01-01T00:00:00Z', '0000-01-01T00:00:00Z', 'never']);
    if (type.name === 'Date') return pick(['2026-01-01', '0000-01-01', '2026-02-30']);
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
  return { method: 'POST', path: '/api/graphql', headers, body: JSON.stringify({ query, variables }) };
}

let t: TestApp;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

beforeAll(async () => {
  // Bad tokens are part of the mix: keep the failed-authentication ban from blocking the run.
  t = await createTestApp({ env: { AUTH_BAN_MAX_RETRY: '1000000' } });
  const { project } = await seedProject(t, { visibility: 'internal' });
  await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1.0', ref: 'main', name: 'One' }).expect(201);
  await t.api('post', `/projects/${project.id}/milestones`).send({ title: 'm1' }).expect(201);
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
  it(`answers ${TOTAL} generated REST and GraphQL requests without a single 5xx`, { timeout: 600_000 }, async () => {
    const port = Number(new URL(t.base).port);
    const user = await t.user('fuzzer');
    const readRepository = await t.token(user.id, ['read_repository']);
    const project = await t.db.project.findFirstOrThrow();
    const { token: job } = await issueJobToken(t.db, t.deps.secrets.tokenDigestKey, { projectId: project.id, userId: t.root.id });
    const tokens: Record<string, string | null> = { root: t.root.token, user: user.token, readRepository, anonymous: null, bad: 'glpat-not-a-token', job };
    const routes = [...restRoutes.map((r) => ({ r, prefix: '/api/v4' })), ...webRoutes.map((r) => ({ r, prefix: '' }))];
    const requests: Fuzzed[] = [];
    // Every route at least twice, then a random mix; about a fifth GraphQL.
    for (const { r, prefix } of routes) requests.push(restRequest(r, prefix, tokens), restRequest(r, prefix, tokens));
    while (requests.length < TOTAL) {
      if (chance(0.22)) requests.push(graphqlRequest(tokens));
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
          if (res.status >= 500) failures.push(`${res.status} ${r.method} ${r.path} ${r.body?.slice(0, 400) ?? ''} -> ${res.body}`);
        }
      }),
    );
    console.log(`fuzz seed ${SEED}: ${requests.length} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(requests.length).toBeGreaterThanOrEqual(5_000);
    // Positive control: the mix reaches successful answers, refusals and missing resources alike.
    expect(statuses.get(200)).toBeGreaterThan(100);
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect(statuses.get(404)).toBeGreaterThan(100);
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
