import { createHook } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitReadCounter } from '../src/git/repository.ts';
import { createTestApp, expectCounterSees, type TestApp } from './helpers/app.ts';

let t: TestApp;

/** A project with `count` releases, each with 5 links and 2 milestones (one project, one group). */
async function projectWithReleases(count: number, name: string) {
  const group = (await t.api('post', '/groups').send({ name, path: name }).expect(201)).body;
  const project = (await t.api('post', '/projects').send({ name: 'app', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
  const sha = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'rev-parse', 'main'])
    .toString()
    .trim();
  const own = await t.db.milestone.create({ data: { projectId: project.id, iid: 1, title: 'M' } });
  const shared = await t.db.milestone.create({ data: { groupId: group.id, iid: 1, title: 'G' } });
  for (let i = 0; i < count; i++) {
    await t.db.release.create({
      data: {
        projectId: project.id,
        tag: `v${i}`,
        sha,
        authorId: t.root.id,
        releasedAt: new Date(Date.UTC(2020, 0, 1 + i)),
        links: { create: Array.from({ length: 5 }, (_, j) => ({ name: `l${j}`, url: `https://x.test/${i}/${j}`, filepath: `/bin/${j}` })) },
        milestones: { create: [{ milestoneId: own.id }, { milestoneId: shared.id }] },
        evidences: { create: [{ summary: {}, sha: 'a'.repeat(64) }] },
      },
    });
  }
  return project as { id: number; path_with_namespace: string };
}

/** SQL statements of one request, after a warm-up that settles token bookkeeping. */
async function sqlOf(run: () => Promise<unknown>) {
  await run();
  await new Promise((r) => setTimeout(r, 50));
  t.queryCounter.reset();
  await run();
  return t.queryCounter.count;
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('query count', () => {
  it('does not grow with the number of releases listed, over REST and GraphQL', async () => {
    const few = await projectWithReleases(2, 'few');
    const many = await projectWithReleases(40, 'many');
    const rest = (p: { id: number }) => async () => {
      const res = await t.api('get', `/projects/${p.id}/releases?per_page=100`).expect(200);
      expect(res.body[0].assets.links).toHaveLength(5);
      expect(res.body[0].milestones).toHaveLength(2);
    };
    const gql = (p: { path_with_namespace: string }) => async () => {
      const res = await t.graphql(`{ project(fullPath: "${p.path_with_namespace}") { releases(first: 100) { nodes {
        tagName author { username } commit { sha } milestones { nodes { title webUrl } }
        assets { count links { nodes { name directAssetUrl } } sources { nodes { url } } } evidences { nodes { sha } } links { editUrl } } } } }`);
      expect(res.body.data.project.releases.nodes[0].assets.links.nodes).toHaveLength(5);
    };
    await expectCounterSees(t, rest(few));
    const restFew = await sqlOf(rest(few));
    expect(await sqlOf(rest(many))).toBe(restFew);
    const gqlFew = await sqlOf(gql(few));
    expect(await sqlOf(gql(many))).toBe(gqlFew);
    // Lower bound keeps the assertion honest: the counter does see the batched queries.
    expect(restFew).toBeGreaterThanOrEqual(5);
    // And what a page needs, no more: the token with its user (one statement), the project with its
    // namespace (one statement, kept by the request's loaders for the release fields), count and
    // page, authors, milestones (one join), asset links, evidences.
    expect(restFew).toBe(8);
    // GraphQL counts the releases only where the query asks for totalCount (or count): one
    // statement more, and the same total REST answers in X-Total.
    const counted = (p: { path_with_namespace: string }, field: string) => async () => {
      const res = await t.graphql(`{ project(fullPath: "${p.path_with_namespace}") { releases(first: 5) { ${field} nodes { tagName } } } }`);
      expect(res.body.data.project.releases.nodes).toHaveLength(5);
      return res.body.data.project.releases;
    };
    expect((await counted(many, 'totalCount count')()).totalCount).toBe(40);
    expect((await counted(many, 'count')()).count).toBe(40);
    expect(await sqlOf(counted(many, 'totalCount count'))).toBe((await sqlOf(counted(many, ''))) + 1);
  });

  it('lists group releases with the same number of queries for few and many', async () => {
    const [few, many] = await Promise.all(['few', 'many'].map((path) => t.db.namespace.findFirstOrThrow({ where: { fullPath: path } })));
    const count = (id: number) =>
      sqlOf(async () => expect((await t.api('get', `/groups/${id}/releases?per_page=100`).expect(200)).body.length).toBeGreaterThan(1));
    await expectCounterSees(t, () => t.api('get', `/groups/${few.id}/releases?per_page=100`).expect(200));
    const fewCount = await count(few.id);
    expect(fewCount).toBeGreaterThan(0);
    expect(await count(many.id)).toBe(fewCount);
    // `simple=true` leaves the release details out (@skip in the operation): nothing is read for
    // them, neither by the fields nor by the list's preload (authors, milestones, their groups, links,
    // evidences).
    const simple = await sqlOf(async () =>
      expect((await t.api('get', `/groups/${many.id}/releases?per_page=100&simple=true`).expect(200)).body[0].assets).toBeUndefined(),
    );
    expect(simple).toBe(fewCount - 5);
  });
});

describe('git reads', () => {
  const reads = async (run: () => Promise<unknown>) => {
    const before = gitReadCounter.commits;
    await run();
    return gitReadCounter.commits - before;
  };
  const restList = (p: { id: number }) => () => t.api('get', `/projects/${p.id}/releases?per_page=100`).expect(200);
  const gqlList = (p: { path_with_namespace: string }) => async () =>
    expect(
      (await t.graphql(`{ project(fullPath: "${p.path_with_namespace}") { releases(first: 100) { nodes { commit { sha title } } } } }`)).body.data.project
        .releases.nodes[0].commit.sha,
    ).toMatch(/^[0-9a-f]{40}$/);

  it('reads each commit once per request, however many releases point at it', async () => {
    const project = await projectWithReleases(30, 'shared-commit');
    // Positive control: the counter sees each distinct commit a request reads.
    const file = await t
      .api('post', `/projects/${project.id}/repository/files/other.txt`)
      .send({ branch: 'main', content: 'x', commit_message: 'Other' })
      .expect(201);
    expect(file.body.file_path).toBe('other.txt');
    const other = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'rev-parse', 'main'])
      .toString()
      .trim();
    await t.db.release.create({ data: { projectId: project.id, tag: 'other', sha: other, authorId: t.root.id, releasedAt: new Date(Date.UTC(2030, 0, 1)) } });

    expect(await reads(restList(project))).toBe(2);
    expect(await reads(gqlList(project))).toBe(2);
    // Scoped to one request: the next request reads again.
    expect(
      await reads(async () => {
        await restList(project)();
        await restList(project)();
      }),
    ).toBe(4);
  });
});

describe('preloading', () => {
  /** Promises created while `run` runs (async_hooks sees each one V8 makes). */
  const promisesOf = async (run: () => Promise<unknown>) => {
    let count = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && count++) }).enable();
    try {
      await run();
    } finally {
      hook.disable();
    }
    return count;
  };

  it('resolves a page of releases without promises per release: what the fields read is read before them', async () => {
    const few = await projectWithReleases(2, 'preload-few');
    const many = await projectWithReleases(40, 'preload-many');
    const list = (p: { path_with_namespace: string }) => async () => {
      const res = await t.graphql(`{ project(fullPath: "${p.path_with_namespace}") { releases(first: 100) { nodes {
        tagName author { username } commit { sha } milestones { nodes { title webUrl } }
        assets { count links { nodes { name directAssetUrl external } } sources { nodes { url } } } evidences { nodes { sha filepath } } links { selfUrl editUrl } } } } }`);
      expect(res.body.data.project.releases.nodes[0].assets.links.nodes).toHaveLength(5);
    };
    await list(few)();
    await list(many)();
    const [small, large] = [await promisesOf(list(few)), await promisesOf(list(many))];
    // What is left per release is the preload's own: DataLoader makes a promise or two per key
    // and loader (authors, links, milestones, evidences). Resolved field by field, as before
    // the preload, the same page made ~50 per release.
    expect(small).toBeGreaterThan(50);
    expect((large - small) / (40 - 2)).toBeLessThan(15);
  });
});
