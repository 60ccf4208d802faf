// Alerts beyond intake: test alerts, e-mail on new alerts, every severity alias, the endpoint URL's
// name segment, assignees and incidents from alerts, list filters over REST and GraphQL, and the
// list's query count.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let group: { id: number };

const CREATE = `mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { integration { id name active token url } errors } }`;

async function endpoint(name: string, active = true, projectPath = project.path_with_namespace) {
  const res = await t.graphql(CREATE, { input: { projectPath, name, active } });
  expect(res.body.data.httpIntegrationCreate.errors).toEqual([]);
  const integration = res.body.data.httpIntegrationCreate.integration;
  return { ...integration, numericId: Number(integration.id.split('/').pop()), path: new URL(integration.url).pathname as string };
}

const post = (path: string, token: string, body: unknown) =>
  request(t.base).post(path).set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(JSON.stringify(body));

async function member(level: number) {
  const user = await t.user();
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: user.id, access_level: level }).expect(201);
  return user;
}

const metricsBody = (alerts: unknown[]) => ({
  version: '4',
  groupKey: 'g',
  status: 'firing',
  receiver: 'r',
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://am',
  alerts,
});

beforeAll(async () => {
  t = await createTestApp();
  ({ project, group } = await seedProject(t));
});
afterAll(() => t?.close());

describe('test alerts (Maintainer and above, with a JSON payload)', () => {
  const TEST = `mutation($input: AlertManagementAlertTestInput!) { alertManagementAlertTest(input: $input) { alerts { iid title severity eventCount } errors } }`;

  it('REST and GraphQL send a test alert through the endpoint; the same payload groups', async () => {
    const e = await endpoint('Tested');
    const maintainer = await member(40);
    const rest = await t
      .api('post', `/projects/${project.id}/alert_management/integrations/${e.numericId}/test_alert`, maintainer.token)
      .send({ payload: JSON.stringify({ title: 'Test alert', severity: 'low', fingerprint: 'test-1' }) })
      .expect(201);
    expect(rest.headers['content-type']).toMatch(/^application\/json/);
    expect(rest.body).toEqual([expect.objectContaining({ title: 'Test alert', severity: 'low', event_count: 1, status: 'triggered' })]);
    const gql = await t.graphql(
      TEST,
      { input: { projectPath: project.path_with_namespace, integrationId: e.id, payload: JSON.stringify({ title: 'Test alert', fingerprint: 'test-1' }) } },
      maintainer.token,
    );
    expect(gql.body.data.alertManagementAlertTest).toEqual({
      alerts: [{ iid: String(rest.body[0].iid), title: 'Test alert', severity: 'LOW', eventCount: 2 }],
      errors: [],
    });
  });

  // The test stands in for the endpoint's key, which only those who manage the endpoints hold.
  it.each([
    ['a Guest', 10, 403],
    ['a Reporter', 20, 403],
    ['a Developer', 30, 403],
    ['a non-member', 0, 404],
    ['a Maintainer', 40, 201],
    ['an Owner', 50, 201],
    ['an administrator', -1, 201],
  ] as const)('answers %s over REST and GraphQL alike; only a Maintainer and above make an alert', async (_who, level, status) => {
    const e = await endpoint(`Matrix ${level}`);
    const viewer = level === -1 ? t.root : level === 0 ? await t.user() : await member(level);
    const title = `matrix-${level}`;
    const rest = await t
      .api('post', `/projects/${project.id}/alert_management/integrations/${e.numericId}/test_alert`, viewer.token)
      .send({ payload: JSON.stringify({ title, fingerprint: `rest-${level}` }) })
      .expect(status);
    if (status === 403) expect(rest.body).toEqual({ message: '403 Forbidden' });
    if (status === 404) expect(rest.body).toEqual({ message: '404 Project Not Found' });
    const gql = await t.graphql(
      TEST,
      { input: { projectPath: project.path_with_namespace, integrationId: e.id, payload: JSON.stringify({ title, fingerprint: `gql-${level}` }) } },
      viewer.token,
    );
    const code = { 403: 'FORBIDDEN', 404: 'NOT_FOUND', 201: undefined }[status];
    expect(gql.body.errors?.[0]?.extensions?.code).toBe(code);
    expect(await t.db.alert.count({ where: { projectId: project.id, title } })).toBe(status === 201 ? 2 : 0);
  });

  it('a metrics-format payload makes one alert per element; bad or blank JSON, an inactive endpoint, another project: clear 4xx', async () => {
    const created = await t.graphql(
      `mutation($p: ID!) { prometheusIntegrationCreate(input: { projectPath: $p, active: true }) { integration { id } errors } }`,
      {
        p: project.path_with_namespace,
      },
    );
    const promId = Number(created.body.data.prometheusIntegrationCreate.integration.id.split('/').pop());
    const payload = JSON.stringify(
      metricsBody([
        { startsAt: '2024-05-01T00:00:00Z', labels: { alertname: 'TestA', severity: 'p3' } },
        { startsAt: '2024-05-01T00:00:00Z', annotations: { title: 'TestB' } },
      ]),
    );
    const res = await t.api('post', `/projects/${project.id}/alert_management/integrations/${promId}/test_alert`).send({ payload }).expect(201);
    expect(res.body.map((a: { title: string; severity: string; monitoring_tool: string }) => [a.title, a.severity, a.monitoring_tool])).toEqual([
      ['TestA', 'medium', 'Prometheus'],
      ['TestB', 'critical', 'Prometheus'],
    ]);

    const e = await endpoint('TestedBad');
    const url = `/projects/${project.id}/alert_management/integrations/${e.numericId}/test_alert`;
    expect((await t.api('post', url).send({ payload: '{not json' }).expect(400)).body.message.payload[0]).toMatch(/valid json/);
    expect((await t.api('post', url).send({ payload: '[1,2]' }).expect(400)).body.message.payload[0]).toMatch(/valid json/);
    expect((await t.api('post', url).send({ payload: '  ' }).expect(400)).body).toEqual({ message: { payload: ["can't be blank"] } });
    await t.api('post', url).send({}).expect(400, { error: 'payload is missing' });
    expect(
      (await t.api('post', url).send({ payload: '{"end_time":"2024-01-01T00:00:00Z","fingerprint":"none"}' }).expect(400)).body.message.payload[0],
    ).toMatch(/no alert/);
    const off = await endpoint('TestedOff', false);
    await t
      .api('post', `/projects/${project.id}/alert_management/integrations/${off.numericId}/test_alert`)
      .send({ payload: '{}' })
      .expect(400, { message: { integration: ['is not active'] } });
    const other = (await t.api('post', '/projects').send({ name: 'Elsewhere', path: 'elsewhere-test' }).expect(201)).body;
    await t
      .api('post', `/projects/${other.id}/alert_management/integrations/${e.numericId}/test_alert`)
      .send({ payload: '{}' })
      .expect(404, { message: '404 Integration Not Found' });
  });
});

describe('send_email', () => {
  it("a new alert e-mails the project's Maintainers and Owners (a job), not Developers; grouping sends nothing more", async () => {
    const maintainer = await member(40);
    const dev = await member(30);
    const groupOwner = await t.user();
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: groupOwner.id, access_level: 50 }).expect(201);
    const e = await endpoint('Mailed');
    // Off: nothing is sent (the control for the assertion below).
    await post(e.path, e.token, { title: 'Quiet alert' }).expect(200);
    await t.deps.jobs.drain();
    expect(await t.db.email.count({ where: { subject: { contains: 'Quiet alert' } } })).toBe(0);

    await t.api('put', `/projects/${project.id}/alert_management/settings`).send({ send_email: true }).expect(200);
    try {
      await post(e.path, e.token, { title: 'Disk almost full', severity: 'high', fingerprint: 'mail-1', service: 'db' }).expect(200);
      await post(e.path, e.token, { title: 'Disk almost full', fingerprint: 'mail-1' }).expect(200);
      await t.deps.jobs.drain();
      const outbox = (await t.api('get', `/admin/emails?to=${encodeURIComponent(maintainer.email)}`).expect(200)).body;
      const mails = outbox.filter((m: { subject: string }) => m.subject.includes('Disk almost full'));
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe(`${project.path_with_namespace} | Alert: Disk almost full`);
      expect(mails[0].text).toContain('Severity: high');
      expect(mails[0].text).toContain('Service: db');
      expect(mails[0].to).toEqual(expect.arrayContaining([maintainer.email, groupOwner.email]));
      expect(mails[0].to).not.toContain(dev.email);
    } finally {
      await t.api('put', `/projects/${project.id}/alert_management/settings`).send({ send_email: false }).expect(200);
    }
  });
});

describe('payload rules', () => {
  // The spec's severity sets, each alias in mixed case, for both payload kinds.
  const ALIASES: [string, string[]][] = [
    ['critical', ['critical', 's1', 'p1', 'emergency', 'fatal']],
    ['high', ['high', 's2', 'p2', 'major', 'page']],
    ['medium', ['medium', 's3', 'p3', 'error', 'alert']],
    ['low', ['low', 's4', 'p4', 'warn', 'warning', 'minor']],
    ['info', ['info', 's5', 'p5', 'debug', 'information', 'notice']],
  ];
  const mixed = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

  it('metrics format: every alias of every severity set (case-insensitive); unknown values are critical', async () => {
    const created = await t.graphql(
      `mutation($p: ID!) { prometheusIntegrationCreate(input: { projectPath: $p, active: true }) { integration { token url } errors } }`,
      {
        p: 'acme/severities',
      },
    );
    // A project of its own (one metrics endpoint per project).
    expect(created.body.data.prometheusIntegrationCreate).toBeNull();
    const own = (await t.api('post', '/projects').send({ name: 'Severities', path: 'severities', namespace_id: group.id }).expect(201)).body;
    const prom = (await t.api('post', `/projects/${own.id}/alert_management/prometheus_integration`).send({ active: true }).expect(201)).body;
    const cases = [...ALIASES.flatMap(([severity, values]) => values.map((v) => [mixed(v), severity])), ['nonsense', 'critical'], ['unknown', 'critical']];
    const alerts = cases.map(([value], i) => ({ startsAt: '2024-01-01T00:00:00Z', labels: { alertname: `sev-${i}`, severity: value } }));
    await post(new URL(prom.url).pathname, prom.token, metricsBody(alerts)).expect(201);
    const stored = await t.db.alert.findMany({ where: { projectId: own.id }, select: { title: true, severity: true } });
    const byTitle = new Map(stored.map((a) => [a.title, a.severity]));
    expect(cases.map(([value], i) => [value, byTitle.get(`sev-${i}`)])).toEqual(cases.map(([value, severity]) => [value, severity]));
  });

  it('generic payload: the six severity names in any case; metrics aliases and unknown values are critical', async () => {
    const e = await endpoint('Severities');
    const cases: [string, string][] = [
      ['Critical', 'critical'],
      ['HIGH', 'high'],
      ['medium', 'medium'],
      ['Low', 'low'],
      ['INFO', 'info'],
      ['Unknown', 'unknown'],
      ['p2', 'critical'],
      ['warning', 'critical'],
      ['', 'critical'],
    ];
    for (const [value, severity] of cases) {
      const [alert] = (await post(e.path, e.token, { title: `generic severity ${value}`, severity: value }).expect(200)).body;
      const stored = await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, iid: alert.iid } });
      expect([value, stored.severity]).toEqual([value, severity]);
    }
  });

  it("the URL's name segment is the endpoint's name made URL-safe, and any segment there reaches the endpoint", async () => {
    const e = await endpoint('Prod  Alerts / EU #1');
    expect(e.path).toMatch(new RegExp(`^/${project.path_with_namespace}/alerts/notify/prod-alerts-eu-1/[0-9a-f]{16}\\.json$`));
    // The identifier finds the endpoint; the name segment is decoration (GitLab's route ignores it).
    await post(e.path.replace('/prod-alerts-eu-1/', '/renamed/'), e.token, { title: 'by identifier' }).expect(200);
    // Without .json too.
    await post(e.path.replace(/\.json$/, ''), e.token, { title: 'no suffix' }).expect(200);
  });
});

describe('triage', () => {
  const ASSIGN = `mutation($input: AlertSetAssigneesInput!) { alertSetAssignees(input: $input) { alert { iid assignees { nodes { username } } } errors } }`;
  const ISSUE = `mutation($input: AlertCreateIssueInput!) { createAlertIssue(input: $input) { alert { iid issue { iid } } issue { iid title state type } errors } }`;

  it('alertSetAssignees replaces, appends and removes; a Reporter cannot', async () => {
    const e = await endpoint('Assign');
    const [alert] = (await post(e.path, e.token, { title: 'assign me' }).expect(200)).body;
    const a = await member(30);
    const b = await member(30);
    const input = (usernames: string[], operationMode?: string) => ({
      input: { projectPath: project.path_with_namespace, iid: String(alert.iid), assigneeUsernames: usernames, ...(operationMode && { operationMode }) },
    });
    const names = (res: { body: { data: { alertSetAssignees: { alert: { assignees: { nodes: { username: string }[] } } } } } }) =>
      res.body.data.alertSetAssignees.alert.assignees.nodes.map((u) => u.username).sort();
    expect(names(await t.graphql(ASSIGN, input([a.username])))).toEqual([a.username]);
    expect(names(await t.graphql(ASSIGN, input([b.username], 'APPEND')))).toEqual([a.username, b.username].sort());
    expect(names(await t.graphql(ASSIGN, input([a.username], 'REMOVE')))).toEqual([b.username]);
    expect(names(await t.graphql(ASSIGN, input([a.username], 'REPLACE'), a.token))).toEqual([a.username]);
    const rest = (await t.api('get', `/projects/${project.id}/alert_management/alerts/${alert.iid}`).expect(200)).body;
    expect(rest.assignees.map((u: { username: string }) => u.username)).toEqual([a.username]);
    // Filter by assignee.
    const filtered = await t.graphql(`query($p: ID!, $u: String) { project(fullPath: $p) { alertManagementAlerts(assigneeUsername: $u) { nodes { iid } } } }`, {
      p: project.path_with_namespace,
      u: a.username,
    });
    expect(filtered.body.data.project.alertManagementAlerts.nodes).toEqual([{ iid: String(alert.iid) }]);
    const reporter = await member(20);
    const refused = await t.graphql(ASSIGN, input([reporter.username]), reporter.token);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.db.alertAssignee.findMany({ where: { alert: { iid: alert.iid, projectId: project.id } } })).map((x) => x.userId)).toEqual([a.id]);
  });

  it('createAlertIssue opens an incident once; the second call reports it exists', async () => {
    const e = await endpoint('Incident');
    const [alert] = (await post(e.path, e.token, { title: 'needs an incident', description: 'what broke' }).expect(200)).body;
    const input = { input: { projectPath: project.path_with_namespace, iid: String(alert.iid) } };
    const first = (await t.graphql(ISSUE, input)).body.data.createAlertIssue;
    expect(first.errors).toEqual([]);
    expect(first.issue).toMatchObject({ title: 'needs an incident', state: 'opened', type: 'INCIDENT' });
    expect(first.alert.issue.iid).toBe(first.issue.iid);
    const issue = await t.db.issue.findFirstOrThrow({ where: { projectId: project.id, iid: Number(first.issue.iid) } });
    expect(issue.description).toContain('what broke');
    const second = (await t.graphql(ISSUE, input)).body.data.createAlertIssue;
    expect(second).toMatchObject({ issue: null, errors: ['An issue already exists'] });
    expect(await t.db.issue.count({ where: { projectId: project.id, title: 'needs an incident' } })).toBe(1);
  });
});

describe('alert list', () => {
  it('REST and GraphQL give the same alerts for every filter and sort', async () => {
    const own = (await t.api('post', '/projects').send({ name: 'Twin', path: 'twin', namespace_id: group.id }).expect(201)).body;
    const e = await endpoint('Twin', true, own.path_with_namespace);
    const posted = [
      { title: 'db slow', severity: 'high', service: 'postgres', fingerprint: 't1' },
      { title: 'disk', severity: 'low', description: 'db volume', fingerprint: 't2' },
      { title: 'cpu', severity: 'high', fingerprint: 't3' },
      { title: 'mem', severity: 'info', fingerprint: 't4' },
    ];
    for (const p of posted) await post(e.path, e.token, p).expect(200);
    await post(e.path, e.token, { fingerprint: 't3' }).expect(200); // cpu: 2 events
    await t.api('put', `/projects/${own.id}/alert_management/alerts/4`).send({ status: 'resolved' }).expect(200);
    const cases: { rest: string; gql: Record<string, unknown>; expected: string[] }[] = [
      { rest: 'severity=high', gql: { severities: ['HIGH'] }, expected: ['cpu', 'db slow'] },
      { rest: 'status=resolved', gql: { statuses: ['RESOLVED'] }, expected: ['mem'] },
      { rest: 'search=db', gql: { search: 'db' }, expected: ['disk', 'db slow'] },
      { rest: 'sort=event_count_desc', gql: { sort: 'EVENT_COUNT_DESC' }, expected: ['cpu', 'mem', 'disk', 'db slow'] },
      // Ascending severity is least critical first (GitLab); ties by id.
      { rest: 'sort=severity_asc&status=triggered', gql: { sort: 'SEVERITY_ASC', statuses: ['TRIGGERED'] }, expected: ['disk', 'db slow', 'cpu'] },
      { rest: 'sort=severity_desc', gql: { sort: 'SEVERITY_DESC' }, expected: ['cpu', 'db slow', 'disk', 'mem'] },
      // Ascending status is ignored/resolved first.
      { rest: 'sort=status_asc', gql: { sort: 'STATUS_ASC' }, expected: ['mem', 'db slow', 'disk', 'cpu'] },
      { rest: 'sort=created_time_asc', gql: { sort: 'CREATED_TIME_ASC' }, expected: ['db slow', 'disk', 'cpu', 'mem'] },
    ];
    for (const c of cases) {
      const rest = (await t.api('get', `/projects/${own.id}/alert_management/alerts?${c.rest}`).expect(200)).body.map((a: { title: string }) => a.title);
      const gql = await t.graphql(
        `query($p: ID!, $statuses: [AlertManagementStatus!], $severities: [AlertManagementSeverity!], $search: String, $sort: AlertManagementAlertSort) {
          project(fullPath: $p) { alertManagementAlerts(statuses: $statuses, severities: $severities, search: $search, sort: $sort) { nodes { title } } } }`,
        { p: own.path_with_namespace, ...c.gql },
      );
      const titles = gql.body.data.project.alertManagementAlerts.nodes.map((n: { title: string }) => n.title);
      expect({ filter: c.rest, rest }).toEqual({ filter: c.rest, rest: c.expected });
      expect({ filter: c.rest, gql: titles }).toEqual({ filter: c.rest, gql: c.expected });
    }
    await t.api('get', `/projects/${own.id}/alert_management/alerts?severity=bogus`).expect(400);
  });

  it('the list costs the same number of queries for 2 alerts and for 22 (positive control first)', async () => {
    const own = (await t.api('post', '/projects').send({ name: 'Counted', path: 'counted', namespace_id: group.id }).expect(201)).body;
    const e = await endpoint('Counted', true, own.path_with_namespace);
    const assignee = await t.user();
    const list = () => t.api('get', `/projects/${own.id}/alert_management/alerts?per_page=100`).expect(200);
    const addAlerts = async (n: number, from: number) => {
      for (let i = from; i < from + n; i++) {
        const [a] = (await post(e.path, e.token, { title: `counted ${i}` }).expect(200)).body;
        await t.graphql(`mutation($input: AlertSetAssigneesInput!) { alertSetAssignees(input: $input) { errors } }`, {
          input: { projectPath: own.path_with_namespace, iid: String(a.iid), assigneeUsernames: [assignee.username] },
        });
      }
      // An incident on one of them, so the issue relation is read too.
      await t.graphql(`mutation($input: AlertCreateIssueInput!) { createAlertIssue(input: $input) { errors } }`, {
        input: { projectPath: own.path_with_namespace, iid: String(from) },
      });
    };
    await addAlerts(2, 1);
    await expectCounterSees(t, list);
    const few = await countQueries(t, list);
    await addAlerts(20, 3);
    const many = await countQueries(t, list);
    expect((await list()).body).toHaveLength(22);
    expect(many).toBe(few);
  });
});

describe('generic endpoint: Prometheus-tool payloads and environments', () => {
  it('monitoring_tool "Prometheus" reads the payload as one Prometheus alert: its title, severity aliases, fingerprint, resolution', async () => {
    const e = await endpoint('PromTool');
    const alert = {
      monitoring_tool: 'Prometheus',
      startsAt: '2024-06-01T00:00:00Z',
      annotations: { title: 'From the tool', runbook: 'http://runbook' },
      labels: { severity: 'warning', gitlab_environment_name: 'production' },
      generatorURL: 'http://prom/graph?g0.expr=up%3D%3D0',
    };
    const [created] = (await post(e.path, e.token, alert).expect(200)).body;
    expect(created.title).toBe('From the tool');
    const stored = await t.db.alert.findFirstOrThrow({ where: { projectId: project.id, iid: created.iid } });
    expect([stored.severity, stored.environment, stored.runbook, stored.monitoringTool]).toEqual(['low', 'production', 'http://runbook', 'Prometheus']);
    const { createHash } = await import('node:crypto');
    expect(stored.fingerprint).toBe(createHash('sha1').update('2024-06-01T00:00:00Z/From the tool/up==0').digest('hex'));
    // The same alert again groups; status resolved resolves it.
    expect((await post(e.path, e.token, alert).expect(200)).body[0].iid).toBe(created.iid);
    await post(e.path, e.token, { ...alert, status: 'resolved' }).expect(200);
    expect((await t.db.alert.findUniqueOrThrow({ where: { id: stored.id } })).status).toBe('resolved');
    // Control: the same body without the tool is a generic alert (default title, generic severity rule).
    const [generic] = (await post(e.path, e.token, { ...alert, monitoring_tool: 'Other' }).expect(200)).body;
    expect(generic.title).toBe('New: Alert');
    // A Prometheus-tool payload without a title makes nothing: 400.
    const res = await post(e.path, e.token, { monitoring_tool: 'Prometheus', startsAt: '2024-06-01T00:00:00Z' });
    expect([res.status, res.text]).toEqual([400, '']);
  });

  it('gitlab_environment_name is kept as the alert environment (REST and GraphQL)', async () => {
    const e = await endpoint('Envs');
    const [created] = (await post(e.path, e.token, { title: 'env alert', gitlab_environment_name: 'staging' }).expect(200)).body;
    expect((await t.api('get', `/projects/${project.id}/alert_management/alerts/${created.iid}`).expect(200)).body.environment).toBe('staging');
    const gql = await t.graphql(`query($p: ID!, $iid: String!) { project(fullPath: $p) { alertManagementAlert(iid: $iid) { environment { name path } } } }`, {
      p: project.path_with_namespace,
      iid: String(created.iid),
    });
    expect(gql.body.data.project.alertManagementAlert.environment).toEqual({
      name: 'staging',
      path: expect.stringMatching(new RegExp(`^/${project.path_with_namespace}/-/environments/\\d+$`)),
    });
  });
});
