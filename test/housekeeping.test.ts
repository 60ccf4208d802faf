import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitStore } from '../src/git/store.ts';
import { runGit } from '../src/git/run.ts';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

/** Loose and packed object counts (`git count-objects -v`): what housekeeping did. */
async function objectCounts(store: GitStore, projectId: number): Promise<{ loose: number; inPack: number }> {
  const out = await runGit(store.pathFor(projectId), ['count-objects', '-v']);
  const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
  return { loose: value('count'), inPack: value('in-pack') };
}

describe('project housekeeping (a job)', () => {
  let t: TestApp;
  let project: { id: number; path_with_namespace: string };

  beforeAll(async () => {
    t = await createTestApp();
    ({ project } = await seedProject(t));
    for (let i = 0; i < 3; i++) {
      await t
        .api('post', `/projects/${project.id}/repository/files/file${i}.txt`)
        .send({ branch: 'main', content: `content ${i}`, commit_message: `add ${i}` })
        .expect(201);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const backlog = async () => (await t.api('get', '/jobqueue/queue_metrics').expect(200)).body.queues['repository-housekeeping'].backlog;

  it('queues a job (201), refuses a second while one waits (409), and the job packs the repository', async () => {
    const before = await objectCounts(t.deps.git, project.id);
    expect(before.loose).toBeGreaterThan(0);
    const res = await t.api('post', `/projects/${project.id}/housekeeping`).expect(201);
    expect(res.text).toBe('');
    await t
      .api('post', `/projects/${project.id}/housekeeping`)
      .expect(409, { message: 'Housekeeping was already requested for this project and has not started yet' });
    expect(await backlog()).toBe(1);
    // Nothing ran yet: the request only queued the work.
    expect(await objectCounts(t.deps.git, project.id)).toEqual(before);

    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    const after = await objectCounts(t.deps.git, project.id);
    expect(after.loose).toBe(0);
    expect(after.inPack).toBeGreaterThanOrEqual(before.loose);
    expect(await backlog()).toBe(0);
    // The repository still reads.
    const file = await t.api('get', `/projects/${project.id}/repository/files/file2.txt/raw?ref=main`).expect(200);
    expect(file.text).toBe('content 2');
    // The key is free again once the job ran.
    await t.api('post', `/projects/${project.id}/housekeeping`).send({ task: 'prune' }).expect(201);
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
  });

  it('needs a maintainer; invisible projects are 404, anonymous callers 401; bad task is 400', async () => {
    const dev = await t.user('dev');
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
    const stranger = await t.user('stranger');
    await t.api('post', `/projects/${project.id}/housekeeping`, dev.token).expect(403, { message: '403 Forbidden' });
    await t.api('post', `/projects/${project.id}/housekeeping`, stranger.token).expect(404, { message: '404 Project Not Found' });
    // GitLab's projects API authenticates every write first (authenticate_non_get!).
    await t.api('post', `/projects/${project.id}/housekeeping`, null).expect(401, { message: '401 Unauthorized' });
    await t.api('post', `/projects/${project.id}/housekeeping`).send({ task: 'nuke' }).expect(400, { error: 'task does not have a valid value' });
    expect(await backlog()).toBe(0);
  });

  it('answers the same through GraphQL and gitbeaker', async () => {
    const gitbeaker = new Gitlab({ host: t.base, token: t.root.token });
    await gitbeaker.Projects.housekeeping(project.id);
    const m = await t.graphql(
      'mutation($input: ProjectHousekeepingStartInput!) { projectHousekeepingStart(input: $input) { clientMutationId errors project { id } } }',
      { input: { projectPath: project.path_with_namespace, clientMutationId: 'hk' } },
    );
    expect(m.body.data.projectHousekeepingStart).toEqual({
      clientMutationId: 'hk',
      errors: ['Housekeeping was already requested for this project and has not started yet'],
      project: null,
    });
    expect(await t.deps.jobs.drain()).toEqual({ completed: 1, failed: 0 });
    const ok = await t.graphql('mutation($input: ProjectHousekeepingStartInput!) { projectHousekeepingStart(input: $input) { errors project { fullPath } } }', {
      input: { projectPath: project.path_with_namespace, task: 'PRUNE' },
    });
    expect(ok.body.data.projectHousekeepingStart).toEqual({ errors: [], project: { fullPath: project.path_with_namespace } });
    await t.deps.jobs.drain();
  });
});
