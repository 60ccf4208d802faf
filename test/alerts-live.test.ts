// The live alert view: a GraphQL subscription over server-sent events, in one process and across
// two server processes sharing one database (LISTEN/NOTIFY).
import http from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, seedProject, type TestApp } from './helpers/app.ts';
import { listeningBase, startServerOnFreePort, stop } from './helpers/processes.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let integration: { token: string; path: string };

const SUBSCRIPTION = `subscription($p: ID!) { alertManagementAlertUpdated(projectPath: $p) { iid title status eventCount } }`;

type Event = {
  data?: { alertManagementAlertUpdated: { iid: string; title: string; status: string; eventCount: number } | null };
  errors?: { message: string; extensions?: { code?: string } }[];
};

/** An SSE subscription over real HTTP; resolves once the server has answered with its headers. */
function subscribe(baseUrl: string, token: string, query = SUBSCRIPTION, variables: Record<string, unknown> = { p: project.path_with_namespace }) {
  const events: Event[] = [];
  const waiters: (() => void)[] = [];
  let status = 0;
  let contentType = '';
  let req!: http.ClientRequest;
  const started = new Promise<void>((resolve, reject) => {
    req = http.request(`${baseUrl}/api/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...(token && { Authorization: `Bearer ${token}` }) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers['content-type']);
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (data) events.push(JSON.parse(data) as Event);
          for (const wake of waiters.splice(0)) wake();
        }
      });
      res.on('error', () => {});
      resolve();
    });
    req.end(JSON.stringify({ query, variables }));
  });
  return {
    started,
    events,
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    /** Waits (bounded by the test's timeout, not by a clock here) until `count` events arrived. */
    async until(count: number) {
      while (events.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return events;
    },
    close: () => req.destroy(),
  };
}

const postAlert = (body: unknown) =>
  request(t.base).post(integration.path).set('Authorization', `Bearer ${integration.token}`).set('Content-Type', 'application/json').send(JSON.stringify(body));

async function member(level: number) {
  const user = await t.user();
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: user.id, access_level: level }).expect(201);
  return user;
}

beforeAll(async () => {
  t = await createTestApp();
  ({ project } = await seedProject(t));
  const res = await t.graphql(
    `mutation($p: ID!) { httpIntegrationCreate(input: { projectPath: $p, name: "Live", active: true }) { integration { token url } errors } }`,
    {
      p: project.path_with_namespace,
    },
  );
  const created = res.body.data.httpIntegrationCreate.integration;
  integration = { token: created.token, path: new URL(created.url).pathname };
});
afterAll(async () => {
  await t?.close();
});

describe('alertManagementAlertUpdated (server-sent events)', () => {
  it('a Developer subscribed over HTTP receives an alert posted after the subscription started, then its changes', async () => {
    const dev = await member(30);
    const sub = subscribe(t.base, dev.token);
    await sub.started;
    expect(sub.status).toBe(200);
    expect(sub.contentType).toContain('text/event-stream');
    try {
      // An event carries the alert as it is when the event is delivered (as GitLab's do), so each
      // change waits for the previous one's event: on a busy machine two changes could otherwise
      // both be delivered showing the later state.
      const [posted] = (await postAlert({ title: 'Live one', fingerprint: 'live-1' }).expect(200)).body;
      await sub.until(1);
      await postAlert({ title: 'Live one', fingerprint: 'live-1' }).expect(200);
      await sub.until(2);
      await t.api('put', `/projects/${project.id}/alert_management/alerts/${posted.iid}`).send({ status: 'acknowledged' }).expect(200);
      const events = await sub.until(3);
      expect(events.map((e) => e.data?.alertManagementAlertUpdated)).toEqual([
        { iid: String(posted.iid), title: 'Live one', status: 'TRIGGERED', eventCount: 1 },
        { iid: String(posted.iid), title: 'Live one', status: 'TRIGGERED', eventCount: 2 },
        { iid: String(posted.iid), title: 'Live one', status: 'ACKNOWLEDGED', eventCount: 2 },
      ]);
    } finally {
      sub.close();
    }
  });

  it("streams only the subscribed project's alerts", async () => {
    const other = (await t.api('post', '/projects').send({ name: 'Other', path: 'other-live' }).expect(201)).body;
    const otherIntegration = (await t.api('post', `/projects/${other.id}/alert_management/http_integrations`).send({ name: 'o', active: true }).expect(201))
      .body;
    const sub = subscribe(t.base, t.root.token);
    await sub.started;
    try {
      await request(t.base)
        .post(new URL(otherIntegration.url).pathname)
        .set('Authorization', `Bearer ${otherIntegration.token}`)
        .send({ title: 'elsewhere' })
        .expect(200);
      await postAlert({ title: 'here' }).expect(200);
      const [event] = await sub.until(1);
      expect(event.data?.alertManagementAlertUpdated?.title).toBe('here');
    } finally {
      sub.close();
    }
  });

  it('a Reporter is refused, an outsider does not see the project, anonymous must sign in', async () => {
    const reporter = await member(20);
    const refused = subscribe(t.base, reporter.token);
    const [denied] = await refused.until(1);
    expect(denied.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(denied.data?.alertManagementAlertUpdated ?? null).toBeNull();
    refused.close();
    const outsider = await t.user();
    const hidden = subscribe(t.base, outsider.token);
    expect((await hidden.until(1))[0].errors?.[0]).toMatchObject({ message: 'Project not found', extensions: { code: 'NOT_FOUND' } });
    hidden.close();
    // The Reporter reads nothing through the list either: one rule for both.
    const list = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { alertManagementAlerts { nodes { iid } } } }`,
      { p: project.path_with_namespace },
      reporter.token,
    );
    expect(list.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    // Positive control: a Developer on the same route is answered with the stream.
    const dev = await member(30);
    const allowed = subscribe(t.base, dev.token);
    await allowed.started;
    await postAlert({ title: 'for the developer' }).expect(200);
    expect((await allowed.until(1))[0].data?.alertManagementAlertUpdated?.title).toBe('for the developer');
    allowed.close();
  });

  it('anonymous must sign in; a read_api token may subscribe', async () => {
    const anonymous = subscribe(t.base, '');
    const [refused] = await anonymous.until(1);
    expect(refused.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    anonymous.close();
    const readOnly = await t.token(t.root.id, ['read_api']);
    const sub = subscribe(t.base, readOnly);
    await sub.started;
    await postAlert({ title: 'read only' }).expect(200);
    expect((await sub.until(1))[0].data?.alertManagementAlertUpdated?.title).toBe('read only');
    sub.close();
  });
});

describe('two server processes on one database', () => {
  it('an alert posted to one process reaches a subscriber connected to the other', async () => {
    // PORT=0: the system picks the port, so no other test's server can take it first.
    const child = startServerOnFreePort('second server', {
      DATABASE_URL: t.databaseUrl,
      DATA_DIR: t.config.dataDir,
      TOKEN_DIGEST_KEY: t.deps.secrets.tokenDigestKey,
      EXTERNAL_URL,
      HOST: '127.0.0.1',
      JOB_WORKERS_IN_SERVER: 'false',
    });
    try {
      const second = await listeningBase(child, 60_000);
      // Subscribed to the second process; the alert goes to this (first) process.
      const sub = subscribe(second, t.root.token);
      await sub.started;
      expect(sub.status).toBe(200);
      const [posted] = (await postAlert({ title: 'Across processes' }).expect(200)).body;
      const [event] = await sub.until(1);
      expect(event.data?.alertManagementAlertUpdated).toMatchObject({ iid: String(posted.iid), title: 'Across processes', status: 'TRIGGERED' });
      sub.close();
      // And the other way round: posted to the second process, heard here.
      const local = subscribe(t.base, t.root.token);
      await local.started;
      const res = await fetch(`${second}${integration.path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${integration.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Back again' }),
      });
      expect(res.status).toBe(200);
      const [back] = await local.until(1);
      expect(back.data?.alertManagementAlertUpdated?.title).toBe('Back again');
      local.close();
    } finally {
      await stop(child, 'SIGTERM');
    }
  }, 90_000);
});
