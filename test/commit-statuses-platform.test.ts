import { execFileSync } from 'node:child_process';
import type { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, expectCounterSees, countQueries, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

// Commit statuses as CI systems post them (issue 39): GitLab's transitions, the external pipeline
// it creates per commit and ref, the statuses list and the commit's last_pipeline/status.

let t: TestApp;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ? 'error' : 'silent' } });
  api = gitbeaker(t.base, t.root.token);
});
afterAll(() => t.close());

type Project = { id: number; path_with_namespace: string };

const head = (p: Project) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(p.id), 'rev-parse', 'main'])
    .toString()
    .trim();

async function project(name: string, visibility = 'private'): Promise<Project> {
  return (await t.api('post', '/projects').send({ name, initialize_with_readme: true, visibility }).expect(201)).body;
}

async function member(p: Project, level: number) {
  const u = await t.user();
  await t.api('post', `/projects/${p.id}/members`).send({ user_id: u.id, access_level: level }).expect(201);
  return u;
}

describe('POST /projects/:id/statuses/:sha', () => {
  it('creates a status in an external pipeline and moves it through GitLab transitions', async () => {
    const p = await project('CI');
    const sha = head(p);
    const post = (body: Record<string, unknown>) => t.api('post', `/projects/${p.id}/statuses/${sha}`).send(body);
    const pending = (await post({ state: 'pending', context: 'ci/build', target_url: 'https://ci.example/1', description: 'queued' }).expect(201)).body;
    expect(pending).toMatchObject({
      sha,
      ref: 'main',
      status: 'pending',
      name: 'ci/build',
      target_url: 'https://ci.example/1',
      description: 'queued',
      started_at: null,
      finished_at: null,
      allow_failure: false,
      coverage: null,
      author: { username: 'root' },
    });
    expect(typeof pending.pipeline_id).toBe('number');
    const running = (await post({ state: 'running', name: 'ci/build' }).expect(201)).body;
    expect(running).toMatchObject({ id: pending.id, status: 'running', description: 'queued', pipeline_id: pending.pipeline_id });
    expect(running.started_at).not.toBeNull();
    // running → running is refused, with state_machines' message.
    await post({ state: 'running', name: 'ci/build' }).expect(400, {
      message: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")',
    });
    await post({ state: 'pending', name: 'ci/build' }).expect(400, {
      message: 'Cannot transition status via :enqueue from :running (Reason(s): Status cannot transition via "enqueue")',
    });
    const done = (await post({ state: 'success', name: 'ci/build', coverage: 87.5 }).expect(201)).body;
    expect(done).toMatchObject({ id: pending.id, status: 'success', coverage: 87.5 });
    expect(done.finished_at).not.toBeNull();
    // After it finished, the same name starts a new status in the same pipeline.
    const again = (await post({ state: 'failed', name: 'ci/build' }).expect(201)).body;
    expect(again).toMatchObject({ status: 'failed', pipeline_id: pending.pipeline_id });
    expect(again.id).not.toBe(pending.id);
    expect((await post({ state: 'skipped' }).expect(201)).body).toMatchObject({ name: 'default', status: 'skipped' });
  });

  it('answers GitLab errors for bad input, unknown commits and refs, and roles', async () => {
    const p = await project('CI errors');
    const sha = head(p);
    await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({}).expect(400, { error: 'state is missing' });
    await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'done' }).expect(400, { error: 'state does not have a valid value' });
    await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'success', coverage: 'lots' }).expect(400, { error: 'coverage is invalid' });
    await t
      .api('post', `/projects/${p.id}/statuses/${'3'.repeat(40)}`)
      .send({ state: 'success' })
      .expect(404, { message: '404 Commit Not Found' });
    await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'success', pipeline_id: 999999 }).expect(404, { message: '404 Pipeline Not Found' });
    // A commit no branch holds needs its ref.
    const dangling = execFileSync('git', ['-C', t.deps.git.pathFor(p.id), 'commit-tree', `${sha}^{tree}`, '-m', 'loose'], {
      env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' },
    })
      .toString()
      .trim();
    await t.api('post', `/projects/${p.id}/statuses/${dangling}`).send({ state: 'success' }).expect(404, { message: '404 References for commit Not Found' });
    expect((await t.api('post', `/projects/${p.id}/statuses/${dangling}`).send({ state: 'success', ref: 'detached' }).expect(201)).body.ref).toBe('detached');

    const roles = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
    const statuses: Record<string, number> = {};
    for (const [role, level] of Object.entries(roles)) {
      const u = await member(p, level);
      statuses[role] = (await t.api('post', `/projects/${p.id}/statuses/${sha}`, u.token).send({ state: 'pending', name: role })).status;
    }
    expect(statuses).toEqual({ guest: 403, reporter: 403, developer: 201, maintainer: 201 });
    const stranger = await t.user();
    await t.api('post', `/projects/${p.id}/statuses/${sha}`, stranger.token).send({ state: 'pending' }).expect(404);
    await t.api('post', `/projects/${p.id}/statuses/${sha}`, null).send({ state: 'pending' }).expect(401);
  });
});

describe('reading statuses and the last pipeline', () => {
  it('makes one pipeline and keeps one latest status of a name under concurrent posts; the others are retried', async () => {
    const p = await project('CI race');
    const sha = head(p);
    const posts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: i % 2 ? 'success' : 'failed', name: 'race' })),
    );
    expect(posts.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(posts.map((r) => r.body.pipeline_id)).size).toBe(1);
    const newest = Math.max(...posts.map((r) => r.body.id));
    const base = `/projects/${p.id}/repository/commits/${sha}/statuses`;
    const latest = (await t.api('get', base).expect(200)).body;
    expect(latest.map((s: { id: number }) => s.id)).toEqual([newest]);
    expect((await t.api('get', `${base}?all=true`).expect(200)).body).toHaveLength(6);
    const commit = (await t.api('get', `/projects/${p.id}/repository/commits/${sha}`).expect(200)).body;
    expect(commit.status).toBe(posts.find((r) => r.body.id === newest)!.body.status);
  });

  it('lists the latest status of each name (all with all=true), filters, and shows last_pipeline on the commit', async () => {
    const p = await project('CI list');
    const sha = head(p);
    const post = (body: Record<string, unknown>) => t.api('post', `/projects/${p.id}/statuses/${sha}`).send(body).expect(201);
    await post({ state: 'success', name: 'lint' });
    await post({ state: 'failed', name: 'lint' });
    await post({ state: 'running', name: 'test' });
    const base = `/projects/${p.id}/repository/commits/${sha}/statuses`;
    const latest = (await t.api('get', base).expect(200)).body;
    expect(latest.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['lint', 'failed'],
      ['test', 'running'],
    ]);
    expect((await t.api('get', `${base}?all=true`).expect(200)).body).toHaveLength(3);
    expect((await t.api('get', `${base}?name=test`).expect(200)).body.map((s: { name: string }) => s.name)).toEqual(['test']);
    expect((await t.api('get', `${base}?ref=other`).expect(200)).body).toEqual([]);
    expect((await t.api('get', `${base}?stage=external`).expect(200)).body).toHaveLength(2);
    expect((await t.api('get', `${base}?stage=build`).expect(200)).body).toEqual([]);
    expect((await t.api('get', `${base}?sort=desc`).expect(200)).body.map((s: { name: string }) => s.name)).toEqual(['test', 'lint']);
    expect((await t.api('get', `${base}?pipeline_id=${latest[0].pipeline_id}&order_by=pipeline_id`).expect(200)).body).toHaveLength(2);
    expect((await t.api('get', `${base}?pipeline_id=999999`).expect(200)).body).toEqual([]);
    await t.api('get', `${base}?order_by=name`).expect(400, { error: 'order_by does not have a valid value' });
    await t.api('get', `/projects/${p.id}/repository/commits/nope/statuses`).expect(404, { message: '404 Commit Not Found' });

    const commit = (await t.api('get', `/projects/${p.id}/repository/commits/${sha}`).expect(200)).body;
    expect(commit.status).toBe('running');
    expect(commit.last_pipeline).toMatchObject({
      id: latest[0].pipeline_id,
      iid: 1,
      project_id: p.id,
      sha,
      ref: 'main',
      status: 'running',
      source: 'external',
      web_url: `${EXTERNAL_URL}/${p.path_with_namespace}/-/pipelines/${latest[0].pipeline_id}`,
    });
    await post({ state: 'success', name: 'test' });
    expect((await t.api('get', `/projects/${p.id}/repository/commits/${sha}`).expect(200)).body.status).toBe('failed');
    const fresh = await project('CI none');
    expect((await t.api('get', `/projects/${fresh.id}/repository/commits/main`).expect(200)).body).toMatchObject({ status: null, last_pipeline: null });
  });

  it('lets reporters read statuses of a private project, not guests; a pipeline list costs the same SQL for more statuses', async () => {
    const p = await project('CI roles');
    const sha = head(p);
    await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'pending', name: 'a' }).expect(201);
    const base = `/projects/${p.id}/repository/commits/${sha}/statuses`;
    const reporter = await member(p, 20);
    const guest = await member(p, 10);
    expect((await t.api('get', base, reporter.token).expect(200)).body).toHaveLength(1);
    await t.api('get', base, guest.token).expect(403);
    await t.api('get', base, null).expect(401);
    const list = () =>
      t.graphql(
        `{ project(id: ${p.id}) { repository { commit(ref: "main") { pipelines { nodes { status } } statuses { nodes { name author { username } } } } } } }`,
      );
    await expectCounterSees(t, list);
    const before = await countQueries(t, list);
    for (const name of ['b', 'c', 'd']) await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'running', name }).expect(201);
    expect(await countQueries(t, list)).toBe(before);
    const gql = (await list()).body.data.project.repository.commit;
    expect(gql.pipelines.nodes).toEqual([{ status: 'RUNNING' }]);
    expect(gql.statuses.nodes.map((s: { name: string }) => s.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('answers the same status over REST and GraphQL (twins)', async () => {
    const p = await project('CI twins', 'public');
    const sha = head(p);
    const rest = (await t.api('post', `/projects/${p.id}/statuses/${sha}`).send({ state: 'success', name: 'twin', description: 'ok' }).expect(201)).body;
    const gql = await t.graphql(
      `{ project(id: ${p.id}) { repository { commit(ref: "${sha}") { statuses { nodes { databaseId sha ref status name description pipelineId } } } } } }`,
    );
    const [node] = gql.body.data.project.repository.commit.statuses.nodes;
    expect(node).toEqual({
      databaseId: rest.id,
      sha: rest.sha,
      ref: rest.ref,
      status: rest.status,
      name: rest.name,
      description: rest.description,
      pipelineId: rest.pipeline_id,
    });
    const mutation = await t.graphql(
      `mutation { commitStatusCreate(input: { projectId: ${p.id}, sha: "${sha}", state: RUNNING, name: "twin" }) { commitStatus { status name } errors } }`,
    );
    expect(mutation.body.data.commitStatusCreate).toEqual({ commitStatus: { status: 'running', name: 'twin' }, errors: [] });
  });

  it('is driven by @gitbeaker/rest', async () => {
    const p = await project('CI beaker');
    const sha = head(p);
    const status = await api.Commits.editStatus(p.id, sha, 'running', { name: 'beaker', targetUrl: 'https://ci.example/b' });
    expect(status).toMatchObject({ status: 'running', name: 'beaker', target_url: 'https://ci.example/b', ref: 'main' });
    expect((await api.Commits.allStatuses(p.id, sha)).map((s) => s.status)).toEqual(['running']);
    expect(await api.Commits.show(p.id, sha)).toMatchObject({ status: 'running', last_pipeline: { status: 'running', ref: 'main' } });
  });
});
