import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWithPolicy, OutboundError } from '../src/http/outbound.ts';
import { camel, KINDS, kindOf, type KindDef, type ParamDef } from '../src/modules/integrations/registry.ts';
import { settingsOf } from '../src/modules/integrations/service.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

const sample = (param: ParamDef): string | boolean | number => {
  if (param.type === 'boolean') return true;
  if (param.type === 'integer') return 7;
  if (param.values) return param.values[param.values.length - 1];
  if (param.url) return `https://example.com/${param.name}`;
  return `${param.secret ? 'secret' : 'value'}-${param.name}`;
};
const validParams = (kind: KindDef) => Object.fromEntries(kind.params.map((p) => [p.name, sample(p)]));

/** A receiver on 127.0.0.1 that answers the statuses given, then 200; records each body. */
async function receiver(statuses: number[] = []) {
  const bodies: { url: string | undefined; body: Record<string, unknown> }[] = [];
  const hits: number[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      hits.push(status);
      if (status === 200) bodies.push({ url: req.url, body: JSON.parse(data) });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, bodies, hits, close: () => new Promise((r) => server.close(r)) };
}

describe('group integrations', () => {
  let t: TestApp;
  let group: { id: number; full_path: string };
  beforeAll(async () => {
    t = await createTestApp();
    t.config.development = true; // the mock CI kind exists only in development mode
    group = (await t.api('post', '/groups').send({ name: 'Acme', path: 'acme' }).expect(201)).body;
  });
  afterAll(() => t.close());

  describe.each(KINDS.map((kind) => [kind.slug, kind] as const))('%s', (slug, kind) => {
    it('sets up, reads back without secrets, lists, refuses each missing required parameter, disables and resets', async () => {
      const params = validParams(kind);
      const put = await t.api('put', `/groups/${group.id}/integrations/${slug}`).send(params).expect(200);
      expect(put.headers['content-type']).toMatch(/^application\/json/);
      expect(put.body).toMatchObject({ slug, title: kind.title, active: true, inherited: false });
      const read = (await t.api('get', `/groups/${group.id}/integrations/${slug}`).expect(200)).body;
      for (const param of kind.params) {
        if (param.secret) expect(read.properties).not.toHaveProperty(param.name);
        else if (param.deprecated !== 'ignored') expect(read.properties[param.name]).toEqual(params[param.name]);
      }
      expect(JSON.stringify(read)).not.toContain('secret-');
      const stored = await t.db.integration.findFirstOrThrow({ where: { namespaceId: group.id, slug } });
      expect(JSON.stringify(stored.properties)).not.toContain('secret-');
      if (kind.params.some((p) => p.secret)) expect(Buffer.from(stored.secrets!).toString('latin1')).not.toContain('secret-');
      const list = (await t.api('get', `/groups/${group.id}/integrations`).expect(200)).body;
      expect(list.map((i: { slug: string }) => i.slug)).toContain(slug);
      expect(list.find((i: { slug: string }) => i.slug === slug)).not.toHaveProperty('properties');

      for (const param of kind.params.filter((p) => p.required)) {
        const { [param.name]: _dropped, ...rest } = params;
        await t
          .api('put', `/groups/${group.id}/integrations/${slug}`)
          .send(rest)
          .expect(400, { error: `${param.name} is missing` });
      }

      await t.api('delete', `/groups/${group.id}/integrations/${slug}`).expect(204);
      const reset = (await t.api('get', `/groups/${group.id}/integrations/${slug}`).expect(200)).body;
      expect(reset.active).toBe(false);
      for (const param of kind.params.filter((p) => !p.secret && p.deprecated !== 'ignored' && !p.name.endsWith('_events'))) {
        expect(reset.properties[param.name]).toBeNull();
      }
      const after = (await t.api('get', `/groups/${group.id}/integrations`).expect(200)).body;
      expect(after.map((i: { slug: string }) => i.slug)).not.toContain(slug);
    });
  });

  it('concurrent set-ups of a new kind make one row', async () => {
    const g = (await t.api('post', '/groups').send({ name: 'Race', path: 'race' }).expect(201)).body;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_v, i) => t.api('put', `/groups/${g.id}/integrations/assembla`).send({ token: `t${i}`, subdomain: `s${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await t.db.integration.count({ where: { namespaceId: g.id, slug: 'assembla' } })).toBe(1);
  });

  it("accepts GitLab's original parameter names as aliases", async () => {
    await t
      .api('put', `/groups/${group.id}/integrations/bamboo`)
      .send({ bamboo_url: 'https://ci.example.com', build_key: 'KEY', username: 'u', password: 'p' })
      .expect(200);
    const read = (await t.api('get', `/groups/${group.id}/integrations/bamboo`).expect(200)).body;
    expect(read.properties).toMatchObject({ buildserver_url: 'https://ci.example.com', enable_ssl_verification: true, build_key: 'KEY' });
    expect(read.properties).not.toHaveProperty('password');
    await t.api('put', `/groups/${group.id}/integrations/confluence`).send({ confluence_url: 'https://acme.atlassian.net/wiki' }).expect(200);
  });

  it("applies the spec's rules: branch and label values, http(s) URLs, deprecated parameters, channels", async () => {
    const base = `/groups/${group.id}/integrations/slack`;
    await t
      .api('put', base)
      .send({ webhook: 'https://hooks.example.com/x', branches_to_be_notified: 'some' })
      .expect(400, { error: 'branches_to_be_notified does not have a valid value' });
    await t
      .api('put', base)
      .send({ webhook: 'https://hooks.example.com/x', labels_to_be_notified_behavior: 'match_some' })
      .expect(400, { error: 'labels_to_be_notified_behavior does not have a valid value' });
    const ftp = await t.api('put', base).send({ webhook: 'ftp://hooks.example.com/x' }).expect(400);
    expect(ftp.body).toEqual({ message: { webhook: ['is blocked: Only allowed schemes are http, https'] } });
    const ok = await t
      .api('put', base)
      .send({ webhook: 'https://hooks.example.com/x', notify_only_default_branch: true, push_channel: 'pushes', push_events: false })
      .expect(200);
    expect(ok.body.properties).toMatchObject({
      branches_to_be_notified: 'default',
      labels_to_be_notified_behavior: 'match_any',
      notify_only_default_branch: true,
      push_channel: 'pushes',
    });
    expect(ok.body.push_events).toBe(false);
    expect(ok.body.tag_push_events).toBe(true);
    const bk = await t
      .api('put', `/groups/${group.id}/integrations/buildkite`)
      .send({ token: 't', project_url: 'https://bk.example.com/p', enable_ssl_verification: false })
      .expect(200);
    expect(bk.body.properties).not.toHaveProperty('enable_ssl_verification');
  });

  it("answers GitLab's statuses: unknown, project-only and development-only kinds, not set up, roles", async () => {
    await t.api('put', `/groups/${group.id}/integrations/jenkins`).send({}).expect(400, { message: '400 Integration not available' });
    await t.api('get', `/groups/${group.id}/integrations/jenkins`).expect(400, { message: '400 Integration not available' });
    await t.api('put', `/groups/${group.id}/integrations/nonsense`).send({}).expect(404, { error: '404 Not Found' });
    await t.api('get', `/groups/${group.id}/integrations/nonsense`).expect(400, { error: 'slug does not have a valid value' });
    const empty = (await t.api('post', '/groups').send({ name: 'Empty', path: 'empty' }).expect(201)).body;
    await t.api('get', `/groups/${empty.id}/integrations/redmine`).expect(404, { message: '404 Integration Not Found' });
    await t.api('delete', `/groups/${empty.id}/integrations/redmine`).expect(404, { message: '404 Integration Not Found' });
    expect((await t.api('get', `/groups/${empty.id}/integrations`).expect(200)).body).toEqual([]);
    t.config.development = false;
    await t
      .api('put', `/groups/${group.id}/integrations/mock-ci`)
      .send({ mock_service_url: 'https://mock.example.com' })
      .expect(400, { error: 'slug does not have a valid value' });
    t.config.development = true;

    const dev = await t.user();
    const maintainer = await t.user();
    const outsider = await t.user();
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
    await t.api('get', `/groups/${group.id}/integrations`, dev.token).expect(403, { message: '403 Forbidden' });
    await t.api('put', `/groups/${group.id}/integrations/asana`, dev.token).send({ api_key: 'k' }).expect(403, { message: '403 Forbidden' });
    await t.api('get', `/groups/${group.id}/integrations`, outsider.token).expect(404, { message: '404 Group Not Found' });
    await t.api('put', `/groups/${group.id}/integrations/asana`, maintainer.token).send({ api_key: 'k' }).expect(200);
    const pub = (await t.api('post', '/groups').send({ name: 'Open', path: 'open', visibility: 'public' }).expect(201)).body;
    await t.api('get', `/groups/${pub.id}/integrations`, null).expect(401, { message: '401 Unauthorized' });
  });

  it('inherits across three levels, switches back with use_inherited_settings, shows ancestor changes', async () => {
    const top = (await t.api('post', '/groups').send({ name: 'Top', path: 'top' }).expect(201)).body;
    const mid = (await t.api('post', '/groups').send({ name: 'Mid', path: 'mid', parent_id: top.id }).expect(201)).body;
    const low = (await t.api('post', '/groups').send({ name: 'Low', path: 'low', parent_id: mid.id }).expect(201)).body;
    await t
      .api('put', `/groups/${top.id}/integrations/youtrack`)
      .send({ issues_url: 'https://yt.example.com/:id', project_url: 'https://yt.example.com/p' })
      .expect(200);
    const seen = (await t.api('get', `/groups/${low.id}/integrations/youtrack`).expect(200)).body;
    expect(seen).toMatchObject({ inherited: true, properties: { project_url: 'https://yt.example.com/p' } });
    expect((await t.api('get', `/groups/${low.id}/integrations`).expect(200)).body).toEqual([expect.objectContaining({ slug: 'youtrack', inherited: true })]);

    await t
      .api('put', `/groups/${mid.id}/integrations/youtrack`)
      .send({ issues_url: 'https://mid.example.com/:id', project_url: 'https://mid.example.com/p' })
      .expect(200);
    expect((await t.api('get', `/groups/${low.id}/integrations/youtrack`).expect(200)).body.properties.project_url).toBe('https://mid.example.com/p');
    expect((await t.api('get', `/groups/${mid.id}/integrations/youtrack`).expect(200)).body.inherited).toBe(false);

    const back = await t.api('put', `/groups/${mid.id}/integrations/youtrack`).send({ use_inherited_settings: true }).expect(200);
    expect(back.body).toMatchObject({ inherited: true, properties: { project_url: 'https://yt.example.com/p' } });
    await t
      .api('put', `/groups/${top.id}/integrations/youtrack`)
      .send({ issues_url: 'https://yt2.example.com/:id', project_url: 'https://yt2.example.com/p' })
      .expect(200);
    for (const g of [mid, low]) {
      expect((await t.api('get', `/groups/${g.id}/integrations/youtrack`).expect(200)).body).toMatchObject({
        inherited: true,
        properties: { project_url: 'https://yt2.example.com/p' },
      });
    }
    await t.api('put', `/groups/${top.id}/integrations/redmine`).send({ use_inherited_settings: true }).expect(400);
  });

  it('answers the same through GraphQL as through REST (twin), with per-kind input types', async () => {
    const m = await t.graphql(
      `mutation($input: IntegrationSetUpInput!) { integrationSetUp(input: $input) { errors integration { slug active inherited pushEvents properties } } }`,
      {
        input: {
          groupPath: 'acme',
          slug: 'discord',
          pushEvents: false,
          settings: { discord: { webhook: 'https://discord.example.com/h', branchesToBeNotified: 'all' } },
        },
      },
    );
    expect(m.body.data.integrationSetUp.errors).toEqual([]);
    const rest = (await t.api('get', `/groups/${group.id}/integrations/discord`).expect(200)).body;
    const q = await t.graphql(
      `{ group(fullPath: "acme") { integration(slug: "discord") { databaseId slug title active inherited pushEvents createdAt properties } } }`,
    );
    expect(q.body.data.group.integration).toEqual({
      databaseId: rest.id,
      slug: rest.slug,
      title: rest.title,
      active: rest.active,
      inherited: rest.inherited,
      pushEvents: rest.push_events,
      createdAt: rest.created_at,
      properties: rest.properties,
    });
    const missing = await t.graphql(`mutation { integrationSetUp(input: { groupPath: "acme", slug: "discord", settings: { discord: {} } }) { errors } }`);
    expect(missing.body.data.integrationSetUp.errors).toEqual(['webhook is missing']);
    const wrong = await t.graphql(
      `mutation { integrationSetUp(input: { groupPath: "acme", slug: "discord", settings: { slack: { webhook: "https://x.example.com" } } }) { errors } }`,
    );
    expect(wrong.body.data.integrationSetUp.errors).toEqual(['settings.slack does not belong to the discord integration']);
    // An update names only what changes: the webhook (a secret) and the flags stay as they were.
    const u = await t.graphql(
      `mutation { integrationUpdate(input: { groupPath: "acme", slug: "discord", settings: { discord: { branchesToBeNotified: "default" } } }) { errors integration { pushEvents properties } } }`,
    );
    expect(u.body.data.integrationUpdate).toEqual({
      errors: [],
      integration: { pushEvents: false, properties: expect.objectContaining({ branches_to_be_notified: 'default' }) },
    });
    const row = await t.db.integration.findFirstOrThrow({ where: { namespaceId: group.id, slug: 'discord' } });
    expect(settingsOf(t.deps, { row, kind: kindOf('discord')!, inherited: false }).webhook).toBe('https://discord.example.com/h');
    const notSetUp = await t.graphql(
      `mutation { integrationUpdate(input: { groupPath: "acme", slug: "telegram", settings: { telegram: { room: "x" } } }) { errors } }`,
    );
    expect(JSON.stringify(notSetUp.body)).toContain('Integration Not Found');
    const dev = await t.user();
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
    const forbidden = await t.graphql(`{ group(fullPath: "acme") { integrations { slug } } }`, {}, dev.token);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const d = await t.graphql(`mutation { integrationDisable(input: { groupPath: "acme", slug: "discord" }) { errors integration { active } } }`);
    expect(d.body.data.integrationDisable).toEqual({ errors: [], integration: { active: false } });
  });
});

describe('integration delivery', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the SSRF guard refuses local and private addresses unless an administrator allows them', async () => {
    for (const url of ['http://127.0.0.1:9/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]:9/']) {
      const error = await sendWithPolicy(url, { method: 'POST', body: '{}' }, { allowLocal: false }).catch((e) => e);
      expect(error).toBeInstanceOf(OutboundError);
      expect((error as OutboundError).reason).toBe('blocked');
    }
    const group = (await t.api('post', '/groups').send({ name: 'Guarded', path: 'guarded' }).expect(201)).body;
    await t.api('put', `/groups/${group.id}/integrations/mattermost`).send({ webhook: 'http://127.0.0.1:9/hook' }).expect(200);
    const test = await t.api('post', `/groups/${group.id}/integrations/mattermost/test`).expect(200);
    expect(test.body).toEqual({ success: false, status: 'failed', message: 'blocked: Requests to the local network are not allowed' });
  });

  it('delivers a release to a real receiver once, through retries, and records kinds that do not send', async () => {
    await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
    const hook = await receiver([500, 503]);
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Deliver', path: 'deliver' }).expect(201)).body;
      const project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
      // The tag exists before the integrations do, so the release is the only event they hear.
      await t.api('post', `/projects/${project.id}/repository/tags`).query({ tag_name: 'v1.0', ref: 'main' }).expect(201);
      await t
        .api('put', `/groups/${group.id}/integrations/slack`)
        .send({ webhook: `${hook.url}/hook`, tag_push_channel: 'releases', username: 'bot' })
        .expect(200);
      await t
        .api('put', `/groups/${group.id}/integrations/microsoft-teams`)
        .send({ webhook: `${hook.url}/teams`, tag_push_events: false })
        .expect(200);
      await t.api('put', `/groups/${group.id}/integrations/emails-on-push`).send({ recipients: 'ops@example.com' }).expect(200);
      await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1.0', name: 'One' }).expect(201);
      const result = await t.deps.jobs.drain({ ignoreDelays: true });
      // Two failed attempts of the chat message, then it and the e-mail kind's record complete.
      expect(result).toEqual({ completed: 2, failed: 2 });
      expect(hook.hits).toEqual([500, 503, 200]);
      expect(hook.bodies).toEqual([
        {
          url: '/hook',
          body: expect.objectContaining({
            object_kind: 'release',
            channel: 'releases',
            username: 'bot',
            project: { id: project.id, path_with_namespace: 'deliver/app' },
            text: expect.stringContaining('v1.0'),
          }),
        },
      ]);
      const deliveries = await t.db.integrationDelivery.findMany({ orderBy: { id: 'asc' }, include: { integration: true } });
      expect(deliveries.filter((d) => d.integration.slug === 'slack').map((d) => d.status)).toEqual(['failed', 'failed', 'sent']);
      expect(deliveries.filter((d) => d.integration.slug === 'microsoft-teams')).toEqual([]);
      expect(deliveries.filter((d) => d.integration.slug === 'emails-on-push').map((d) => [d.status, d.target])).toEqual([['sent', 'ops@example.com']]);
      const mails = await t.db.email.findMany();
      expect(mails).toEqual([
        expect.objectContaining({ to: ['ops@example.com'], subject: expect.stringContaining('release One (v1.0) create'), transport: 'outbox' }),
      ]);

      const test = await t.api('post', `/groups/${group.id}/integrations/microsoft-teams/test`).expect(200);
      expect(test.body).toMatchObject({ success: true, status: 'sent' });
      expect(hook.bodies.at(-1)).toEqual({ url: '/teams', body: expect.objectContaining({ object_kind: 'test' }) });
      const gql = await t.graphql(`mutation { integrationTest(input: { groupPath: "deliver", slug: "emails-on-push" }) { errors result { success status } } }`);
      expect(gql.body.data.integrationTest).toEqual({ errors: [], result: { success: true, status: 'sent' } });
      expect(await t.db.email.count()).toBe(2);
      await t
        .api('put', `/groups/${group.id}/integrations/bugzilla`)
        .send({ new_issue_url: 'https://b.example.com/new', issues_url: 'https://b.example.com/:id', project_url: 'https://b.example.com' })
        .expect(200);
      expect((await t.api('post', `/groups/${group.id}/integrations/bugzilla/test`).expect(200)).body).toMatchObject({ success: true, status: 'recorded' });
    } finally {
      await hook.close();
    }
  });

  it('delivers pushes and tag pushes by their own flags', async () => {
    await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
    const hook = await receiver();
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Pushes', path: 'pushes' }).expect(201)).body;
      const project = (await t.api('post', '/projects').send({ name: 'Lib', namespace_id: group.id }).expect(201)).body;
      await t
        .api('put', `/groups/${group.id}/integrations/hangouts-chat`)
        .send({ webhook: `${hook.url}/chat`, tag_push_events: false })
        .expect(200);
      const sha = 'a'.repeat(40);
      await t.deps.events.publish('push', { projectId: project.id, userId: null, ref: 'refs/heads/main', before: '0'.repeat(40), after: sha, via: 'api' });
      await t.deps.events.publish('push', { projectId: project.id, userId: null, ref: 'refs/tags/v2', before: '0'.repeat(40), after: sha, via: 'git' });
      await t.deps.events.publish('alert', { projectId: project.id, alertId: -1, iid: 3, action: 'created' });
      await t.deps.jobs.drain();
      expect(hook.bodies).toEqual([
        { url: '/chat', body: expect.objectContaining({ object_kind: 'push', text: 'pushes/lib: created branch main' }) },
        { url: '/chat', body: expect.objectContaining({ object_kind: 'alert', text: 'pushes/lib: alert ^3 created' }) },
      ]);
      // End to end: a commit through the files API announces a push that reaches the receiver.
      await t.api('post', `/projects/${project.id}/repository/files/NOTES.md`).send({ branch: 'main', content: 'x', commit_message: 'notes' }).expect(201);
      await t.deps.jobs.drain();
      expect(hook.bodies.at(-1)).toEqual({
        url: '/chat',
        body: expect.objectContaining({ object_kind: 'push', data: expect.objectContaining({ ref: 'refs/heads/main', via: 'api' }) }),
      });
      expect(hook.bodies).toHaveLength(3);
    } finally {
      await hook.close();
    }
  });

  it('filters branch pushes by branches_to_be_notified and tells chats about members and access requests', async () => {
    await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
    const hook = await receiver();
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Filters', path: 'filters', visibility: 'public' }).expect(201)).body;
      const project = (await t.api('post', '/projects').send({ name: 'Svc', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body;
      await t
        .api('put', `/groups/${group.id}/integrations/discord`)
        .send({ webhook: `${hook.url}/default` })
        .expect(200);
      await t
        .api('put', `/groups/${group.id}/integrations/slack`)
        .send({ webhook: `${hook.url}/all`, branches_to_be_notified: 'all' })
        .expect(200);
      // A branch made through the branches API is a push of a new branch: only `all` hears it.
      await t.api('post', `/projects/${project.id}/repository/branches`).query({ branch: 'feature', ref: 'main' }).expect(201);
      await t.api('post', `/projects/${project.id}/repository/files/a.txt`).send({ branch: 'feature', content: 'a', commit_message: 'a' }).expect(201);
      await t.api('post', `/projects/${project.id}/repository/files/b.txt`).send({ branch: 'main', content: 'b', commit_message: 'b' }).expect(201);
      await t.deps.jobs.drain();
      const pushes = (url: string) => hook.bodies.filter((b) => b.url === url && b.body.object_kind === 'push').map((b) => b.body.text);
      expect(pushes('/default')).toEqual([expect.stringMatching(/^filters\/svc: pushed \w{8}\.\.\w{8} to branch main$/)]);
      expect(pushes('/all')).toEqual([
        'filters/svc: created branch feature',
        expect.stringMatching(/to branch feature$/),
        expect.stringMatching(/to branch main$/),
      ]);
      // The deprecated flag still narrows to the default branch.
      await t
        .api('put', `/groups/${group.id}/integrations/slack`)
        .send({ webhook: `${hook.url}/all`, branches_to_be_notified: 'all', notify_only_default_branch: true })
        .expect(200);
      await t.api('delete', `/projects/${project.id}/repository/branches/feature`).expect(204);
      await t.deps.jobs.drain();
      expect(pushes('/all')).toHaveLength(3);

      // Memberships and access requests reach the chat kinds, for the group and its projects.
      const alice = await t.user('alice');
      const bob = await t.user('bob');
      await t.api('post', `/projects/${project.id}/members`).send({ user_id: alice.id, access_level: 30 }).expect(201);
      // A refused change announces nothing.
      await t.api('put', `/groups/${group.id}/members/${alice.id}`).send({ access_level: 40 }).expect(404);
      await t.api('post', `/groups/${group.id}/access_requests`, bob.token).expect(201);
      await t.api('put', `/groups/${group.id}/access_requests/${bob.id}/approve`).send({ access_level: 20 }).expect(201);
      await t.deps.jobs.drain();
      const about = (kind: string) => hook.bodies.filter((b) => b.url === '/default' && b.body.object_kind === kind).map((b) => b.body);
      expect(about('member')).toEqual([
        expect.objectContaining({
          text: 'filters/svc: member alice added (access level 30) by root',
          project: { id: project.id, path_with_namespace: 'filters/svc' },
        }),
      ]);
      expect(about('access_request').map((b) => b.text)).toEqual(['filters: bob requested access', 'filters: access request of bob approved by root']);
      expect(about('access_request')[0]).toMatchObject({
        group: { id: group.id, full_path: 'filters' },
        project: null,
        data: { userId: bob.id, action: 'requested' },
      });
    } finally {
      await hook.close();
    }
  });

  it("calls the bot kind's API at its hostname without recording the token", async () => {
    await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
    const bot = await receiver();
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Bot', path: 'bot' }).expect(201)).body;
      const flags = Object.fromEntries(
        [
          'push_events',
          'issues_events',
          'confidential_issues_events',
          'merge_requests_events',
          'tag_push_events',
          'note_events',
          'confidential_note_events',
          'pipeline_events',
          'wiki_page_events',
        ].map((f) => [f, true]),
      );
      await t
        .api('put', `/groups/${group.id}/integrations/telegram`)
        .send({ hostname: bot.url, token: 'TOKEN123', room: '@ops', thread: 4, ...flags })
        .expect(200);
      const test = await t.api('post', `/groups/${group.id}/integrations/telegram/test`).expect(200);
      expect(test.body.success).toBe(true);
      expect(bot.bodies).toEqual([
        { url: '/botTOKEN123/sendMessage', body: { chat_id: '@ops', text: expect.stringContaining('Telegram'), message_thread_id: 4 } },
      ]);
      const recorded = await t.db.integrationDelivery.findFirstOrThrow({ where: { integration: { slug: 'telegram' } } });
      expect(recorded.target).not.toContain('TOKEN123');
    } finally {
      await bot.close();
    }
  });
});

describe('secrets follow their destination (issue #37)', () => {
  let t: TestApp;
  let maintainer: { id: number; token: string };
  const CHAT_FLAGS = [
    'push_events',
    'issues_events',
    'confidential_issues_events',
    'merge_requests_events',
    'tag_push_events',
    'note_events',
    'confidential_note_events',
    'pipeline_events',
    'wiki_page_events',
  ];
  const flags = Object.fromEntries(CHAT_FLAGS.map((f) => [f, true]));
  beforeAll(async () => {
    t = await createTestApp();
    t.config.development = true; // the mock CI kind exists only in development mode
    maintainer = await t.user('maint');
    await t.api('put', '/application/settings').send({ allow_local_requests_from_web_hooks_and_services: true }).expect(200);
  });
  afterAll(() => t.close());

  /** `integrationUpdate` as the maintainer, settings by the registry's names. */
  const update = async (path: string, kind: KindDef, settings: Record<string, unknown>, top: Record<string, unknown> = {}) => {
    const input = {
      groupPath: path,
      slug: kind.slug,
      ...top,
      settings: { [camel(kind.slug)]: Object.fromEntries(Object.entries(settings).map(([k, v]) => [camel(k), v])) },
    };
    const r = await t.graphql('mutation($input: IntegrationUpdateInput!) { integrationUpdate(input: $input) { errors } }', { input }, maintainer.token);
    return r.body.data.integrationUpdate.errors as string[];
  };
  const stored = async (groupId: number, kind: KindDef) => {
    const row = await t.db.integration.findFirstOrThrow({ where: { namespaceId: groupId, slug: kind.slug } });
    return settingsOf(t.deps, { row, kind, inherited: false });
  };
  const humanized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');
  const elsewhere = (param: ParamDef) => (param.url ? `https://elsewhere.example.com/${param.name}` : `elsewhere-${param.name}`);

  it("every kind with secrets declares where it sends them (GitLab's exposes_secrets fields)", () => {
    expect(KINDS.flatMap((kind) => kind.params.filter((p) => p.url && !p.destination).map((p) => `${kind.slug}.${p.name}`))).toEqual([]);
    const withSecrets = KINDS.filter((kind) => kind.params.some((p) => p.secret));
    expect(Object.fromEntries(withSecrets.map((kind) => [kind.slug, kind.params.filter((p) => p.destination).map((p) => p.name)]))).toEqual({
      asana: [],
      assembla: ['subdomain'],
      bamboo: ['buildserver_url'],
      buildkite: ['project_url'],
      'drone-ci': ['buildserver_url'],
      campfire: ['subdomain'],
      datadog: ['site'],
      packagist: ['server'],
      pivotaltracker: [],
      'mattermost-slash-commands': [],
      'slack-slash-commands': [],
      telegram: ['hostname'],
      slack: ['webhook'],
      mattermost: ['webhook'],
      'microsoft-teams': ['webhook'],
      'hangouts-chat': ['webhook'],
      discord: ['webhook'],
    });
  });

  describe.each(KINDS.map((kind) => [kind.slug, kind] as const))('%s', (slug, kind) => {
    const secrets = kind.params.filter((p) => p.secret);
    const destinations = kind.params.filter((p) => p.destination);
    it('a destination change needs every secret again; other changes keep them', async () => {
      const group = (
        await t
          .api('post', '/groups')
          .send({ name: `S ${slug}`, path: `s-${slug}` })
          .expect(201)
      ).body;
      await t.api('post', `/groups/${group.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
      const params = validParams(kind);
      await t.api('put', `/groups/${group.id}/integrations/${slug}`).send(params).expect(200);

      // Positive control: a change of no destination keeps the stored secrets.
      expect(await update(group.full_path, kind, {}, { commitEvents: false })).toEqual([]);
      for (const secret of secrets) expect((await stored(group.id, kind))[secret.name]).toBe(params[secret.name]);

      for (const dest of destinations) {
        const before = await stored(group.id, kind);
        const others = secrets.filter((s) => s !== dest);
        if (others.length) {
          const refused = await update(group.full_path, kind, { [dest.name]: elsewhere(dest) });
          expect(refused).toEqual(others.map((s) => `${humanized(s.name)} must be given again when ${dest.name} changes`));
          expect(await stored(group.id, kind)).toEqual(before);
        }
        const fresh = Object.fromEntries(others.map((s) => [s.name, `fresh-${s.name}`]));
        expect(await update(group.full_path, kind, { [dest.name]: elsewhere(dest), ...fresh })).toEqual([]);
        expect(await stored(group.id, kind)).toMatchObject({ [dest.name]: elsewhere(dest), ...fresh });
      }
    });
  });

  it("a Maintainer cannot send the owner's Telegram bot token to a host of theirs (REST and GraphQL)", async () => {
    const owner = await receiver();
    const attacker = await receiver();
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Tele', path: 'tele' }).expect(201)).body;
      await t.api('post', `/groups/${group.id}/members`).send({ user_id: maintainer.id, access_level: 40 }).expect(201);
      const base = `/groups/${group.id}/integrations/telegram`;
      await t
        .api('put', base)
        .send({ hostname: owner.url, token: 'OWNER-TOKEN', room: '@ops', ...flags })
        .expect(200);
      const telegram = kindOf('telegram')!;

      // A partial update that names no destination keeps the token (and the kind's own event flags).
      expect(await update('tele', telegram, { room: '@ops2' })).toEqual([]);

      // REST PUT is a whole set-up: the token is a required parameter (twin: integrationSetUp).
      await t
        .api('put', base, maintainer.token)
        .send({ hostname: attacker.url, room: '@ops', ...flags })
        .expect(400, { error: 'token is missing' });
      const setUp = await t.graphql(
        'mutation($input: IntegrationSetUpInput!) { integrationSetUp(input: $input) { errors } }',
        {
          input: {
            groupPath: 'tele',
            slug: 'telegram',
            settings: { telegram: { hostname: attacker.url, room: '@ops', ...Object.fromEntries(CHAT_FLAGS.map((f) => [camel(f), true])) } },
          },
        },
        maintainer.token,
      );
      expect(setUp.body.data.integrationSetUp.errors).toEqual(['token is missing']);
      // The partial update changes the hostname only with the token given again.
      expect(await update('tele', telegram, { hostname: attacker.url })).toEqual(['Token must be given again when hostname changes']);
      expect((await t.api('get', base, maintainer.token).expect(200)).body.properties).toMatchObject({ hostname: owner.url, room: '@ops2' });

      // The test sends the owner's token only to the owner's host, through REST and GraphQL.
      expect((await t.api('post', `${base}/test`, maintainer.token).expect(200)).body).toMatchObject({ success: true, status: 'sent' });
      const gqlTest = await t.graphql(
        'mutation { integrationTest(input: { groupPath: "tele", slug: "telegram" }) { errors result { success status } } }',
        {},
        maintainer.token,
      );
      expect(gqlTest.body.data.integrationTest).toEqual({ errors: [], result: { success: true, status: 'sent' } });
      expect(owner.bodies.map((b) => b.url)).toEqual(['/botOWNER-TOKEN/sendMessage', '/botOWNER-TOKEN/sendMessage']);

      // With a token of their own the Maintainer may move it: that token, not the owner's, goes there.
      expect(await update('tele', telegram, { hostname: attacker.url, token: 'THEIR-TOKEN' })).toEqual([]);
      await t.api('post', `${base}/test`, maintainer.token).expect(200);
      await t
        .api('put', base, maintainer.token)
        .send({ hostname: attacker.url, token: 'THEIR-OTHER-TOKEN', room: '@ops', ...flags })
        .expect(200);
      await t.api('post', `${base}/test`, maintainer.token).expect(200);
      expect(attacker.bodies.map((b) => b.url)).toEqual(['/botTHEIR-TOKEN/sendMessage', '/botTHEIR-OTHER-TOKEN/sendMessage']);
      expect(owner.hits).toHaveLength(2);
    } finally {
      await owner.close();
      await attacker.close();
    }
  });

  it('a secret never leaves with a destination it was not saved with, on the test and on deliveries', async () => {
    const owner = await receiver();
    const attacker = await receiver();
    try {
      const group = (await t.api('post', '/groups').send({ name: 'Sealed', path: 'sealed' }).expect(201)).body;
      const project = (await t.api('post', '/projects').send({ name: 'App', namespace_id: group.id }).expect(201)).body;
      const base = `/groups/${group.id}/integrations/telegram`;
      await t
        .api('put', base)
        .send({ hostname: owner.url, token: 'OWNER-TOKEN', room: '@ops', ...flags })
        .expect(200);
      // A write that bypasses the service's rule (a script, a restored backup) moves the hostname alone.
      const where = { namespaceId_slug: { namespaceId: group.id, slug: 'telegram' } };
      const row = await t.db.integration.findUniqueOrThrow({ where });
      const moveTo = (hostname: string) => t.db.integration.update({ where, data: { properties: { ...(row.properties as object), hostname } } });
      await moveTo(attacker.url);

      const refused = { success: false, status: 'failed', message: 'not sent: token not saved for this destination; save it again' };
      expect((await t.api('post', `${base}/test`).expect(200)).body).toEqual(refused);
      await t.deps.events.publish('push', {
        projectId: project.id,
        userId: null,
        ref: 'refs/heads/main',
        before: '0'.repeat(40),
        after: 'a'.repeat(40),
        via: 'api',
      });
      await t.deps.jobs.drain({ ignoreDelays: true });
      expect(attacker.hits).toEqual([]);
      const deliveries = await t.db.integrationDelivery.findMany({ where: { integrationId: row.id }, orderBy: { id: 'asc' } });
      expect(deliveries.length).toBeGreaterThan(1);
      expect(new Set(deliveries.map((d) => d.error))).toEqual(new Set([refused.message]));
      // Nor may an update carry the token over: it does not open here, so it is missing.
      const u = await t.graphql(
        'mutation { integrationUpdate(input: { groupPath: "sealed", slug: "telegram", settings: { telegram: { room: "@x" } } }) { errors } }',
      );
      expect(u.body.data.integrationUpdate.errors).toEqual(['token is missing']);

      // Positive control: back at the host it was saved with, the same row sends again.
      await moveTo(owner.url);
      expect((await t.api('post', `${base}/test`).expect(200)).body).toMatchObject({ success: true, status: 'sent' });
      expect(owner.bodies.map((b) => b.url)).toEqual(['/botOWNER-TOKEN/sendMessage']);
      expect(attacker.hits).toEqual([]);
    } finally {
      await owner.close();
      await attacker.close();
    }
  });

  it('secrets saved before sealing still open where they are, and a sealed blob never opens as an old one', async () => {
    const { createCipheriv, hkdfSync, randomBytes } = await import('node:crypto');
    const { decryptSecrets, encryptSecrets } = await import('../src/modules/integrations/crypto.ts');
    const key = t.deps.secrets.tokenDigestKey;
    // The stored format before sealing: iv | tag | AES-256-GCM ciphertext, no associated data.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', key, 'forgegate', 'integration-secrets-v1', 32)), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ token: 'OLD' }), 'utf8'), cipher.final()]);
    const old = new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
    expect(decryptSecrets(key, old, 'telegram\nhttps://x')).toEqual({ token: 'OLD' });
    const sealed = encryptSecrets(key, { token: 'NEW' }, 'telegram\nhttps://x');
    expect(decryptSecrets(key, sealed, 'telegram\nhttps://x')).toEqual({ token: 'NEW' });
    expect(decryptSecrets(key, sealed, 'telegram\nhttps://y')).toBeNull();
    expect(decryptSecrets(key, sealed, '')).toBeNull();
  });
});

describe('integrations documentation', () => {
  it("the table in docs/integrations.md is the registry's (npm run docs:integrations)", async () => {
    const fs = await import('node:fs');
    const { withTable } = await import('../src/modules/integrations/docs.ts');
    const page = fs.readFileSync(new URL('../docs/integrations.md', import.meta.url), 'utf8');
    expect(withTable(page)).toBe(page);
    expect(page).toContain('`buildserver_url` string required http(s) URL alias `bamboo_url`');
  });
});
