// Two servers on one database, each with its own DATA_DIR (issue #37): the one whose storage does
// not hold the repositories the database lists says so in readiness, in its log at start, and
// answers repository calls with a 503 that names the problem instead of a 500.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { listeningBase, startServerOnFreePort, stop } from './helpers/processes.ts';

let a: TestApp;
let b: TestApp;
let projectIds: number[];

const REPOSITORY_UNAVAILABLE = "503 Service Unavailable - The project's repository is not in this server's repository storage";

beforeAll(async () => {
  a = await createTestApp();
  b = await createTestApp({ databaseUrl: a.databaseUrl });
  projectIds = [];
  for (let i = 0; i < 3; i++)
    projectIds.push(
      (
        await a
          .api('post', '/projects')
          .send({ name: `Held ${i}`, initialize_with_readme: true })
          .expect(201)
      ).body.id,
    );
  // Projects younger than a minute are not sampled (a project's row is written just before its repository).
  await a.db.project.updateMany({ data: { createdAt: new Date(Date.now() - 5 * 60_000) } });
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('a DATA_DIR that does not hold the repositories the database lists', () => {
  it('readiness is 503 and says which sampled repositories are missing; the server holding them is ready', async () => {
    const ready = await request(a.base).get('/-/readiness').expect(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: true, migrations: true, repository_storage: true } });
    const failed = await request(b.base).get('/-/readiness').expect(503);
    expect(failed.body).toEqual({
      status: 'failed',
      checks: { database: true, migrations: true, repository_storage: false },
      repository_storage_check: [
        {
          status: 'failed',
          message: `the repository storage does not hold 3 of 3 sampled repositories the database lists (projects ${projectIds.join(', ')}): DATA_DIR is not the one this database belongs to, or is incomplete`,
        },
      ],
    });
  });

  it('does not count a project created in the last minute (its repository may be on its way)', async () => {
    // Created through the other server: its repository is in that server's DATA_DIR only.
    const fresh = await b.api('post', '/projects').send({ name: 'Fresh' }).expect(201);
    expect(await a.deps.git.holds(fresh.body.id)).toBe(false);
    await request(a.base).get('/-/readiness').expect(200);
    await b.api('delete', `/projects/${fresh.body.id}`).expect(202);
  });

  it('answers repository calls with a 503 that names the problem, over REST and GraphQL, instead of a 500', async () => {
    const id = projectIds[0];
    await a.api('get', `/projects/${id}/repository/files/README.md?ref=main`).expect(200);
    const file = await b.api('get', `/projects/${id}/repository/files/README.md?ref=main`).expect(503);
    expect(file.body).toEqual({ message: REPOSITORY_UNAVAILABLE });
    expect(file.headers['retry-after']).toBe('60');
    expect((await b.api('get', `/projects/${id}/repository/tree`).expect(503)).body).toEqual({ message: REPOSITORY_UNAVAILABLE });
    expect((await b.api('get', `/projects/${id}/repository/branches`).expect(503)).body).toEqual({ message: REPOSITORY_UNAVAILABLE });
    const gql = await b.graphql(`{ project(id: ${id}) { repository { tree { lastCommit { sha } } } } }`);
    expect(gql.body.errors[0]).toMatchObject({
      message: "The project's repository is not in this server's repository storage",
      extensions: { code: 'REPOSITORY_UNAVAILABLE' },
    });
    // git over HTTP says the same, in git's plain text, instead of a failed git process.
    const fullPath = (await a.api('get', `/projects/${id}`).expect(200)).body.path_with_namespace;
    const basic = `Basic ${Buffer.from(`root:${b.root.token}`).toString('base64')}`;
    const refs = await request(b.base).get(`/${fullPath}.git/info/refs?service=git-upload-pack`).set('Authorization', basic).expect(503);
    expect(refs.text).toBe("The project's repository is not in this server's repository storage");
    // What does not touch the repository still works on that server.
    expect((await b.api('get', `/projects/${id}`).expect(200)).body.id).toBe(id);
  });

  it('logs the mismatch at error level at start, naming DATA_DIR and a missing repository', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-other-host-'));
    const server = startServerOnFreePort('other-host', {
      DATABASE_URL: a.databaseUrl,
      DATA_DIR: dataDir,
      EXTERNAL_URL: 'http://gitlab.test',
      JOB_WORKERS_IN_SERVER: 'false',
    });
    try {
      await listeningBase(server, 120_000);
      const lines = server
        .fullOutput()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const logged = lines.find((l) => l.level === 50 && l.missing);
      expect(logged).toMatchObject({
        dataDir,
        missing: projectIds,
        example: path.join(dataDir, 'repositories', `${projectIds[0]}.git`),
        msg: `DATA_DIR ${dataDir} does not hold repositories the database lists: 3 of 3 sampled are missing, e.g. project ${projectIds[0]} at ${path.join(dataDir, 'repositories', `${projectIds[0]}.git`)}`,
      });
    } finally {
      await stop(server, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});
