// GitLab's alert management and alert settings screens, as their frontend queries them: our own
// documents selecting the fields GitLab's alert list, alert details page, alert sidebar and alert
// settings page select, with the same arguments and variable types (the fragments are written out
// here). Each asserts the data. Queries run through graphql-jit and Yoga's executor (same bytes).
// The shared user fragments' `webPath` and `status` are left out: they are gql-core's (issue 40).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
let dev: Awaited<ReturnType<TestApp['user']>>;
let reporter: Awaited<ReturnType<TestApp['user']>>;
let endpoint: { id: string; token: string; url: string };

async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*(#.*\n\s*)*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const gid = (className: string, id: number | string) => `gid://gitlab/${className}/${id}`;

const USER = 'id avatarUrl name username webUrl';
const NOTE = `id author { id state ${USER} } body bodyHtml createdAt discussion { id } systemNoteIconName`;
const LIST_ITEM = 'id iid title severity status startedAt eventCount issue { id iid state title webUrl }';
const DETAIL_ITEM = `${LIST_ITEM} createdAt monitoringTool service description updatedAt endedAt hosts
  environment { id name path } details runbook todos { nodes { id } } notes { nodes { ${NOTE} } }`;
const INTEGRATION_ITEM = 'id type active name url token apiUrl';
const HTTP_PAYLOAD_DATA = 'id payloadExample payloadAttributeMappings { fieldName path type label } payloadAlertFields { path label type }';

const GET_ALERTS = `
  # alert list (Monitor > Alerts): the table, with its tabs, search, assignee filter and pages
  query getAlerts($projectPath: ID!, $statuses: [AlertManagementStatus!], $sort: AlertManagementAlertSort, $firstPageSize: Int,
    $lastPageSize: Int, $prevPageCursor: String = "", $nextPageCursor: String = "", $searchTerm: String = "",
    $assigneeUsername: String = "", $domain: AlertManagementDomainFilter = operations) {
    project(fullPath: $projectPath) {
      alertManagementAlerts(search: $searchTerm, assigneeUsername: $assigneeUsername, statuses: $statuses, sort: $sort,
        first: $firstPageSize, last: $lastPageSize, after: $nextPageCursor, before: $prevPageCursor, domain: $domain) {
        nodes { ${LIST_ITEM} assignees { nodes { name username avatarUrl webUrl } } }
        pageInfo { hasNextPage endCursor hasPreviousPage startCursor }
      }
    }
  }`;

const COUNTS = `
  # alert list (Monitor > Alerts): the counts on the status tabs
  query getAlertsCount($searchTerm: String, $projectPath: ID!, $assigneeUsername: String = "") {
    project(fullPath: $projectPath) {
      id
      alertManagementAlertStatusCounts(search: $searchTerm, assigneeUsername: $assigneeUsername) { all open acknowledged resolved triggered }
    }
  }`;

const DETAILS = `
  # alert details page: the alert with its notes and the viewer's to-dos
  query alertDetails($fullPath: ID!, $alertId: String) {
    project(fullPath: $fullPath) { alertManagementAlerts(iid: $alertId) { nodes { ${DETAIL_ITEM} } } }
  }`;

const SIDEBAR = `
  # alert details page, sidebar: assignees, status, to-do
  query alertDetailsAssignees($fullPath: ID!, $alertId: String) {
    project(fullPath: $fullPath) { id alertManagementAlerts(iid: $alertId) { nodes { ${DETAIL_ITEM} assignees { nodes { ${USER} } } } } }
  }`;

const listVars = (extra: Record<string, unknown> = {}) => ({
  projectPath: project.path_with_namespace,
  firstPageSize: 20,
  lastPageSize: null,
  prevPageCursor: null,
  nextPageCursor: null,
  ...extra,
});

/** Posts a payload to the endpoint the way a monitoring tool does. */
const notify = (body: object) =>
  request(t.base)
    .post(new URL(endpoint.url).pathname)
    .set('Authorization', `Bearer ${endpoint.token}`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body))
    .expect(200)
    .then((res) => res.body[0] as { iid: number; title: string });

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  ({ project } = await seedProject(t));
  dev = await t.user('ana');
  reporter = await t.user('rey');
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: reporter.id, access_level: 20 }).expect(201);
});
afterAll(() => t?.close());

describe('alert settings documents', () => {
  it('createHttpIntegration: the new endpoint with its key, shown once', async () => {
    const data = await run(
      `# alert settings: add an HTTP endpoint
      mutation createHttpIntegration($projectPath: ID!, $name: String!, $active: Boolean!) {
        httpIntegrationCreate(input: { projectPath: $projectPath, name: $name, active: $active }) {
          errors integration { ${INTEGRATION_ITEM} ${HTTP_PAYLOAD_DATA} }
        }
      }`,
      { projectPath: project.path_with_namespace, name: 'Grafana', active: true },
    );
    const integration = data.httpIntegrationCreate.integration;
    expect(data.httpIntegrationCreate.errors).toEqual([]);
    expect(integration).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/gitlab\/AlertManagement::HttpIntegration\/\d+$/),
      type: 'HTTP',
      active: true,
      name: 'Grafana',
      apiUrl: null,
      token: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: expect.stringMatching(new RegExp(`^${EXTERNAL_URL}/${project.path_with_namespace}/alerts/notify/grafana/[0-9a-f]{16}\\.json$`)),
      payloadExample: null,
      payloadAttributeMappings: [],
      payloadAlertFields: [],
    });
    endpoint = integration;
  });

  it('createPrometheusIntegration, updatePrometheusIntegration and resetPrometheusIntegrationToken', async () => {
    const created = await run(
      `# alert settings: set up the Prometheus endpoint
      mutation createPrometheusIntegration($projectPath: ID!, $apiUrl: String!, $active: Boolean!) {
        prometheusIntegrationCreate(input: { projectPath: $projectPath, apiUrl: $apiUrl, active: $active }) { errors integration { ${INTEGRATION_ITEM} } }
      }`,
      { projectPath: project.path_with_namespace, apiUrl: 'http://prometheus.example', active: false },
    );
    const prometheus = created.prometheusIntegrationCreate.integration;
    expect(prometheus).toMatchObject({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Integrations::Prometheus\/\d+$/),
      type: 'PROMETHEUS',
      active: false,
      name: 'Prometheus',
      url: `${EXTERNAL_URL}/${project.path_with_namespace}/prometheus/alerts/notify.json`,
    });
    const updated = await run(
      `# alert settings: edit the Prometheus endpoint
      mutation updatePrometheusIntegration($id: IntegrationsPrometheusID!, $apiUrl: String!, $active: Boolean!) {
        prometheusIntegrationUpdate(input: { id: $id, apiUrl: $apiUrl, active: $active }) { errors integration { ${INTEGRATION_ITEM} } }
      }`,
      { id: prometheus.id, apiUrl: 'http://prometheus.example', active: true },
    );
    expect(updated.prometheusIntegrationUpdate).toEqual({ errors: [], integration: { ...prometheus, active: true, token: null } });
    const reset = await run(
      `# alert settings: reset the Prometheus endpoint's key
      mutation resetPrometheusIntegrationToken($id: IntegrationsPrometheusID!) {
        prometheusIntegrationResetToken(input: { id: $id }) { errors integration { ${INTEGRATION_ITEM} } }
      }`,
      { id: prometheus.id },
    );
    expect(reset.prometheusIntegrationResetToken.integration.token).toMatch(/^[0-9a-f]{32}$/);
    expect(reset.prometheusIntegrationResetToken.integration.token).not.toBe(prometheus.token);
  });

  it('getIntegrations: both kinds through the AlertManagementIntegration interface', async () => {
    const data = await run(
      `# alert settings: the list of endpoints
      query getIntegrations($projectPath: ID!) {
        project(fullPath: $projectPath) { id alertManagementIntegrations { nodes { __typename ${INTEGRATION_ITEM} } } }
      }`,
      { projectPath: project.path_with_namespace },
    );
    expect(data.project.id).toBe(gid('Project', project.id));
    expect(
      data.project.alertManagementIntegrations.nodes.map((i: { __typename: string; name: string; token: null }) => [i.__typename, i.name, i.token]),
    ).toEqual([
      ['AlertManagementHttpIntegration', 'Grafana', null],
      ['AlertManagementPrometheusIntegration', 'Prometheus', null],
    ]);
  });

  it('updateHttpIntegration with `$id: ID!` as the settings page sends it, and a sample payload with its mapping', async () => {
    const data = await run(
      `# alert settings: edit an HTTP endpoint
      mutation updateHttpIntegration($id: ID!, $name: String!, $active: Boolean!) {
        httpIntegrationUpdate(input: { id: $id, name: $name, active: $active }) { errors integration { ${INTEGRATION_ITEM} } }
      }`,
      { id: endpoint.id, name: 'Grafana prod', active: true },
    );
    expect(data.httpIntegrationUpdate).toMatchObject({ errors: [], integration: { id: endpoint.id, name: 'Grafana prod', active: true, token: null } });
    const sample = JSON.stringify({ alert: { name: 'Disk full', started: '2026-11-27T10:00:00Z', hosts: ['db1'] }, count: 3 });
    const mapped = await run(
      `# alert settings: save the custom mapping of an HTTP endpoint
      mutation updateHttpIntegration($id: ID!, $payloadExample: JsonString, $payloadAttributeMappings: [AlertManagementPayloadAlertFieldInput!]) {
        httpIntegrationUpdate(input: { id: $id, payloadExample: $payloadExample, payloadAttributeMappings: $payloadAttributeMappings }) {
          errors integration { ${HTTP_PAYLOAD_DATA} }
        }
      }`,
      {
        id: endpoint.id,
        payloadExample: sample,
        payloadAttributeMappings: [{ fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' }],
      },
    );
    expect(mapped.httpIntegrationUpdate.integration).toEqual({
      id: endpoint.id,
      payloadExample: sample,
      payloadAttributeMappings: [{ fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' }],
      payloadAlertFields: [
        { path: ['alert', 'name'], label: 'Name', type: 'STRING' },
        { path: ['alert', 'started'], label: 'Started', type: 'DATETIME' },
        { path: ['alert', 'hosts'], label: 'Hosts', type: 'ARRAY' },
      ],
    });
  });

  it('getHttpIntegration and getHttpIntegrations: one endpoint by id, the HTTP ones by default', async () => {
    const one = await run(
      `# alert settings: the endpoint being edited
      query getHttpIntegration($projectPath: ID!, $id: AlertManagementHttpIntegrationID!) {
        project(fullPath: $projectPath) { id alertManagementHttpIntegrations(id: $id, types: null) { nodes { ${HTTP_PAYLOAD_DATA} } } }
      }`,
      { projectPath: project.path_with_namespace, id: endpoint.id },
    );
    expect(one.project.alertManagementHttpIntegrations.nodes).toEqual([expect.objectContaining({ id: endpoint.id })]);
    const all = await run(
      `# alert settings: the HTTP endpoints
      query getHttpIntegrations($projectPath: ID!) {
        project(fullPath: $projectPath) { alertManagementHttpIntegrations { nodes { id } } }
      }`,
      { projectPath: project.path_with_namespace },
    );
    expect(all.project.alertManagementHttpIntegrations.nodes).toEqual([{ id: endpoint.id }]);
  });

  it('parsePayloadFields: the fields of a sample payload for the mapping builder', async () => {
    const data = await run(
      `# alert settings: the custom-mapping editor reads a sample payload
      query parsePayloadFields($projectPath: ID!, $payload: String!) {
        project(fullPath: $projectPath) { id alertManagementPayloadFields(payloadExample: $payload) { path label type } }
      }`,
      {
        projectPath: project.path_with_namespace,
        payload: JSON.stringify({ title: 'x', severity_level: 'high', labels: { env_name: 'prod' }, started_at: '2026-01-01T00:00:00Z', n: 1 }),
      },
    );
    expect(data.project.alertManagementPayloadFields).toEqual([
      { path: ['title'], label: 'Title', type: 'STRING' },
      { path: ['severity_level'], label: 'Severity level', type: 'STRING' },
      { path: ['labels', 'env_name'], label: 'Env name', type: 'STRING' },
      { path: ['started_at'], label: 'Started at', type: 'DATETIME' },
    ]);
    const bad = await t.graphql(
      `query($p: ID!, $payload: String!) { project(fullPath: $p) { alertManagementPayloadFields(payloadExample: $payload) { path } } }`,
      { p: project.path_with_namespace, payload: '{not json' },
    );
    expect(bad.body.errors[0].message).toBe('Failed to parse payload');
  });
});

describe('alert list, details and sidebar documents', () => {
  let first: { iid: number };
  let second: { iid: number };

  beforeAll(async () => {
    // The mapping saved above takes the title from alert.name.
    first = await notify({ alert: { name: 'Disk full' }, severity: 'high', monitoring_tool: 'Grafana', gitlab_environment_name: 'production', hosts: ['db1'] });
    second = await notify({ alert: { name: 'CPU hot' }, severity: 'low', service: 'api' });
  });

  it('getAlerts: the list with issue, assignees and page info', async () => {
    const data = await run(GET_ALERTS, listVars({ sort: 'SEVERITY_DESC' }));
    const { nodes, pageInfo } = data.project.alertManagementAlerts;
    expect(
      nodes.map((a: { iid: string; title: string; severity: string; status: string; eventCount: number; issue: null }) => [
        a.iid,
        a.title,
        a.severity,
        a.status,
        a.eventCount,
        a.issue,
      ]),
    ).toEqual([
      [String(first.iid), 'Disk full', 'HIGH', 'TRIGGERED', 1, null],
      [String(second.iid), 'CPU hot', 'LOW', 'TRIGGERED', 1, null],
    ]);
    expect(nodes[0]).toMatchObject({ id: expect.stringMatching(/^gid:\/\/gitlab\/AlertManagement::Alert\/\d+$/), assignees: { nodes: [] } });
    expect(pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('getAlerts in the threat monitoring domain is empty; operations is the default', async () => {
    const threat = await run(GET_ALERTS, listVars({ domain: 'threat_monitoring' }));
    expect(threat.project.alertManagementAlerts.nodes).toEqual([]);
    const operations = await run(GET_ALERTS, listVars({ domain: 'operations', searchTerm: 'disk' }));
    expect(operations.project.alertManagementAlerts.nodes.map((a: { title: string }) => a.title)).toEqual(['Disk full']);
  });

  it('getAlertsCount: counts by status, with the search', async () => {
    const data = await run(COUNTS, { projectPath: project.path_with_namespace, searchTerm: null });
    expect(data.project.alertManagementAlertStatusCounts).toEqual({ all: 2, open: 2, acknowledged: 0, resolved: 0, triggered: 2 });
    const searched = await run(COUNTS, { projectPath: project.path_with_namespace, searchTerm: 'cpu' });
    expect(searched.project.alertManagementAlertStatusCounts.all).toBe(1);
  });

  it('alertDetails: every detail, the environment as an object, and the note of its creation', async () => {
    const data = await run(DETAILS, { fullPath: project.path_with_namespace, alertId: String(first.iid) });
    const [alert] = data.project.alertManagementAlerts.nodes;
    expect(alert).toMatchObject({
      iid: String(first.iid),
      title: 'Disk full',
      monitoringTool: 'Grafana',
      hosts: ['db1'],
      environment: {
        id: expect.stringMatching(/^gid:\/\/gitlab\/Environment\/\d+$/),
        name: 'production',
        path: expect.stringMatching(/\/-\/environments\/\d+$/),
      },
      details: expect.objectContaining({ severity: 'high' }),
      todos: { nodes: [] },
    });
    expect(alert.notes.nodes).toEqual([
      {
        id: expect.stringMatching(/^gid:\/\/gitlab\/Note\/\d+$/),
        author: null,
        body: 'logged an alert from **Grafana**',
        bodyHtml: '<p>logged an alert from <strong>Grafana</strong></p>\n',
        createdAt: expect.any(String),
        discussion: { id: expect.stringMatching(/^gid:\/\/gitlab\/Discussion\/\d+$/) },
        systemNoteIconName: 'warning',
      },
    ]);
  });

  it('updateAlertStatus: the new status and the system note it writes', async () => {
    const data = await run(
      `# alert details page, sidebar: change the status
      mutation updateAlertStatus($projectPath: ID!, $status: AlertManagementStatus!, $iid: String!) {
        updateAlertStatus(input: { iid: $iid, status: $status, projectPath: $projectPath }) {
          errors alert { iid status endedAt notes { nodes { ${NOTE} } } }
        }
      }`,
      { projectPath: project.path_with_namespace, status: 'ACKNOWLEDGED', iid: String(first.iid) },
      dev.token,
    );
    const { alert, errors } = data.updateAlertStatus;
    expect(errors).toEqual([]);
    expect([alert.status, alert.endedAt]).toEqual(['ACKNOWLEDGED', null]);
    expect(alert.notes.nodes.at(-1)).toMatchObject({
      body: 'changed the status to **Acknowledged**',
      systemNoteIconName: 'status',
      author: { id: gid('User', dev.id), username: 'ana', state: 'active' },
    });
    const counts = await run(COUNTS, { projectPath: project.path_with_namespace, searchTerm: null });
    expect(counts.project.alertManagementAlertStatusCounts).toEqual({ all: 2, open: 2, acknowledged: 1, resolved: 0, triggered: 1 });
  });

  it('alertSetAssignees: the assignees as a connection and the note naming them', async () => {
    const data = await run(
      `# alert details page, sidebar: assign
      mutation alertSetAssignees($fullPath: ID!, $assigneeUsernames: [String!]!, $iid: String!) {
        issuableSetAssignees: alertSetAssignees(input: { iid: $iid, assigneeUsernames: $assigneeUsernames, projectPath: $fullPath }) {
          errors issuable: alert { id iid assignees { nodes { ${USER} } } notes { nodes { ${NOTE} } } }
        }
      }`,
      { fullPath: project.path_with_namespace, assigneeUsernames: ['ana'], iid: String(first.iid) },
      dev.token,
    );
    const { issuable, errors } = data.issuableSetAssignees;
    expect(errors).toEqual([]);
    expect(issuable.assignees.nodes).toEqual([{ id: gid('User', dev.id), avatarUrl: null, name: 'ANA', username: 'ana', webUrl: `${EXTERNAL_URL}/ana` }]);
    expect(issuable.notes.nodes.at(-1)).toMatchObject({ body: 'assigned to @ana', systemNoteIconName: 'user' });
  });

  it('alertDetailsAssignees and the list filtered by assignee, with its counts', async () => {
    const data = await run(SIDEBAR, { fullPath: project.path_with_namespace, alertId: String(first.iid) });
    expect(data.project.alertManagementAlerts.nodes[0].assignees.nodes.map((u: { username: string }) => u.username)).toEqual(['ana']);
    const mine = await run(GET_ALERTS, listVars({ assigneeUsername: 'ana' }));
    expect(mine.project.alertManagementAlerts.nodes.map((a: { iid: string }) => a.iid)).toEqual([String(first.iid)]);
    const counts = await run(COUNTS, { projectPath: project.path_with_namespace, searchTerm: null, assigneeUsername: 'ana' });
    expect(counts.project.alertManagementAlertStatusCounts).toEqual({ all: 1, open: 1, acknowledged: 1, resolved: 0, triggered: 0 });
  });

  it('createNote on an alert: a comment and a reply in its discussion', async () => {
    const CREATE_NOTE = `
      # alert details page, activity: comment
      mutation createNote($input: CreateNoteInput!) { createNote(input: $input) { errors note { ${NOTE} system } } }`;
    const alertGid = (await run(DETAILS, { fullPath: project.path_with_namespace, alertId: String(first.iid) })).project.alertManagementAlerts.nodes[0].id;
    const comment = (await run(CREATE_NOTE, { input: { noteableId: alertGid, body: 'Looking at **db1**' } }, dev.token)).createNote;
    expect(comment).toMatchObject({
      errors: [],
      note: {
        body: 'Looking at **db1**',
        bodyHtml: '<p>Looking at <strong>db1</strong></p>\n',
        system: false,
        systemNoteIconName: null,
        author: { username: 'ana' },
      },
    });
    const reply = (await run(CREATE_NOTE, { input: { noteableId: alertGid, body: 'Freed 10 GB', discussionId: comment.note.discussion.id } }, dev.token))
      .createNote;
    expect(reply.note.discussion.id).toBe(comment.note.discussion.id);
    const blank = (await run(CREATE_NOTE, { input: { noteableId: alertGid, body: '  ' } }, dev.token)).createNote;
    expect(blank).toEqual({ errors: ["Note can't be blank"], note: null });
    // A Reporter cannot triage alerts, so cannot comment on them.
    const refused = await t.graphql(CREATE_NOTE, { input: { noteableId: alertGid, body: 'hi' } }, reporter.token);
    expect(refused.body.data.createNote).toBeNull();
    expect(refused.body.errors).toHaveLength(1);
    const details = await run(DETAILS, { fullPath: project.path_with_namespace, alertId: String(first.iid) });
    expect(details.project.alertManagementAlerts.nodes[0].notes.nodes.map((n: { body: string }) => n.body)).toEqual([
      'logged an alert from **Grafana**',
      'changed the status to **Acknowledged**',
      'assigned to @ana',
      'Looking at **db1**',
      'Freed 10 GB',
    ]);
  });

  it('alertTodoCreate, then todoMarkDone: the sidebar to-do button both ways', async () => {
    const TODO = `
      # alert details page, sidebar: add a to-do
      mutation alertTodoCreate($projectPath: ID!, $iid: String!) {
        alertTodoCreate(input: { iid: $iid, projectPath: $projectPath }) { errors alert { ${DETAIL_ITEM} } todo { id state targetType project { id } } }
      }`;
    const vars = { projectPath: project.path_with_namespace, iid: String(second.iid) };
    const created = (await run(TODO, vars, dev.token)).alertTodoCreate;
    expect(created.errors).toEqual([]);
    expect(created.todo).toEqual({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Todo\/\d+$/),
      state: 'pending',
      targetType: 'ALERT',
      project: { id: gid('Project', project.id) },
    });
    expect(created.alert.todos.nodes).toEqual([{ id: created.todo.id }]);
    // To-dos are the viewer's own: root sees none on the alert.
    const asRoot = await run(DETAILS, { fullPath: project.path_with_namespace, alertId: String(second.iid) });
    expect(asRoot.project.alertManagementAlerts.nodes[0].todos.nodes).toEqual([]);
    const again = (await run(TODO, vars, dev.token)).alertTodoCreate;
    expect(again).toMatchObject({ errors: ['You already have pending todo for this alert'], todo: null });
    const done = await run(
      `# alert details page, sidebar: mark the to-do done
      mutation markAsDone($id: TodoID!) { todoMarkDone(input: { id: $id }) { errors todo { id state } } }`,
      { id: created.todo.id },
      dev.token,
    );
    expect(done.todoMarkDone).toEqual({ errors: [], todo: { id: created.todo.id, state: 'done' } });
    const after = await run(SIDEBAR, { fullPath: project.path_with_namespace, alertId: String(second.iid) }, dev.token);
    expect(after.project.alertManagementAlerts.nodes[0].todos.nodes).toEqual([]);
    // Someone else's to-do is not found.
    const foreign = await t.graphql(`mutation($id: TodoID!) { todoMarkDone(input: { id: $id }) { errors } }`, { id: created.todo.id }, reporter.token);
    expect(foreign.body.errors).toHaveLength(1);
  });

  it('createAlertIssue: the incident once, then GitLab\'s "An issue already exists"; the list shows the issue', async () => {
    const CREATE_ISSUE = `
      # alert details page: create incident
      mutation createAlertIssue($projectPath: ID!, $iid: String!) {
        createAlertIssue(input: { iid: $iid, projectPath: $projectPath }) { errors issue { iid } }
      }`;
    const vars = { projectPath: project.path_with_namespace, iid: String(second.iid) };
    const created = (await run(CREATE_ISSUE, vars, dev.token)).createAlertIssue;
    expect(created).toEqual({ errors: [], issue: { iid: expect.stringMatching(/^\d+$/) } });
    expect((await run(CREATE_ISSUE, vars, dev.token)).createAlertIssue).toEqual({ errors: ['An issue already exists'], issue: null });
    const list = await run(GET_ALERTS, listVars({ searchTerm: 'cpu' }));
    expect(list.project.alertManagementAlerts.nodes[0].issue).toEqual({
      id: expect.stringMatching(/^gid:\/\/gitlab\/Issue\/\d+$/),
      iid: created.issue.iid,
      state: 'opened',
      title: 'CPU hot',
      webUrl: `${EXTERNAL_URL}/${project.path_with_namespace}/-/issues/${created.issue.iid}`,
    });
    const notes = (await run(DETAILS, { fullPath: project.path_with_namespace, alertId: String(second.iid) })).project.alertManagementAlerts.nodes[0].notes
      .nodes;
    expect(notes.at(-1)).toMatchObject({ body: `created incident #${created.issue.iid} for this alert`, systemNoteIconName: 'issues' });
  });
});

describe('statements per page', () => {
  it('the alert list with notes, assignees, to-dos, environment and issue costs the same for 2 alerts and for 12 (positive control first)', async () => {
    const page = () =>
      t.graphql(
        `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts(first: 100) { nodes { ${DETAIL_ITEM} webUrl assignees { nodes { username } }
          discussions { nodes { id notes { nodes { id } } } } commenters { nodes { username } } } } } }`,
        { p: project.path_with_namespace },
        dev.token,
      );
    await expectCounterSees(t, page);
    const few = await countQueries(t, page);
    for (let i = 0; i < 10; i++) {
      const alert = await notify({ alert: { name: `counted ${i}` }, gitlab_environment_name: `env ${i % 3}` });
      await t.graphql(`mutation($input: AlertSetAssigneesInput!) { alertSetAssignees(input: $input) { errors } }`, {
        input: { projectPath: project.path_with_namespace, iid: String(alert.iid), assigneeUsernames: ['ana'] },
      });
      await t.graphql(
        `mutation($input: AlertTodoCreateInput!) { alertTodoCreate(input: $input) { errors } }`,
        {
          input: { projectPath: project.path_with_namespace, iid: String(alert.iid) },
        },
        dev.token,
      );
    }
    const many = await countQueries(t, page);
    expect((await page()).body.data.project.alertManagementAlerts.nodes).toHaveLength(12);
    expect(many).toBe(few);
  });
});

describe('alert settings documents that remove', () => {
  it('resetHttpIntegrationToken, then destroyHttpIntegration', async () => {
    const reset = await run(
      `# alert settings: reset an HTTP endpoint's key
      mutation resetHttpIntegrationToken($id: ID!) { httpIntegrationResetToken(input: { id: $id }) { errors integration { ${INTEGRATION_ITEM} } } }`,
      { id: endpoint.id },
    );
    expect(reset.httpIntegrationResetToken.integration.token).toMatch(/^[0-9a-f]{32}$/);
    expect(reset.httpIntegrationResetToken.integration.token).not.toBe(endpoint.token);
    const destroyed = await run(
      `# alert settings: delete an HTTP endpoint
      mutation destroyHttpIntegration($id: ID!) { httpIntegrationDestroy(input: { id: $id }) { errors integration { ${INTEGRATION_ITEM} } } }`,
      { id: endpoint.id },
    );
    expect(destroyed.httpIntegrationDestroy).toMatchObject({ errors: [], integration: { id: endpoint.id, name: 'Grafana prod' } });
    const list = await run(`query($p: ID!) { project(fullPath: $p) { alertManagementIntegrations { nodes { type } } } }`, { p: project.path_with_namespace });
    expect(list.project.alertManagementIntegrations.nodes).toEqual([{ type: 'PROMETHEUS' }]);
    // An id of another class is refused, whatever type the variable says.
    const wrong = await t.graphql(`mutation($id: ID!) { httpIntegrationDestroy(input: { id: $id }) { errors } }`, { id: gid('Project', project.id) });
    expect(wrong.body.data.httpIntegrationDestroy.errors).toEqual([expect.stringContaining('is not a valid AlertManagementHttpIntegrationID')]);
  });
});

describe('authorization and cost of the new fields', () => {
  it('a Reporter reads no alerts, notes or endpoints; a stranger does not see the project', async () => {
    const asReporter = await t.graphql(DETAILS, { fullPath: project.path_with_namespace, alertId: '1' }, reporter.token);
    expect(asReporter.body.data.project.alertManagementAlerts).toBeNull();
    const settings = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { alertManagementIntegrations { nodes { id } } } }`,
      { p: project.path_with_namespace },
      dev.token,
    );
    expect(settings.body.data.project.alertManagementIntegrations).toBeNull();
    const fields = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { alertManagementPayloadFields(payloadExample: "{}") { path } } }`,
      { p: project.path_with_namespace },
      dev.token,
    );
    expect(fields.body.data.project.alertManagementPayloadFields).toBeNull();
    const stranger = await t.user('stranger');
    const hidden = await t.graphql(DETAILS, { fullPath: project.path_with_namespace, alertId: '1' }, stranger.token);
    expect(hidden.body.data.project).toBeNull();
  });

  it('counts the notes, discussions, assignees and to-dos connections in the complexity limit', async () => {
    const block = (alias: string) => `${alias}: discussions(first: 100) { nodes { notes(first: 100) { nodes { id body author { id username } } } } }`;
    const nested = (aliases: string[]) => `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts(first: 100) { nodes {
      ${aliases.map(block).join(' ')} assignees(first: 100) { nodes { id } } todos(first: 100) { nodes { id } } } } } }`;
    const small = await t.graphql(nested(['a1']), { p: project.path_with_namespace }, dev.token);
    expect(small.body.errors).toBeUndefined();
    const big = await t.graphql(nested(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']), { p: project.path_with_namespace }, dev.token);
    expect(big.body.errors[0].message).toMatch(/^Query has complexity of \d+, which exceeds max complexity of 250$/);
  });
});
