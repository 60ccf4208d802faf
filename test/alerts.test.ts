import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };

const CREATE = `mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { integration { id name active token url } errors } }`;

async function endpoint(name: string, active = true) {
  const res = await t.graphql(CREATE, { input: { projectPath: project.path_with_namespace, name, active } });
  expect(res.body.errors).toBeUndefined();
  const integration = res.body.data.httpIntegrationCreate.integration;
  return { ...integration, path: new URL(integration.url).pathname as string };
}

const post = (path: string, token: string | null, body: unknown) => {
  const r = request(t.base).post(path).set('Content-Type', 'application/json');
  return (token ? r.set('Authorization', `Bearer ${token}`) : r).send(typeof body === 'string' ? body : JSON.stringify(body));
};

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
});
afterAll(() => t?.close());

describe('alert intake: the reference table (§14.5)', () => {
  it('generic JSON with the right Bearer key on an active endpoint: 200 [{iid, title}]', async () => {
    const e = await endpoint('Main');
    expect(e.path).toMatch(new RegExp(`^/${project.path_with_namespace}/alerts/notify/main/[0-9a-f]{16}\\.json$`));
    await post(e.path, e.token, { title: 'Disk full' }).expect(200, [{ iid: 1, title: 'Disk full' }]);
  });

  it('Basic auth with a blank user and the key as password: 200', async () => {
    const e = await endpoint('Basic');
    const res = await request(t.base)
      .post(e.path)
      .set('Authorization', `Basic ${Buffer.from(`:${e.token}`).toString('base64')}`)
      .send({ title: 'b' });
    expect(res.status).toBe(200);
    expect(res.body[0].title).toBe('b');
  });

  it('wrong or missing key: 401 with an empty body', async () => {
    const e = await endpoint('Keyed');
    const wrong = await post(e.path, 'nope', { title: 'x' });
    expect([wrong.status, wrong.text]).toEqual([401, '']);
    const missing = await post(e.path, null, { title: 'x' });
    expect([missing.status, missing.text]).toEqual([401, '']);
  });

  it('inactive endpoint or unknown identifier: 403 with an empty body', async () => {
    const e = await endpoint('Off', false);
    const inactive = await post(e.path, e.token, { title: 'x' });
    expect([inactive.status, inactive.text]).toEqual([403, '']);
    const unknown = await post(e.path.replace(/[0-9a-f]{16}\.json$/, '0000000000000000.json'), e.token, { title: 'x' });
    expect([unknown.status, unknown.text]).toEqual([403, '']);
  });

  it('payload over 1 MB or nested deeper than 100: 400 with an empty body', async () => {
    const e = await endpoint('Limits');
    const big = await post(e.path, e.token, { title: 'big', blob: 'x'.repeat(1024 * 1024) });
    expect([big.status, big.text]).toEqual([400, '']);
    let deep: unknown = 1;
    for (let i = 0; i < 101; i++) deep = { d: deep };
    const tooDeep = await post(e.path, e.token, deep);
    expect([tooDeep.status, tooDeep.text]).toEqual([400, '']);
    let ok: unknown = 1;
    for (let i = 0; i < 99; i++) ok = { d: ok };
    expect((await post(e.path, e.token, ok)).status).toBe(200);
    // PostgreSQL cannot store a NUL character: refused like any bad payload, nothing created.
    const before = await t.db.alert.count();
    const nul = await post(e.path, e.token, { title: 'nul', labels: { host: 'a\u0000b' } });
    expect([nul.status, nul.text]).toEqual([400, '']);
    expect(await t.db.alert.count()).toBe(before);
  });

  it('end_time with no matching open fingerprint: 400, nothing created', async () => {
    const e = await endpoint('Resolve');
    const before = await t.db.alert.count();
    const res = await post(e.path, e.token, { title: 'r', fingerprint: 'never-seen', end_time: '2024-01-01T00:00:00Z' });
    expect([res.status, res.text]).toEqual([400, '']);
    expect(await t.db.alert.count()).toBe(before);
  });

  it('the same fingerprint twice: 200 both times, the same iid, event count 2', async () => {
    const e = await endpoint('Group');
    const first = await post(e.path, e.token, { title: 'cpu', fingerprint: 'fp-1' }).expect(200);
    const second = await post(e.path, e.token, { title: 'cpu again', fingerprint: 'fp-1' }).expect(200);
    expect(second.body).toEqual(first.body);
    const alert = (await t.api('get', `/projects/${project.id}/alert_management/alerts/${first.body[0].iid}`).expect(200)).body;
    expect(alert.event_count).toBe(2);
  });

  it('an Alertmanager v4 body: 201 with an empty body, one alert per element', async () => {
    const created = await t.graphql(
      `mutation($p: ID!) { prometheusIntegrationCreate(input: { projectPath: $p, active: true }) { integration { token url } errors } }`,
      {
        p: project.path_with_namespace,
      },
    );
    const { token, url } = created.body.data.prometheusIntegrationCreate.integration;
    expect(new URL(url).pathname).toBe(`/${project.path_with_namespace}/prometheus/alerts/notify.json`);
    const body = {
      version: '4',
      groupKey: 'g',
      status: 'firing',
      receiver: 'r',
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://am',
      alerts: [
        {
          status: 'firing',
          startsAt: '2024-01-01T00:00:00Z',
          labels: { alertname: 'HighLoad', severity: 'P2' },
          annotations: { runbook: 'http://rb' },
          generatorURL: 'http://prom/graph?g0.expr=up%3D%3D0',
        },
        { status: 'firing', startsAt: '2024-01-01T00:00:00Z', labels: { severity: 'warning' }, annotations: { title: 'Titled' } },
        { status: 'firing', labels: { alertname: 'NoStart' } },
      ],
    };
    const res = await post(new URL(url).pathname, token, body);
    expect([res.status, res.text]).toEqual([201, '']);
    const high = await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, title: 'HighLoad' } });
    expect([high.severity, high.monitoringTool, high.runbook]).toEqual(['high', 'Prometheus', 'http://rb']);
    expect((await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, title: 'Titled' } })).severity).toBe('low');
    expect(await t.db.alert.count({ where: { projectId: project.id, title: 'NoStart' } })).toBe(0);
    // The same alert resolved: the alert is resolved, not a new one.
    const resolved = { ...body, status: 'resolved', alerts: [{ ...body.alerts[0], status: 'resolved', endsAt: '2024-01-01T01:00:00Z' }] };
    await post(new URL(url).pathname, token, resolved).expect(201);
    expect((await t.db.alert.findUniqueOrThrow({ where: { id: high.id } })).status).toBe('resolved');
  });
});

describe('alert intake rate limit', () => {
  it('over the per-endpoint limit in the current minute: 429, counted in PostgreSQL', async () => {
    const e = await endpoint('Limited');
    const other = await endpoint('Unlimited');
    const limit = t.deps.config.alertIntakeRateLimit;
    t.deps.config.alertIntakeRateLimit = 2;
    // The window is the calendar minute (date_trunc('minute', now())): requests that straddle a
    // minute's end count in two windows, so start with at least five seconds of this one left.
    const msLeft = 60_000 - (Date.now() % 60_000);
    if (msLeft < 5_000) await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
    try {
      await post(e.path, e.token, {}).expect(200);
      await post(e.path, e.token, {}).expect(200);
      const over = await post(e.path, e.token, {});
      expect([over.status, over.text]).toEqual([429, '']);
      // Another endpoint has its own counter.
      await post(other.path, other.token, {}).expect(200);
    } finally {
      t.deps.config.alertIntakeRateLimit = limit;
    }
  });
});

describe('alert state machine and payload rules', () => {
  it('defaults, severities, hosts, details; resolve then re-open makes a new alert', async () => {
    const e = await endpoint('Rules');
    const [created] = (await post(e.path, e.token, { severity: 'HIGH', hosts: 'web-1', fingerprint: ['a', ['b', 1]], extra: { nested: true } }).expect(200))
      .body;
    expect(created.title).toBe('New: Alert');
    const stored = await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, iid: created.iid } });
    expect([stored.severity, stored.hosts]).toEqual(['high', ['web-1']]);
    expect(stored.fingerprint).toBe(createHash('sha1').update('ab1').digest('hex'));
    expect(stored.payload).toMatchObject({ extra: { nested: true } });
    await post(e.path, e.token, { severity: 'bogus', fingerprint: 42, title: 'num' }).expect(200);
    const num = await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, title: 'num' } });
    expect([num.severity, num.fingerprint]).toEqual(['critical', createHash('sha1').update('42').digest('hex')]);
    // Resolve, then the same fingerprint opens a new alert.
    const [resolved] = (await post(e.path, e.token, { fingerprint: ['a', ['b', 1]], end_time: '2030-01-01T00:00:00Z' }).expect(200)).body;
    expect(resolved.iid).toBe(created.iid);
    const [again] = (await post(e.path, e.token, { fingerprint: ['a', ['b', 1]] }).expect(200)).body;
    expect(again.iid).not.toBe(created.iid);
  });

  it('100 identical alerts posted at once: one open alert with 100 events', async () => {
    const e = await endpoint('Storm');
    const results = await Promise.all(Array.from({ length: 100 }, () => post(e.path, e.token, { title: 'storm', fingerprint: 'storm-1' })));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    const open = await t.db.alert.findMany({ where: { projectId: project.id, fingerprint: { not: null }, title: 'storm', status: { not: 'resolved' } } });
    expect(open).toHaveLength(1);
    expect(open[0].events).toBe(100);
    expect(new Set(results.map((r) => r.body[0].iid))).toEqual(new Set([open[0].iid]));
  });

  it('with generic_alert_fingerprinting, payloads differing only in start_time and hosts group', async () => {
    const e = await endpoint('Derived');
    await post(e.path, e.token, { title: 'same', start_time: '2024-01-01T00:00:00Z', hosts: ['a'] }).expect(200);
    await post(e.path, e.token, { title: 'same', start_time: '2024-01-02T00:00:00Z', hosts: ['b'] }).expect(200);
    // Flag off: no fingerprint, two alerts (positive control).
    expect(await t.db.alert.count({ where: { projectId: project.id, title: 'same' } })).toBe(2);
    await t.deps.flags.set('generic_alert_fingerprinting', { enabled: true });
    try {
      const [a] = (await post(e.path, e.token, { title: 'derived', start_time: '2024-01-01T00:00:00Z', hosts: ['a'], x: { b: 1, a: 2 } }).expect(200)).body;
      const [b] = (await post(e.path, e.token, { x: { a: 2, b: 1 }, title: 'derived', start_time: '2024-02-01T00:00:00Z', hosts: 'b' }).expect(200)).body;
      expect(b.iid).toBe(a.iid);
      const [c] = (await post(e.path, e.token, { title: 'derived', x: { a: 3, b: 1 } }).expect(200)).body;
      expect(c.iid).not.toBe(a.iid);
    } finally {
      await t.deps.flags.set('generic_alert_fingerprinting', { enabled: false });
    }
  });
});

describe('alert endpoints, triage and incidents', () => {
  it('the key is shown once: the list has no token, the stored value is a digest', async () => {
    const e = await endpoint('Once');
    expect(e.token).toMatch(/^[0-9a-f]{32}$/);
    const list = (await t.api('get', `/projects/${project.id}/alert_management/integrations`).expect(200)).body;
    const listed = list.find((i: { name: string }) => i.name === 'Once');
    expect(listed.token).toBeNull();
    const row = await t.db.alertIntegration.findFirstOrThrow({ where: { name: 'Once' } });
    expect(row.tokenDigest).not.toContain(e.token);
    const reset = (await t.api('post', `/projects/${project.id}/alert_management/http_integrations/${listed.id}/reset_token`).expect(200)).body;
    expect(reset.token).not.toBe(e.token);
    expect((await post(e.path, e.token, {})).status).toBe(401);
    expect((await post(e.path, reset.token, {})).status).toBe(200);
  });

  it('a developer may not create an endpoint; names are unique', async () => {
    const dev = await t.user();
    await t.api('post', `/projects/${project.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
    await t.api('post', `/projects/${project.id}/alert_management/http_integrations`, dev.token).send({ name: 'Dev' }).expect(403);
    await t
      .api('post', `/projects/${project.id}/alert_management/http_integrations`)
      .send({ name: 'Main' })
      .expect(400, { message: { name: ['has already been taken'] } });
  });

  it('lists every endpoint, as GitLab does, past the page of 100 GraphQL answers', async () => {
    const many = (await t.api('post', '/projects').send({ name: 'Many endpoints' }).expect(201)).body;
    const names = Array.from({ length: 101 }, (_, i) => `Endpoint ${String(i).padStart(3, '0')}`);
    await t.db.alertIntegration.createMany({
      data: names.map((name, i) => ({
        projectId: many.id,
        type: 'http' as const,
        name,
        endpointIdentifier: i.toString(16).padStart(16, '0'),
        tokenDigest: 'x',
      })),
    });
    const listed = (await t.api('get', `/projects/${many.id}/alert_management/integrations`).expect(200)).body;
    expect(listed.map((i: { name: string }) => i.name)).toEqual(names);
    const res = await t.graphql(`{ project(fullPath: "${many.path_with_namespace}") { alertManagementIntegrations(first: 500) { nodes { name } } } }`);
    expect(res.body.data.project.alertManagementIntegrations.nodes).toHaveLength(100);
  });

  it('lists with filters over REST, the same as GraphQL; status changes', async () => {
    const e = await endpoint('Triage');
    await post(e.path, e.token, { title: 'triage me', severity: 'high', fingerprint: 'triage' }).expect(200);
    await post(e.path, e.token, { title: 'low one', severity: 'low' }).expect(200);
    const list = await t.api('get', `/projects/${project.id}/alert_management/alerts?severity=high&per_page=50`).expect(200);
    expect(list.body.length).toBeGreaterThan(0);
    expect(list.body.every((a: { severity: string }) => a.severity === 'high')).toBe(true);
    expect(list.body.some((a: { title: string }) => a.title === 'low one')).toBe(false);
    const gql = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts(severities: [HIGH], first: 50) { nodes { iid } } alertManagementAlertStatusCounts { all open resolved } } }`,
      {
        p: project.path_with_namespace,
      },
    );
    expect(gql.body.data.project.alertManagementAlerts.nodes.map((n: { iid: string }) => Number(n.iid))).toEqual(list.body.map((a: { iid: number }) => a.iid));
    const iid = list.body.find((a: { title: string }) => a.title === 'triage me').iid;
    const put = await t.api('put', `/projects/${project.id}/alert_management/alerts/${iid}`).send({ status: 'acknowledged' });
    expect([put.status, put.body]).toMatchObject([200, {}]);
    const changed = put.body;
    expect(changed.status).toBe('acknowledged');
  });

  it('settings: a new alert opens an incident (job); recovery closes it', async () => {
    await t.api('put', `/projects/${project.id}/alert_management/settings`).send({ create_incident: true, auto_close_incident: true }).expect(200, {
      create_incident: true,
      send_email: false,
      auto_close_incident: true,
    });
    const e = await endpoint('Incidents');
    const [alert] = (await post(e.path, e.token, { title: 'DB down', fingerprint: 'db', description: 'primary gone' }).expect(200)).body;
    await t.deps.jobs.drain();
    const withIssue = (await t.api('get', `/projects/${project.id}/alert_management/alerts/${alert.iid}`).expect(200)).body;
    expect(withIssue.issue_iid).toBe(1);
    const issue = await t.db.issue.findFirstOrThrow({ where: { projectId: project.id, iid: 1 } });
    expect([issue.issueType, issue.title, issue.state]).toEqual(['incident', 'DB down', 'opened']);
    expect(issue.description).toContain('primary gone');
    await post(e.path, e.token, { fingerprint: 'db', end_time: new Date().toISOString() }).expect(200);
    await t.deps.jobs.drain();
    expect((await t.db.issue.findUniqueOrThrow({ where: { id: issue.id } })).state).toBe('closed');
  });
});
