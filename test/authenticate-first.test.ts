// Routes whose GitLab API authenticates before it looks anything up answer an anonymous request
// 401, even on a private group or project (not the 404 of an invisible one); the others still hide
// private groups and projects behind 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../src/kernel.ts';
import { openApiPaths } from '../src/rest/openapi.ts';
import type { Route } from '../src/rest/route.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let group: { id: number };
let project: { id: number };
let publicGroup: { id: number };
let publicProject: { id: number };
let outsider: { id: number; token: string };

beforeAll(async () => {
  t = await createTestApp();
  group = (await t.api('post', '/groups').send({ name: 'Hidden', path: 'hidden', visibility: 'private' }).expect(201)).body;
  project = (
    await t.api('post', '/projects').send({ name: 'Hidden app', namespace_id: group.id, visibility: 'private', initialize_with_readme: true }).expect(201)
  ).body;
  publicGroup = (await t.api('post', '/groups').send({ name: 'Open', path: 'open', visibility: 'public' }).expect(201)).body;
  publicProject = (
    await t.api('post', '/projects').send({ name: 'Open app', namespace_id: publicGroup.id, visibility: 'public', initialize_with_readme: true }).expect(201)
  ).body;
  outsider = await t.user('outsider');
});
afterAll(() => t.close());

/**
 * GitLab's APIs that authenticate first, each with the `before` block that does it. `writes`:
 * `authenticate_non_get!`, every method but GET and HEAD.
 */
const GITLAB: { source: string; paths: RegExp; writes?: true }[] = [
  { source: 'lib/api/access_requests.rb: before { authenticate! }', paths: /^\/(groups|projects)\/:id\/access_requests/ },
  { source: 'lib/api/members.rb: before { authenticate! }', paths: /^\/(groups|projects)\/:id\/members/ },
  { source: 'lib/api/labels.rb, lib/api/group_labels.rb: before { authenticate! }', paths: /^\/(groups|projects)\/:id\/labels/ },
  { source: 'lib/api/project_milestones.rb, lib/api/group_milestones.rb: before { authenticate! }', paths: /^\/(groups|projects)\/:id\/milestones/ },
  { source: 'lib/api/integrations.rb (groups): before { authenticate! }', paths: /^\/groups\/:id\/integrations/ },
  { source: 'lib/api/group_placeholder_reassignments.rb: before { authenticate!; … user_group }', paths: /^\/groups\/:id\/placeholder_reassignments/ },
  {
    source: 'lib/api/project_packages_protection_rules.rb: after_validation { authenticate!; authorize_admin_package! }',
    paths: /^\/projects\/:id\/packages\/protection\/rules/,
  },
  {
    source: 'lib/api/projects.rb: before { authenticate_non_get! }',
    paths: /^\/projects(\/:id(\/(housekeeping|fork|transfer|star|unstar|archive|unarchive))?)?$/,
    writes: true,
  },
  { source: 'lib/api/project_snapshots.rb: authorize_read_git_snapshot! (authenticated_with_can_read_all_resources!)', paths: /^\/projects\/:id\/snapshot$/ },
  { source: 'lib/api/commit_statuses.rb: before { authenticate! }', paths: /^\/projects\/:id\/(statuses\/:sha|repository\/commits\/:sha\/statuses)$/ },
  { source: 'lib/api/groups.rb: before { authenticate_non_get! }', paths: /^\/groups(\/:id(\/(share|transfer)(\/:group_id)?)?)?$/, writes: true },
  { source: 'lib/api/namespaces.rb: before { authenticate! }', paths: /^\/namespaces/ },
  { source: 'lib/api/users.rb, resource :users: before { authenticate_non_get! }', paths: /^\/users(\/:user_id)?$/, writes: true },
  { source: 'lib/api/users.rb, resource :user: before { authenticate! }', paths: /^\/user(\/|$)/ },
  { source: 'lib/api/users.rb: authenticated_as_admin! (tokens of a user)', paths: /^\/users\/:user_id\/(personal_access_tokens|impersonation_tokens)/ },
  {
    source: 'lib/api/users.rb: authenticated_as_admin! (state actions, memberships)',
    paths: /^\/users\/:user_id\/(block|unblock|ban|unban|deactivate|activate|memberships)$/,
  },
  { source: 'lib/api/personal_access_tokens.rb: before { authenticate! }', paths: /^\/personal_access_tokens/ },
  { source: 'lib/api/features.rb: before { authenticated_as_admin! }', paths: /^\/features/ },
  { source: 'lib/api/sidekiq_metrics.rb: before { authenticated_as_admin! }', paths: /^\/(sidekiq|jobqueue)\// },
  { source: 'lib/api/settings.rb: before { authenticated_as_admin! }', paths: /^\/application\/settings/ },
  { source: 'lib/api/version.rb, lib/api/metadata.rb: before { authenticate! }', paths: /^\/(version|metadata)$/ },
  { source: 'ee/lib/api/experiments.rb: before { authorize_read_experiments! }', paths: /^\/experiments/ },
  { source: 'lib/api/todos.rb: before { authenticate! }', paths: /^\/todos/ },
  { source: 'lib/api/bulk_imports.rb: before { authenticate! }', paths: /^\/bulk_imports/ },
  { source: 'ee/lib/api/epics.rb: authenticate_non_get!; ee todos (before { authenticate! })', paths: /^\/groups\/:id(\/-)?\/epics/, writes: true },
  // Forgegate's own administrator routes, as every GitLab /admin API (authenticated_as_admin!).
  { source: 'forgegate admin routes', paths: /^\/admin\// },
];

const READS = ['GET', 'HEAD'];
const gitlabSource = (route: Route) => GITLAB.find((g) => g.paths.test(route.path) && !(g.writes && READS.includes(route.method)))?.source;

/** The route's path with its variables filled: the private group or project, a user, anything else. */
function requestPath(route: Route, ids: { group: number; project: number }): string {
  return openApiPaths(route.path)[0].replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'id') return String(route.path.startsWith('/groups') ? ids.group : ids.project);
    if (name === 'user_id') return String(outsider.id);
    return name === 'slug' ? 'slack' : '1';
  });
}

const anonymously = (route: Route, path: string) => t.api(route.method.toLowerCase() as 'get', path, null);

describe('routes that authenticate first', () => {
  it('are exactly those whose GitLab API authenticates first, declared on the route', () => {
    const declared = restRoutes.filter((r) => r.authenticate).map((r) => `${r.method} ${r.path}`);
    const gitlab = restRoutes.filter((r) => gitlabSource(r)).map((r) => `${r.method} ${r.path}`);
    expect(declared).toEqual(gitlab);
    // The three routes the issue names, and one of each kind of declaration.
    for (const route of [
      'GET /groups/:id/integrations',
      'GET /groups/:id/placeholder_reassignments',
      'GET /projects/:id/packages/protection/rules',
      'POST /projects',
      'GET /user',
    ]) {
      expect(declared).toContain(route);
    }
    expect(declared).not.toContain('GET /projects/:id');
    expect(declared).not.toContain('GET /groups/:id/epics');
  });

  it('answer an anonymous request 401 on a private group or project, before looking it up', async () => {
    const flagged = restRoutes.filter((r) => r.authenticate);
    const wrong: string[] = [];
    for (const route of flagged) {
      const res = await anonymously(route, requestPath(route, { group: group.id, project: project.id }));
      const body = route.method === 'HEAD' ? null : res.body;
      if (res.status !== 401 || (body && JSON.stringify(body) !== '{"message":"401 Unauthorized"}'))
        wrong.push(`${route.method} ${route.path} → ${res.status} ${JSON.stringify(body)}`);
    }
    expect(wrong).toEqual([]);
    expect(flagged.length).toBeGreaterThan(60);
  });

  it('answer 401 on the routes found answering 404 (#37): group integrations, placeholder reassignments, package protection rules', async () => {
    for (const path of [
      `/groups/${group.id}/integrations`,
      `/groups/${group.id}/placeholder_reassignments`,
      `/projects/${project.id}/packages/protection/rules`,
    ]) {
      await t.api('get', path, null).expect(401, { message: '401 Unauthorized' });
    }
    await t.api('get', `/groups/${group.id}/access_requests`, null).expect(401, { message: '401 Unauthorized' });
    await t.api('put', `/projects/${project.id}`, null).send({ description: 'x' }).expect(401, { message: '401 Unauthorized' });
  });

  it('look the group or project up for a signed-in viewer: an outsider gets 404, a member the answer', async () => {
    for (const path of [
      `/groups/${group.id}/integrations`,
      `/groups/${group.id}/placeholder_reassignments`,
      `/projects/${project.id}/packages/protection/rules`,
      `/projects/${project.id}/members`,
    ]) {
      await t.api('get', path, outsider.token).expect(404);
    }
    await t.api('get', `/groups/${group.id}/integrations`).expect(200);
    await t.api('get', `/projects/${project.id}/packages/protection/rules`).expect(200);
  });

  it('answer anonymous requests 401 even on a public project or group (GitLab authenticates every route of these APIs)', async () => {
    await t.api('get', `/projects/${publicProject.id}/members`, null).expect(401, { message: '401 Unauthorized' });
    await t.api('get', `/groups/${publicGroup.id}/milestones`, null).expect(401, { message: '401 Unauthorized' });
    await t.api('get', `/projects/${publicProject.id}/labels`, null).expect(401, { message: '401 Unauthorized' });
  });

  it('a bad token is still the invalid-credential 401, before the route', async () => {
    await t.api('get', `/groups/${group.id}/integrations`, 'glpat-not-a-real-token').expect(401, { message: '401 Unauthorized' });
  });
});

describe('routes GitLab does not authenticate first', () => {
  it('hide a private group or project from anonymous requests behind 404', async () => {
    await t.api('get', `/projects/${project.id}`, null).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `/groups/${group.id}`, null).expect(404, { message: '404 Group Not Found' });
    await t.api('get', `/projects/${project.id}/releases`, null).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `/projects/${project.id}/repository/files/README.md?ref=main`, null).expect(404, { message: '404 Project Not Found' });
    await t.api('get', `/groups/${group.id}/epics`, null).expect(404, { message: '404 Group Not Found' });
  });

  it('serve public ones to anonymous requests', async () => {
    await t.api('get', `/projects/${publicProject.id}`, null).expect(200);
    await t.api('get', `/groups/${publicGroup.id}`, null).expect(200);
    await t.api('get', `/projects/${publicProject.id}/releases`, null).expect(200);
    await t.api('get', `/groups/${publicGroup.id}/epics`, null).expect(200);
  });
});
