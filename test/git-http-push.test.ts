import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type DomainEvents } from '../src/core/events.ts';
import { ZERO_OID } from '../src/git/writer.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { remote, scratch } from './helpers/git-client.ts';

let t: TestApp;
let client: ReturnType<typeof scratch>;
const users: Record<string, { id: number; username: string; token: string }> = {};
let projects = 0;
/** Every push event the app announced, heard through a real bus with one listener. */
const pushes: DomainEvents['push'][] = [];

const serverGit = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(projectId), ...args])
    .toString()
    .trim();
const serverHas = (projectId: number, sha: string) => {
  try {
    serverGit(projectId, 'cat-file', '-e', sha);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  t = await createTestApp();
  t.deps.events = new EventBus({ push: [(event) => void pushes.push(event)] });
  t.deps.events.bind(t.deps);
  client = scratch();
  for (const [name] of [['maintainer'], ['developer'], ['reporter']]) users[name] = await t.user(name);
});
afterAll(async () => {
  client.remove();
  await t.close();
});

/** A private project with a README commit, its members, and a working copy cloned by `who`. */
async function setup(who: 'maintainer' | 'developer' = 'developer', opts: { readme?: boolean } = {}) {
  const p = (
    await t
      .api('post', '/projects')
      .send({ name: `Pushy ${++projects}`, visibility: 'private', initialize_with_readme: opts.readme ?? true })
      .expect(201)
  ).body;
  for (const [name, level] of [
    ['maintainer', 40],
    ['developer', 30],
    ['reporter', 20],
  ] as const) {
    await t.api('post', `/projects/${p.id}/members`).send({ user_id: users[name].id, access_level: level }).expect(201);
  }
  const url = (login: string) => remote(t.base, p.path_with_namespace, 'oauth2', users[login].token);
  const dir = path.join(client.dir, `work-${projects}-${who}`);
  await client.ok(['clone', url(who), dir]);
  const work = {
    dir,
    url,
    git: (...args: string[]) => client.git(args, { cwd: dir }),
    ok: (...args: string[]) => client.ok(args, { cwd: dir }),
    /** Commits one new file in the working copy; returns the new HEAD. */
    commit: async (file: string, content = `${file}\n`) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
      await client.ok(['add', file], { cwd: dir });
      await client.ok(['commit', '-q', '-m', `add ${file}`], { cwd: dir });
      return client.ok(['rev-parse', 'HEAD'], { cwd: dir });
    },
  };
  return { p, work };
}

describe('git push over HTTP', () => {
  it('pushes a new branch as a Developer; the API sees it at once', async () => {
    const { p, work } = await setup();
    await work.ok('checkout', '-q', '-b', 'feature/login');
    const sha = await work.commit('login.txt', 'log in\n');
    const result = await work.git('push', 'origin', 'feature/login');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('* [new branch]      feature/login -> feature/login');
    expect(serverGit(p.id, 'rev-parse', 'refs/heads/feature/login')).toBe(sha);
    const branch = (await t.api('get', `/projects/${p.id}/repository/branches/feature%2Flogin`).expect(200)).body;
    expect(branch.commit.id).toBe(sha);
    const raw = await t.api('get', `/projects/${p.id}/repository/files/login.txt/raw?ref=feature/login`).expect(200);
    expect(raw.text).toBe('log in\n');
    expect(pushes.filter((e) => e.projectId === p.id)).toEqual([
      { projectId: p.id, userId: users.developer.id, ref: 'refs/heads/feature/login', before: ZERO_OID, after: sha, via: 'git' },
    ]);
    expect(serverGit(p.id, 'fsck', '--no-dangling')).toBe('');
  });

  it('refuses a Developer push to the protected default branch with GitLab message, keeping nothing; a Maintainer push lands', async () => {
    const { p, work } = await setup('developer');
    const before = serverGit(p.id, 'rev-parse', 'main');
    const sha = await work.commit('dev.txt');
    const refused = await work.git('push', 'origin', 'main');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('remote: GitLab: You are not allowed to push code to protected branches on this project.');
    expect(refused.stderr).toContain('! [remote rejected] main -> main (pre-receive hook declined)');
    expect(serverGit(p.id, 'rev-parse', 'main')).toBe(before);
    expect(serverHas(p.id, sha)).toBe(false); // the quarantined objects went with the refusal
    expect(pushes.filter((e) => e.projectId === p.id)).toEqual([]);

    // Hooks that went missing or lost their mode are restored before the next push is received.
    const hooks = path.join(t.deps.git.root, '.forgegate-hooks');
    fs.chmodSync(path.join(hooks, 'pre-receive'), 0o644);
    expect((await work.git('push', 'origin', 'main')).stderr).toContain('remote: GitLab: You are not allowed to push code to protected branches');
    fs.rmSync(hooks, { recursive: true });
    expect((await work.git('push', 'origin', 'main')).stderr).toContain('remote: GitLab: You are not allowed to push code to protected branches');
    expect(serverGit(p.id, 'rev-parse', 'main')).toBe(before);

    const result = await work.git('push', work.url('maintainer'), 'main');
    expect(result.code).toBe(0);
    expect(serverGit(p.id, 'rev-parse', 'main')).toBe(sha);
    expect(pushes.filter((e) => e.projectId === p.id)).toEqual([
      { projectId: p.id, userId: users.maintainer.id, ref: 'refs/heads/main', before, after: sha, via: 'git' },
    ]);
  });

  it('refuses a force push to the protected branch, even by a Maintainer, and allows it on other branches', async () => {
    const { p, work } = await setup('maintainer');
    await work.commit('one.txt');
    await work.ok('push', 'origin', 'main', 'main:topic');
    const pushed = serverGit(p.id, 'rev-parse', 'main');
    await work.ok('reset', '-q', '--hard', 'HEAD~1');
    const rewritten = await work.commit('two.txt');
    const forced = await work.git('push', '--force', 'origin', 'main');
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain('remote: GitLab: You are not allowed to force push code to a protected branch on this project.');
    expect(forced.stderr).toContain('! [remote rejected] main -> main (pre-receive hook declined)');
    expect(serverGit(p.id, 'rev-parse', 'main')).toBe(pushed);
    expect((await work.git('push', '--force', 'origin', 'main:topic')).code).toBe(0);
    expect(serverGit(p.id, 'rev-parse', 'topic')).toBe(rewritten);
  });

  it('deletes branches and tags by push; the default branch cannot be deleted; existing tags are for Maintainers', async () => {
    const { p, work } = await setup('developer');
    await work.commit('x.txt');
    await work.ok('push', 'origin', 'HEAD:refs/heads/doomed');
    await work.ok('tag', '-a', 'v1.0.0', '-m', 'Release 1.0.0');
    await work.ok('tag', 'light');
    const tags = await work.git('push', 'origin', 'v1.0.0', 'light');
    expect(tags.code).toBe(0);
    expect(serverGit(p.id, 'cat-file', '-t', 'refs/tags/v1.0.0')).toBe('tag');
    const listed = (await t.api('get', `/projects/${p.id}/repository/tags`).expect(200)).body.map((tag: { name: string; message: string }) => [
      tag.name,
      tag.message,
    ]);
    expect(listed).toEqual(
      expect.arrayContaining([
        ['v1.0.0', 'Release 1.0.0'],
        ['light', null],
      ]),
    );

    expect((await work.git('push', 'origin', ':doomed')).code).toBe(0);
    expect(serverGit(p.id, 'for-each-ref', '--format=%(refname)', 'refs/heads/doomed')).toBe('');
    await t.api('get', `/projects/${p.id}/repository/branches/doomed`).expect(404);

    const tagDelete = await work.git('push', 'origin', ':refs/tags/v1.0.0');
    expect(tagDelete.code).toBe(1);
    expect(tagDelete.stderr).toContain('remote: GitLab: You are not allowed to change existing tags on this project.');
    expect((await work.git('push', work.url('maintainer'), ':refs/tags/v1.0.0')).code).toBe(0);
    expect(serverGit(p.id, 'for-each-ref', 'refs/tags/v1.0.0')).toBe('');

    const mainDelete = await work.git('push', work.url('maintainer'), ':main');
    expect(mainDelete.code).toBe(1);
    expect(mainDelete.stderr).toContain('remote: GitLab: The default branch of a project cannot be deleted.');
    expect(serverGit(p.id, 'rev-parse', '--verify', 'main')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses the whole push when one ref is refused (GitLab checks every change before any lands)', async () => {
    const { p, work } = await setup('developer');
    await work.commit('both.txt');
    const result = await work.git('push', 'origin', 'main', 'main:side');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('! [remote rejected] main -> side (pre-receive hook declined)');
    expect(serverGit(p.id, 'for-each-ref', 'refs/heads/side')).toBe('');
  });

  it('refuses names GitLab refuses and refs that are neither branches nor tags', async () => {
    const { work } = await setup('maintainer');
    const sha = await work.commit('n.txt');
    const hex = await work.git('push', 'origin', `HEAD:refs/heads/${sha}`);
    expect(hex.stderr).toContain('remote: GitLab: You cannot create a branch with a 40-character hexadecimal branch name.');
    const tag = await work.git('push', 'origin', `HEAD:refs/tags/${sha}`);
    expect(tag.stderr).toContain('remote: GitLab: You cannot create a tag with a SHA-1 or SHA-256 tag name.');
    const mainTag = await work.git('push', 'origin', 'HEAD:refs/tags/main');
    expect(mainTag.stderr).toContain('remote: GitLab: You cannot use default branch name to create a tag');
    const other = await work.git('push', 'origin', 'HEAD:refs/notes/x');
    expect(other.stderr).toContain('remote: GitLab: You can only push branches and tags, not refs/notes/x.');
  });

  it('refuses Reporters, tokens without write_repository and archived projects before receiving anything', async () => {
    const { p, work } = await setup('developer');
    await work.commit('r.txt');
    const reporter = await work.git('push', work.url('reporter'), 'HEAD:refs/heads/r');
    expect(reporter.code).toBe(128);
    expect(reporter.stderr).toContain('remote: You are not allowed to push code to this project.');
    const readOnly = remote(t.base, p.path_with_namespace, 'oauth2', await t.token(users.developer.id, ['read_repository']));
    const scoped = await work.git('push', readOnly, 'HEAD:refs/heads/r');
    expect(scoped.code).toBe(128);
    expect(scoped.stderr).toContain('remote: You are not allowed to upload code.');
    const writable = remote(t.base, p.path_with_namespace, 'oauth2', await t.token(users.developer.id, ['write_repository']));
    expect((await work.git('push', writable, 'HEAD:refs/heads/r')).code).toBe(0);
    await t.db.project.update({ where: { id: p.id }, data: { archived: true } });
    const archived = await work.git('push', writable, 'HEAD:refs/heads/r2');
    expect(archived.stderr).toContain("remote: You can't push code to an archived project.");
  });

  it('fills an empty project: a Maintainer pushes the default branch, a Developer may not', async () => {
    const { p, work } = await setup('developer', { readme: false });
    await work.commit('first.txt');
    const refused = await work.git('push', 'origin', 'HEAD:main');
    expect(refused.stderr).toContain('remote: GitLab: You are not allowed to create protected branches on this project.');
    expect((await work.git('push', work.url('maintainer'), 'HEAD:main')).code).toBe(0);
    const file = (await t.api('get', `/projects/${p.id}/repository/files/first.txt?ref=main`).expect(200)).body;
    expect(Buffer.from(file.content, 'base64').toString()).toBe('first.txt\n');
  });

  it('a push racing 10 API commits on one branch: every answer is clean, fsck is clean, history holds exactly the acknowledged writes', async () => {
    const { p, work } = await setup('developer');
    await work.ok('checkout', '-q', '-b', 'race');
    await work.ok('push', 'origin', 'race');
    const base = serverGit(p.id, 'rev-parse', 'race');
    await work.commit('pushed.txt');
    const [push, ...api] = await Promise.all([
      work.git('push', 'origin', 'race'),
      ...Array.from({ length: 10 }, (_, i) =>
        t
          .api('post', `/projects/${p.id}/repository/files/api${i}.txt`, users.developer.token)
          .send({ branch: 'race', content: `${i}\n`, commit_message: `api ${i}` }),
      ),
    ]);
    const acknowledged: string[] = [];
    for (const [i, res] of api.entries()) {
      if (res.status === 201) acknowledged.push(`api ${i}`);
      else
        expect({ status: res.status, body: res.body }).toEqual({
          status: 400,
          body: { message: 'Could not update refs/heads/race. Please refresh and try again.' },
        });
    }
    if (push.code === 0) acknowledged.push('add pushed.txt');
    // Refused by the server's compare-and-swap, or by the client when API commits landed before
    // the server advertised its refs.
    else
      expect(push.stderr).toMatch(
        /! \[(remote rejected\] race -> race \((failed to update ref|cannot lock ref 'refs\/heads\/race'[^)]*)|rejected\] +race -> race \(fetch first)\)/,
      );
    expect(acknowledged.length).toBeGreaterThan(0);
    const history = serverGit(p.id, 'log', '--format=%s', `${base}..race`).split('\n').filter(Boolean);
    expect(history.sort()).toEqual(acknowledged.sort());
    // One push event per acknowledged write, API or git, and they chain from the base to the tip.
    const events = pushes.filter((e) => e.projectId === p.id && e.ref === 'refs/heads/race' && e.before !== ZERO_OID);
    expect(events.length).toBe(acknowledged.length);
    expect(new Set(events.map((e) => e.via))).toEqual(new Set([...(api.some((r) => r.status === 201) ? ['api'] : []), ...(push.code === 0 ? ['git'] : [])]));
    const after = new Map(events.map((e) => [e.before, e.after]));
    let tip = base;
    while (after.has(tip)) tip = after.get(tip)!;
    expect(tip).toBe(serverGit(p.id, 'rev-parse', 'race'));
    expect(serverGit(p.id, 'fsck', '--no-dangling')).toBe('');
  });
});

describe('git processes per repository', () => {
  let busy: TestApp;
  beforeAll(async () => {
    busy = await createTestApp({ env: { GIT_HTTP_MAX_PROCESSES_PER_REPOSITORY: '1', GIT_HTTP_MAX_QUEUED_PER_REPOSITORY: '0' } });
  });
  afterAll(async () => {
    await busy.close();
  });

  it('answers 429 while the repository has no free slot, and serves again once it is free', async () => {
    const p = (await busy.api('post', '/projects').send({ name: 'Busy', visibility: 'public', initialize_with_readme: true }).expect(201)).body;
    const repo = `${busy.base}/${p.path_with_namespace}.git`;
    const auth = `Basic ${Buffer.from(`oauth2:${busy.root.token}`).toString('base64')}`;
    // The whole body is read: a client holds its slot until its answer is complete.
    const advertise = async () => {
      const res = await fetch(`${repo}/info/refs?service=git-upload-pack`);
      return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
    };
    expect((await advertise()).status).toBe(200);
    // A push whose body never finishes holds the only slot while receive-pack waits for it. It
    // races the probes for the slot: when a probe wins, the push is answered 429 and tried again.
    const sleep = () => new Promise((resolve) => setTimeout(resolve, 10));
    let holder: http.ClientRequest | null = null;
    for (let attempt = 0; attempt < 20 && !holder; attempt++) {
      const stalled = http.request(`${repo}/git-receive-pack`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/x-git-receive-pack-request' },
      });
      stalled.on('error', () => {});
      const lost = new Promise<'lost'>((resolve) =>
        stalled.on('response', (r) => {
          r.resume();
          resolve('lost');
        }),
      );
      stalled.flushHeaders();
      // The push opens a new connection where a probe reuses one: on a loaded machine the first
      // probe would win every time. The push gets a head start that grows with each loss.
      const headStart = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), Math.min(1000, 20 * 2 ** attempt)));
      if ((await Promise.race([lost, headStart])) === 'lost') continue;
      for (let probe = 0; probe < 200; probe++) {
        const answer = advertise();
        const outcome = await Promise.race([lost, answer]);
        // A probe still in flight holds the slot itself: finished before the next push tries, or a
        // later probe's 429 would be its doing and not the push's.
        if (outcome === 'lost') {
          await answer;
          break;
        }
        if (outcome.status === 429) holder = stalled;
        if (holder) break;
        await sleep();
      }
    }
    expect(holder).not.toBeNull();
    expect(await advertise()).toEqual({ status: 429, retryAfter: '10', text: 'Too many git requests for this repository at once. Please try again later.' });
    holder!.destroy();
    let status = 429;
    for (let attempt = 0; attempt < 200 && status !== 200; attempt++) {
      status = (await advertise()).status;
      if (status !== 200) await sleep();
    }
    expect(status).toBe(200);
  });
});
