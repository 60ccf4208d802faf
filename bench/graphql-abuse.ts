// Abusive GraphQL requests against the real app (issue #37): each one's answer (status, wall and
// CPU time of the process) while `/-/health` is polled alongside it, and the slowest health answer
// seen during it. `npx tsx bench/graphql-abuse.ts` (DATABASE_URL to use a running PostgreSQL).
// CPU is the whole process's (server and this client share it), so it is an upper bound.
import { getIntrospectionQuery } from 'graphql';
import { startBenchApp } from './in-process.ts';

const ROUNDS = 5;

/** `{...F0}` where each fragment spreads the next twice: 2^levels copies of the last one's selection. */
const doubling = (levels: number, last: string) =>
  `query{...F0} ${Array.from({ length: levels }, (_, i) => `fragment F${i} on Query{...F${i + 1} ...F${i + 1}}`).join(' ')} fragment F${levels} on Query{${last}}`;

const nested = (levels: number) => `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
const body = (query: string) => JSON.stringify({ query });

const cases: Array<{ name: string; body: string; signedIn?: boolean }> = [
  { name: 'spreads doubled 23 times (2^23 selections), anonymous', body: body(doubling(22, '__typename x:__typename')) },
  { name: 'spreads doubled 23 times, signed in', body: body(doubling(22, '__typename x:__typename')), signedIn: true },
  { name: 'spreads doubled 13 times (8,192 selections: under the cap)', body: body(doubling(12, '__typename x:__typename')) },
  {
    name: '30 aliases of currentUser (the alias ceiling)',
    body: body(`{ ${Array.from({ length: 30 }, (_, i) => `a${i}: currentUser { username }`).join(' ')} }`),
    signedIn: true,
  },
  { name: '1,000 aliases of __typename', body: body(`{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ')} }`) },
  { name: '1,200 identical fields (field merging)', body: body(`{ ${'currentUser { username } '.repeat(1200)}}`), signedIn: true },
  { name: 'batched array of 1,000 queries', body: `[${Array(1000).fill(body('{ __typename }')).join(',')}]` },
  { name: "GraphiQL's introspection, anonymous", body: body(getIntrospectionQuery({ inputValueDeprecation: true, descriptions: true })) },
  {
    name: 'introspection cycle (types.fields.type.fields…), anonymous',
    body: body(`{ __schema { ${'types { fields { type { '.repeat(4)}name${' } } }'.repeat(4)} } }`),
  },
  { name: 'depth 22, anonymous', body: body(`{ project(fullPath: "a/b") { group { ${'parent { '.repeat(19)}id${' }'.repeat(19)} } } }`) },
  {
    name: 'a schema cycle unrolled (group.projects.nodes ×3)',
    body: body(`{ project(fullPath: "a/b") { ${'group { projects { nodes { '.repeat(3)}name${' } } }'.repeat(3)} } }`),
  },
  {
    name: '1,600 distinct fields nested in one another',
    body: body(`{ ${Array.from({ length: 1600 }, (_, i) => `f${i} {`).join(' ')} x ${'}'.repeat(1600)} }`),
  },
  { name: 'variables nested 5,000 deep', body: `{"query":"{ __typename }","variables":${nested(5000)}}`, signedIn: true },
];

const app = await startBenchApp();
const post = (payload: string, signedIn = false) =>
  fetch(`${app.base}/api/graphql`, { method: 'POST', headers: signedIn ? app.headers : { 'content-type': 'application/json' }, body: payload });

/** Polls /-/health one request after another until `done`; returns the slowest answer in ms. */
async function healthDuring(done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let slowest = 0;
  while (!finished) {
    const started = performance.now();
    await (await fetch(`${app.base}/-/health`)).text();
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}

// Warm up: Yoga and graphql-jit load on the endpoint's first request.
await (await post(body('{ __typename }'))).text();

console.log(
  `GraphQL abuse, Node ${process.version}, ${ROUNDS} rounds per case: median / worst (the worst includes graphql-jit compiling a document the second time it is seen)`,
);
console.log('| request | bytes | status | answer | wall ms | CPU ms | slowest /-/health ms |');
console.log('|---|---|---|---|---|---|---|');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = (values: number[]) => `${median(values).toFixed(0)} / ${Math.max(...values).toFixed(0)}`;

for (const one of cases) {
  const rounds: Array<{ wall: number; cpu: number; health: number }> = [];
  let answer = { status: 0, text: '' };
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const request = post(one.body, one.signedIn).then(async (res) => ({ status: res.status, text: await res.text() }));
    const health = await healthDuring(request);
    answer = await request;
    const used = process.cpuUsage(cpu);
    rounds.push({ wall: performance.now() - started, cpu: (used.user + used.system) / 1000, health });
  }
  const summary = answer.text.length > 90 ? `${answer.text.slice(0, 90)}…` : answer.text;
  const cells = [rounds.map((r) => r.wall), rounds.map((r) => r.cpu), rounds.map((r) => r.health)].map(figures);
  console.log(`| ${one.name} | ${one.body.length} | ${answer.status} | \`${summary.replaceAll('|', '\\|')}\` | ${cells.join(' | ')} |`);
}
await app.close();
process.exit(0);
