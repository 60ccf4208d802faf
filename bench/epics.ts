// npx tsx bench/epics.ts [seconds]: lists 100 epics of a group (two labels each, most with a
// parent, ten authors) over REST and over GraphQL against a throwaway embedded PostgreSQL, and
// prints requests per second and the SQL statements one request costs, beside a floor measured in
// the same run: one hand-written SQL statement for the same page (epics, authors, parents, label
// names) plus JSON.stringify, with the same concurrency and no HTTP, GraphQL or permission work.
import autocannon from 'autocannon';
import { startBenchApp } from './in-process.ts';

const seconds = Number(process.argv[2] ?? 10);
const CONNECTIONS = 10;
const app = await startBenchApp({ JOB_WORKERS_IN_SERVER: 'false' });
const { deps, queryCounter, base, headers, post } = app;

/** The floor: the same page in one SQL statement, serialized, `CONNECTIONS` at a time for `seconds`. */
async function floor(groupId: number) {
  const page = () => deps.db.$queryRaw<unknown[]>`
    SELECT e.id, e.iid, e.title, e.description, e.state, e.confidential, e.created_at, e.updated_at,
           e.start_date_fixed, e.due_date_fixed, u.username AS author, p.id AS parent_id, p.iid AS parent_iid,
           COALESCE((SELECT array_agg(l.name ORDER BY l.name) FROM epic_labels el JOIN labels l ON l.id = el.label_id WHERE el.epic_id = e.id), '{}') AS labels
    FROM epics e LEFT JOIN users u ON u.id = e.author_id LEFT JOIN epics p ON p.id = e.parent_id
    WHERE e.group_id = ${groupId} ORDER BY e.created_at DESC, e.id DESC LIMIT 100`;
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        JSON.stringify(await page());
        done++;
      }
    }),
  );
  return done / seconds;
}

try {
  const group = await post('/groups', { name: 'Bench', path: 'bench' });
  const labels = await Promise.all(['backend', 'frontend'].map((name) => post(`/groups/${group.id}/labels`, { name, color: '#428BCA' })));
  const authors = await Promise.all(
    Array.from({ length: 10 }, (_, i) => deps.db.user.create({ data: { username: `author${i}`, name: `Author ${i}`, email: `author${i}@bench.test` } })),
  );
  let parentId: number | null = null;
  for (let i = 0; i < 100; i++) {
    const created: { id: number } = await deps.db.epic.create({
      data: {
        groupId: group.id,
        iid: i + 1,
        title: `Epic ${i}`,
        description: `Goals of epic ${i}`,
        authorId: authors[i % authors.length].id,
        // Chains of four: three of every four epics have a parent.
        parentId: i % 4 === 0 ? null : parentId,
        startDateIsFixed: i % 2 === 0,
        startDateFixed: new Date(Date.UTC(2025, 0, 1 + i)),
        labels: { create: labels.map((l: { id: number }) => ({ labelId: l.id })) },
      },
    });
    parentId = created.id;
  }

  const rest = { url: `${base}/api/v4/groups/${group.id}/epics?per_page=100`, method: 'GET' as const, headers };
  const query = `{ group(fullPath: "bench") { epics(first: 100) { nodes {
    iid title description state confidential createdAt updatedAt startDate dueDate
    author { username } parent { iid title } labels { nodes { title color } } upvotes downvotes webUrl } } } }`;
  const graphql = { url: `${base}/api/graphql`, method: 'POST' as const, headers, body: JSON.stringify({ query }) };

  console.log(`100 epics (2 labels each, 75 with a parent, 10 authors), ${CONNECTIONS} connections, ${seconds} s each`);
  for (const [name, target] of [
    ['REST', rest],
    ['GraphQL', graphql],
  ] as const) {
    const check = await fetch(target.url, target);
    if (!check.ok) throw new Error(`${name}: ${check.status} ${await check.text()}`);
    const rounds = 20;
    queryCounter.reset();
    for (let i = 0; i < rounds; i++) await (await fetch(target.url, target)).arrayBuffer();
    const sqlPerRequest = queryCounter.count / rounds;
    const result = await autocannon({ ...target, connections: CONNECTIONS, duration: seconds });
    console.log(
      `${name.padEnd(8)} ${result.requests.average.toFixed(1)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ${sqlPerRequest} SQL/request  (${result.non2xx} non-2xx)`,
    );
  }
  queryCounter.reset();
  const floorRate = await floor(group.id);
  console.log(`floor    ${floorRate.toFixed(1)} pages/s  (one SQL statement + JSON.stringify, no HTTP)`);
} finally {
  await app.close();
}
