// Issue 40: to-dos on both interfaces. GitLab's Todos API (GET /todos, POST /todos/:id/mark_as_done,
// POST /todos/mark_as_done) and its GraphQL twin (CurrentUser.todos, todosMarkAllDone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, EXTERNAL_URL, expectCounterSees, type TestApp } from './helpers/app.ts';
import { gitbeaker } from './helpers/gitbeaker.ts';

let t: TestApp;
let acme: { id: number; full_path: string };
let alice: Awaited<ReturnType<TestApp['user']>>;

/** A new epic in acme as root, marked as root's to-do; answers the to-do's REST entity. */
async function epicTodo(title: string) {
  const epic = (await t.api('post', `/groups/${acme.id}/epics`).send({ title }).expect(201)).body;
  return (await t.api('post', `/groups/${acme.id}/epics/${epic.iid}/todo`).expect(201)).body;
}

const todoIds = async (query = '', as: string | null = t.root.token) =>
  (await t.api('get', `/todos${query}`, as).expect(200)).body.map((todo: { id: number }) => todo.id);

beforeAll(async () => {
  t = await createTestApp();
  acme = (await t.api('post', '/groups').send({ name: 'acme', path: 'acme', visibility: 'public' }).expect(201)).body;
  alice = await t.user('alice');
});
afterAll(() => t.close());

describe('GET /todos', () => {
  it("answers the viewer's pending to-dos, newest first, as GitLab's entity, and filters them", async () => {
    const first = await epicTodo('First');
    const second = await epicTodo('Second');
    const res = await t.api('get', '/todos').expect(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-total']).toBe('2');
    expect(res.body.map((todo: { id: number }) => todo.id)).toEqual([second.id, first.id]);
    const [todo] = res.body;
    expect(todo).toMatchObject({
      id: second.id,
      project: null,
      group: { id: acme.id, name: 'acme', path: 'acme', full_path: 'acme', kind: 'group' },
      author: { username: 'root' },
      action_name: 'marked',
      target_type: 'Epic',
      target: { title: 'Second', group_id: acme.id },
      target_url: `${EXTERNAL_URL}/groups/acme/-/epics/${todo.target.iid}`,
      body: 'Second',
      state: 'pending',
    });
    expect(await todoIds('?type=Epic')).toEqual([second.id, first.id]);
    expect(await todoIds('?type=AlertManagement::Alert')).toEqual([]);
    expect(await todoIds(`?group_id=${acme.id}&action=marked&author_id=${t.root.id}`)).toEqual([second.id, first.id]);
    expect(await todoIds(`?group_id=${acme.id + 1000}`)).toEqual([]);
    expect(await todoIds('?state=done')).toEqual([]);
    // Another user's list holds none of root's to-dos.
    expect(await todoIds('', alice.token)).toEqual([]);
    await t.api('get', '/todos?state=later').expect(400);
  });

  it("lists an alert's to-do with its project, filtered by type and project", async () => {
    const project = (await t.api('post', '/projects').send({ name: 'Ops', namespace_id: acme.id }).expect(201)).body;
    // The alert itself is seeded: how alerts arrive is the alerts tests' subject.
    await t.db.alert.create({ data: { projectId: project.id, iid: 1, title: 'Disk full', startedAt: new Date() } });
    const made = await t.graphql(
      `mutation { alertTodoCreate(input: { projectPath: "${project.path_with_namespace}", iid: "1" }) { todo { databaseId } errors } }`,
    );
    const id = made.body.data.alertTodoCreate.todo.databaseId;
    const [todo] = (await t.api('get', '/todos?type=AlertManagement::Alert').expect(200)).body;
    expect(todo).toMatchObject({
      id,
      project: { id: project.id, name: 'Ops', path: project.path, path_with_namespace: project.path_with_namespace },
      group: null,
      target_type: 'AlertManagement::Alert',
      state: 'pending',
    });
    expect(await todoIds(`?project_id=${project.id}`)).toEqual([id]);
    await t.api('post', `/todos/${id}/mark_as_done`).expect(201);
  });

  it('answers 401 to anonymous requests on every route', async () => {
    await t.api('get', '/todos', null).expect(401);
    await t.api('post', '/todos/1/mark_as_done', null).expect(401);
    await t.api('post', '/todos/mark_as_done', null).expect(401);
  });
});

describe('POST /todos/:id/mark_as_done', () => {
  it("marks the viewer's own to-do done (201, the to-do) and answers 404 for another user's", async () => {
    const todo = await epicTodo('Done one');
    await t.api('post', `/todos/${todo.id}/mark_as_done`, alice.token).expect(404);
    await t.api('post', '/todos/999999/mark_as_done').expect(404);
    expect((await t.api('get', '/todos').expect(200)).body.map((x: { id: number }) => x.id)).toContain(todo.id);
    const res = await t.api('post', `/todos/${todo.id}/mark_as_done`).expect(201);
    expect(res.body).toMatchObject({ id: todo.id, state: 'done', body: 'Done one', target_type: 'Epic' });
    expect(await todoIds()).not.toContain(todo.id);
    expect(await todoIds('?state=done')).toContain(todo.id);
  });
});

describe('the GraphQL twin', () => {
  it('answers the same to-dos to the same viewer as REST, and todosMarkAllDone marks them all', async () => {
    await epicTodo('Twin');
    const rest = await todoIds();
    const data = await t.graphql('{ currentUser { todos { nodes { databaseId state targetType body } } } }');
    const nodes = data.body.data.currentUser.todos.nodes;
    expect(nodes.map((n: { databaseId: number }) => n.databaseId)).toEqual(rest);
    expect(nodes[0]).toEqual({ databaseId: rest[0], state: 'pending', targetType: 'EPIC', body: 'Twin' });
    const filtered = await t.graphql('{ currentUser { todos(state: [done], type: [EPIC]) { nodes { databaseId } } } }');
    expect(filtered.body.data.currentUser.todos.nodes.map((n: { databaseId: number }) => n.databaseId)).toEqual(await todoIds('?state=done&type=Epic'));

    const marked = await t.graphql('mutation { todosMarkAllDone(input: { clientMutationId: "m" }) { todos { databaseId state } errors clientMutationId } }');
    const payload = marked.body.data.todosMarkAllDone;
    expect(payload.errors).toEqual([]);
    expect(payload.clientMutationId).toBe('m');
    expect(payload.todos.map((n: { databaseId: number }) => n.databaseId)).toEqual(rest);
    expect(payload.todos.every((n: { state: string }) => n.state === 'done')).toBe(true);
    expect(await todoIds()).toEqual([]);
    const anonymous = await t.graphql('{ currentUser { todos { nodes { id } } } }', {}, null);
    expect(anonymous.body.data.currentUser).toBeNull();
  });
});

describe('statements', () => {
  it('lists a page of to-dos in as many statements for 1 as for 4', async () => {
    const list = () => t.api('get', '/todos').expect(200);
    await expectCounterSees(t, list);
    await epicTodo('Count 1');
    const one = await countQueries(t, list);
    for (const title of ['Count 2', 'Count 3', 'Count 4']) await epicTodo(title);
    expect((await list()).body).toHaveLength(4);
    expect(await countQueries(t, list)).toBe(one);
  });
});

describe('@gitbeaker/rest', () => {
  it('lists with TodoLists.all and marks with TodoLists.done (one, then all)', async () => {
    const api = gitbeaker(t.base, t.root.token);
    const before = await api.TodoLists.all({ type: 'Epic' });
    expect(before.length).toBeGreaterThan(1);
    expect(before[0]).toMatchObject({ action_name: 'marked', target_type: 'Epic', state: 'pending' });
    const one = await api.TodoLists.done({ todoId: before[0]!.id });
    expect(one).toMatchObject({ id: before[0]!.id, state: 'done' });
    await api.TodoLists.done();
    expect(await api.TodoLists.all()).toEqual([]);
    expect((await api.TodoLists.all({ state: 'done' })).map((todo) => todo.id)).toContain(before[1]!.id);
  });
});
