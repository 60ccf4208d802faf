import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, EXTERNAL_URL, type TestApp } from './helpers/app.ts';

let t: TestApp;
type User = Awaited<ReturnType<TestApp['user']>>;
type Group = { id: number; full_path: string };

let acme: Group;
let sub: Group;
let other: Group;
const people = {} as Record<'reporter' | 'developer' | 'guest' | 'owner' | 'outsider', User>;

async function member(group: Group, level: number, name?: string) {
  const user = await t.user(name);
  await t.api('post', `/groups/${group.id}/members`).send({ user_id: user.id, access_level: level }).expect(201);
  return user;
}

async function group(name: string, parent?: Group, visibility = 'public'): Promise<Group> {
  return (await t.api('post', '/groups').send({ name, path: name, parent_id: parent?.id, visibility }).expect(201)).body;
}

/** Creates an epic as `as` (root by default) and returns its REST entity. */
async function epic(g: Group, body: Record<string, unknown>, as: string = t.root.token) {
  return (await t.api('post', `/groups/${g.id}/epics`, as).send(body).expect(201)).body;
}

async function setTimes(id: number, createdAt: string, updatedAt = createdAt) {
  await t.db.epic.update({ where: { id }, data: { createdAt: new Date(createdAt), updatedAt: new Date(updatedAt) } });
}

const titles = (body: { title: string }[]) => body.map((e) => e.title);

const list = async (g: Group, query: string, as: string | null = t.root.token) =>
  titles((await t.api('get', `/groups/${g.id}/epics?${query}`, as).expect(200)).body);

beforeAll(async () => {
  t = await createTestApp();
  acme = await group('acme');
  sub = await group('sub', acme);
  other = await group('other');
  people.reporter = await member(acme, 20, 'alice');
  people.developer = await member(acme, 30, 'bob');
  people.guest = await member(acme, 10, 'gus');
  people.owner = await member(acme, 50, 'olive');
  people.outsider = await t.user('xavier');
  for (const [name, color] of [
    ['bug', '#FF0000'],
    ['ux', '#00FF00'],
  ]) {
    await t.api('post', `/groups/${acme.id}/labels`).send({ name, color }).expect(201);
  }
});
afterAll(() => t.close());

describe('the epic entity', () => {
  it('has per-group iids, GitLab URLs, references, labels and the composite dates', async () => {
    const created = await epic(other, { title: 'Shape', description: 'Body', labels: 'zeta,alpha', start_date_is_fixed: true, start_date_fixed: '2024-05-01' });
    const second = await epic(other, { title: 'Shape 2' });
    expect(second.iid).toBe(created.iid + 1);
    expect(created).toMatchObject({
      iid: 1,
      group_id: other.id,
      parent_id: null,
      parent_iid: null,
      imported: false,
      imported_from: 'none',
      title: 'Shape',
      description: 'Body',
      confidential: 'false',
      author: { id: t.root.id, username: 'root', name: 'Administrator', state: 'active', avatar_url: null, web_url: `${EXTERNAL_URL}/root` },
      start_date: '2024-05-01',
      start_date_is_fixed: true,
      start_date_fixed: '2024-05-01',
      start_date_from_inherited_source: null,
      end_date: null,
      due_date: null,
      due_date_is_fixed: false,
      state: 'opened',
      web_url: `${EXTERNAL_URL}/groups/other/-/epics/1`,
      references: { short: '&1', relative: '&1', full: 'other&1' },
      closed_at: null,
      // Sorted by name; unknown names become labels of the group.
      labels: ['alpha', 'zeta'],
      upvotes: 0,
      downvotes: 0,
      _links: {
        self: `${EXTERNAL_URL}/api/v4/groups/${other.id}/epics/1`,
        epic_issues: `${EXTERNAL_URL}/api/v4/groups/${other.id}/epics/1/issues`,
        group: `${EXTERNAL_URL}/api/v4/groups/${other.id}`,
        parent: null,
      },
    });
    expect(created).not.toHaveProperty('subscribed');
    expect(created).not.toHaveProperty('color');
    const shown = await t.api('get', `/groups/other/epics/${created.iid}`).expect(200);
    expect(shown.headers['content-type']).toBe('application/json');
    expect(shown.body).toEqual({ ...created, subscribed: true });
    expect((await t.api('get', `/groups/${other.id}/labels`).expect(200)).body.map((l: { name: string }) => l.name)).toEqual(['alpha', 'zeta']);
  });

  it('gives concurrent creations distinct iids', async () => {
    const g = await group('busy');
    const created = await Promise.all(Array.from({ length: 8 }, (_, i) => epic(g, { title: `Concurrent ${i}` })));
    expect(created.map((e) => e.iid).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('shows the fixed and inherited date fields, the deprecated *_from_milestones included, to editors only (REST and GraphQL)', async () => {
    const created = await epic(acme, { title: 'Dates for editors' });
    await epic(acme, {
      title: 'Dated child',
      parent_id: created.id,
      start_date_is_fixed: true,
      start_date_fixed: '2025-03-01',
      due_date_is_fixed: true,
      due_date_fixed: '2025-04-30',
    });
    const hidden = [
      'start_date_is_fixed',
      'start_date_fixed',
      'start_date_from_inherited_source',
      'start_date_from_milestones',
      'due_date_is_fixed',
      'due_date_fixed',
      'due_date_from_inherited_source',
      'due_date_from_milestones',
    ];
    const asGuest = (await t.api('get', `/groups/${acme.id}/epics/${created.iid}`, people.guest.token).expect(200)).body;
    for (const key of hidden) expect(asGuest).not.toHaveProperty(key);
    expect(asGuest).toMatchObject({ start_date: '2025-03-01', due_date: '2025-04-30' });
    const asReporter = (await t.api('get', `/groups/${acme.id}/epics/${created.iid}`, people.reporter.token).expect(200)).body;
    for (const key of hidden) expect(asReporter).toHaveProperty(key);
    expect(asReporter).toMatchObject({ start_date_from_milestones: '2025-03-01', due_date_from_milestones: '2025-04-30' });

    const query = `query($iid: ID) { group(fullPath: "${acme.full_path}") { epic(iid: $iid) {
      startDate startDateFromMilestones startDateFromInheritedSource dueDate dueDateFromMilestones dueDateFromInheritedSource } } }`;
    const read = async (token: string) => (await t.graphql(query, { iid: String(created.iid) }, token)).body.data.group.epic;
    const start = '2025-03-01T00:00:00.000Z';
    const due = '2025-04-30T00:00:00.000Z';
    expect(await read(people.guest.token)).toEqual({
      startDate: start,
      startDateFromMilestones: null,
      startDateFromInheritedSource: null,
      dueDate: due,
      dueDateFromMilestones: null,
      dueDateFromInheritedSource: null,
    });
    expect(await read(people.reporter.token)).toEqual({
      startDate: start,
      startDateFromMilestones: start,
      startDateFromInheritedSource: start,
      dueDate: due,
      dueDateFromMilestones: due,
      dueDateFromInheritedSource: due,
    });
  });

  it('answers under /groups/:id/-/epics too and refuses a description over 1,048,576 characters', async () => {
    const created = (await t.api('post', `/groups/${other.id}/-/epics`).send({ title: 'Dash path' }).expect(201)).body;
    await t.api('get', `/groups/${other.id}/-/epics/${created.iid}`).expect(200);
    await t
      .api('post', `/groups/${other.id}/epics`)
      .send({ title: 'Long', description: 'x'.repeat(1_048_577) })
      .expect(400, { message: { description: ['is too long (maximum is 1048576 characters)'] } });
    await t
      .api('post', `/groups/${other.id}/epics`)
      .send({ title: 'Just fits', description: 'x'.repeat(1_048_576) })
      .expect(201);
    await t.api('post', `/groups/${other.id}/epics`).send({ description: 'no title' }).expect(400, { error: 'title is missing' });
    await t.api('put', `/groups/${other.id}/epics/${created.iid}`).send({}).expect(400, {
      error:
        'add_labels, color, confidential, description, due_date_fixed, due_date_is_fixed, labels, parent_id, remove_labels, start_date_fixed, start_date_is_fixed, state_event, title, start_date, end_date are missing, at least one parameter must be provided',
    });
    await t
      .api('put', `/groups/${other.id}/epics/${created.iid}`)
      .send({ state_event: 'archive' })
      .expect(400, { error: 'state_event does not have a valid value' });
  });
});

describe('list filters', () => {
  const ids = {} as Record<string, { id: number; iid: number }>;

  beforeAll(async () => {
    ids.alpha = await epic(acme, { title: 'Alpha launch', description: 'rocket science', labels: 'bug' }, people.reporter.token);
    ids.beta = await epic(acme, { title: 'Beta', labels: 'bug,ux' }, people.developer.token);
    ids.gamma = await epic(acme, { title: 'Gamma', confidential: true }, people.reporter.token);
    ids.delta = await epic(sub, { title: 'Delta in sub', labels: 'ux' }, people.developer.token);
    await t.db.epic.update({ where: { id: ids.beta.id }, data: { state: 'closed', closedAt: new Date() } });
    await setTimes(ids.alpha.id, '2024-01-01T00:00:00Z', '2024-06-01T00:00:00Z');
    await setTimes(ids.beta.id, '2024-02-01T00:00:00Z', '2024-05-01T00:00:00Z');
    await setTimes(ids.gamma.id, '2024-03-01T00:00:00Z', '2024-04-01T00:00:00Z');
    await setTimes(ids.delta.id, '2024-04-01T00:00:00Z', '2024-03-01T00:00:00Z');
    // The other epics of acme (from the entity tests) are older than none of these: pin them earlier.
    await t.db.epic.updateMany({
      where: { groupId: acme.id, id: { notIn: Object.values(ids).map((e) => e.id) } },
      data: { createdAt: new Date('2023-01-01T00:00:00Z'), updatedAt: new Date('2023-01-01T00:00:00Z') },
    });
  });

  const mine = (names: string[]) => names.filter((n) => ['Alpha launch', 'Beta', 'Gamma', 'Delta in sub'].includes(n));

  it('lists the group and its subgroups, newest first, all states, 20 per page', async () => {
    expect(mine(await list(acme, ''))).toEqual(['Delta in sub', 'Gamma', 'Beta', 'Alpha launch']);
    const res = await t.api('get', `/groups/${acme.id}/epics`).expect(200);
    expect(res.headers['x-per-page']).toBe('20');
    expect(res.headers['x-total']).toBe(String(res.body.length));
  });

  it('order_by and sort', async () => {
    expect(mine(await list(acme, 'sort=asc'))).toEqual(['Alpha launch', 'Beta', 'Gamma', 'Delta in sub']);
    expect(mine(await list(acme, 'order_by=updated_at'))).toEqual(['Alpha launch', 'Beta', 'Gamma', 'Delta in sub']);
    expect(mine(await list(acme, 'order_by=title&sort=asc'))).toEqual(['Alpha launch', 'Beta', 'Delta in sub', 'Gamma']);
    await t.api('get', `/groups/${acme.id}/epics?order_by=due_date`).expect(400, { error: 'order_by does not have a valid value' });
  });

  it('state', async () => {
    expect(mine(await list(acme, 'state=closed'))).toEqual(['Beta']);
    expect(mine(await list(acme, 'state=opened'))).toEqual(['Delta in sub', 'Gamma', 'Alpha launch']);
    expect(mine(await list(acme, 'state=all'))).toHaveLength(4);
  });

  it('author_id, author_username, and both at once is a 400', async () => {
    expect(mine(await list(acme, `author_id=${people.reporter.id}`))).toEqual(['Gamma', 'Alpha launch']);
    expect(mine(await list(acme, 'author_username=bob'))).toEqual(['Delta in sub', 'Beta']);
    await t.api('get', `/groups/${acme.id}/epics?author_id=1&author_username=bob`).expect(400, { error: 'author_id, author_username are mutually exclusive' });
    await t
      .api('get', `/groups/${acme.id}/epics?not[author_id]=1&not[author_username]=bob`)
      .expect(400, { error: 'not[author_id], not[author_username] are mutually exclusive' });
  });

  it('labels (all of them), None and Any, and label objects on request', async () => {
    expect(mine(await list(acme, 'labels=bug'))).toEqual(['Beta', 'Alpha launch']);
    expect(mine(await list(acme, 'labels=bug,ux'))).toEqual(['Beta']);
    expect(mine(await list(acme, 'labels[]=ux'))).toEqual(['Delta in sub', 'Beta']);
    expect(mine(await list(acme, 'labels=None'))).toEqual(['Gamma']);
    expect(mine(await list(acme, 'labels=Any'))).toEqual(['Delta in sub', 'Beta', 'Alpha launch']);
    const names = (await t.api('get', `/groups/${acme.id}/epics?labels=bug,ux`).expect(200)).body[0].labels;
    expect(names).toEqual(['bug', 'ux']);
    const objects = (await t.api('get', `/groups/${acme.id}/epics?labels=bug,ux&with_labels_details=true`).expect(200)).body[0].labels;
    expect(objects).toEqual([
      { id: expect.any(Number), name: 'bug', color: '#FF0000', description: null, description_html: '', text_color: '#FFFFFF' },
      { id: expect.any(Number), name: 'ux', color: '#00FF00', description: null, description_html: '', text_color: '#FFFFFF' },
    ]);
  });

  it('search in the title and the description', async () => {
    expect(mine(await list(acme, 'search=gamm'))).toEqual(['Gamma']);
    expect(mine(await list(acme, 'search=ROCKET'))).toEqual(['Alpha launch']);
  });

  it('created_after/before and updated_after/before', async () => {
    expect(mine(await list(acme, 'created_after=2024-02-01T00:00:00Z'))).toEqual(['Delta in sub', 'Gamma', 'Beta']);
    expect(mine(await list(acme, 'created_before=2024-02-15T00:00:00Z'))).toEqual(['Beta', 'Alpha launch']);
    expect(mine(await list(acme, 'updated_after=2024-04-15T00:00:00Z'))).toEqual(['Beta', 'Alpha launch']);
    expect(mine(await list(acme, 'updated_before=2024-04-15T00:00:00Z'))).toEqual(['Delta in sub', 'Gamma']);
    await t.api('get', `/groups/${acme.id}/epics?created_after=yesterday`).expect(400, { error: 'created_after is invalid' });
  });

  it('include_descendant_groups (default true) and include_ancestor_groups (default false)', async () => {
    expect(mine(await list(acme, 'include_descendant_groups=false'))).toEqual(['Gamma', 'Beta', 'Alpha launch']);
    expect(mine(await list(sub, ''))).toEqual(['Delta in sub']);
    expect(mine(await list(sub, 'include_ancestor_groups=true'))).toEqual(['Delta in sub', 'Gamma', 'Beta', 'Alpha launch']);
  });

  it('my_reaction_emoji: None, Any, a name', async () => {
    const as = people.guest.token;
    await t.api('post', `/groups/${acme.id}/epics/${ids.alpha.iid}/award_emoji`, as).send({ name: 'thumbsup' }).expect(201);
    await t.api('post', `/groups/${acme.id}/epics/${ids.beta.iid}/award_emoji`, as).send({ name: 'tada' }).expect(201);
    // Someone else's reaction does not count as the viewer's.
    await t.api('post', `/groups/${acme.id}/epics/${ids.delta.iid}/award_emoji`, people.developer.token).send({ name: 'thumbsup' }).expect(201);
    expect(mine(await list(acme, 'my_reaction_emoji=thumbsup', as))).toEqual(['Alpha launch']);
    expect(mine(await list(acme, 'my_reaction_emoji=Any', as))).toEqual(['Beta', 'Alpha launch']);
    expect(mine(await list(acme, 'my_reaction_emoji=None', as))).toEqual(['Delta in sub']);
  });

  it('confidential, and confidential epics only for Reporters and above', async () => {
    expect(mine(await list(acme, 'confidential=true'))).toEqual(['Gamma']);
    expect(mine(await list(acme, 'confidential=false'))).toEqual(['Delta in sub', 'Beta', 'Alpha launch']);
    expect(mine(await list(acme, '', people.guest.token))).toEqual(['Delta in sub', 'Beta', 'Alpha launch']);
    expect(mine(await list(acme, '', null))).toEqual(['Delta in sub', 'Beta', 'Alpha launch']);
    expect(mine(await list(acme, '', people.reporter.token))).toContain('Gamma');
    await t.api('get', `/groups/${acme.id}/epics/${ids.gamma.iid}`, people.guest.token).expect(403);
  });

  it('not[labels], not[author_id], not[author_username]', async () => {
    expect(mine(await list(acme, 'not[labels]=bug'))).toEqual(['Delta in sub', 'Gamma']);
    expect(mine(await list(acme, 'not[labels]=bug,ux'))).toEqual(['Gamma']);
    expect(mine(await list(acme, `not[author_id]=${people.reporter.id}`))).toEqual(['Delta in sub', 'Beta']);
    expect(mine(await list(acme, 'not[author_username]=bob'))).toEqual(['Gamma', 'Alpha launch']);
  });
});

describe('state, labels and dates on update', () => {
  it('closes (closed_at set) and reopens (closed_at cleared)', async () => {
    const created = await epic(other, { title: 'Lifecycle' });
    const closed = (await t.api('put', `/groups/${other.id}/epics/${created.iid}`).send({ state_event: 'close' }).expect(200)).body;
    expect(closed.state).toBe('closed');
    expect(new Date(closed.closed_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const again = (await t.api('put', `/groups/${other.id}/epics/${created.iid}`).send({ state_event: 'close' }).expect(200)).body;
    expect(again.closed_at).toBe(closed.closed_at);
    const reopened = (await t.api('put', `/groups/${other.id}/epics/${created.iid}`).send({ state_event: 'reopen' }).expect(200)).body;
    expect(reopened).toMatchObject({ state: 'opened', closed_at: null });
  });

  it('labels from the group or its ancestors; add_labels, remove_labels, and labels="" removes all', async () => {
    const inSub = await epic(sub, { title: 'Labelled', labels: 'bug' });
    const acmeBug = await t.db.label.findFirstOrThrow({ where: { groupId: acme.id, name: 'bug' } });
    const link = await t.db.epicLabel.findFirstOrThrow({ where: { epicId: inSub.id } });
    // The ancestor's label is used, not a new one in the subgroup.
    expect(link.labelId).toBe(acmeBug.id);
    expect(await t.db.label.count({ where: { groupId: sub.id } })).toBe(0);
    const path = `/groups/${sub.id}/epics/${inSub.iid}`;
    expect((await t.api('put', path).send({ add_labels: 'ux,fresh' }).expect(200)).body.labels).toEqual(['bug', 'fresh', 'ux']);
    expect((await t.api('put', path).send({ remove_labels: 'bug' }).expect(200)).body.labels).toEqual(['fresh', 'ux']);
    expect((await t.api('put', path).send({ labels: 'bug' }).expect(200)).body.labels).toEqual(['bug']);
    expect((await t.api('put', path).send({ labels: '' }).expect(200)).body.labels).toEqual([]);
    // A label of an unrelated group is not available: a label of that name is made in the subgroup.
    await t.api('post', `/groups/${other.id}/labels`).send({ name: 'foreign', color: '#000000' }).expect(201);
    await t.api('put', path).send({ labels: 'foreign' }).expect(200);
    const used = await t.db.epicLabel.findFirstOrThrow({ where: { epicId: inSub.id }, include: { label: true } });
    expect(used.label.groupId).toBe(sub.id);
  });

  it('inherits dates from the child epics unless fixed', async () => {
    const root = await epic(other, { title: 'Roadmap' });
    const child = await epic(other, {
      title: 'Phase 1',
      parent_id: root.id,
      start_date_is_fixed: true,
      start_date_fixed: '2025-03-01',
      due_date_is_fixed: true,
      due_date_fixed: '2025-04-30',
    });
    const middle = await epic(other, { title: 'Phase 2', parent_id: root.id, due_date_is_fixed: true, due_date_fixed: '2025-06-30' });
    // A grandchild's start reaches the root through the unfixed middle epic.
    await epic(other, {
      title: 'Phase 2a',
      parent_id: middle.id,
      start_date_is_fixed: true,
      start_date_fixed: '2025-02-01',
      due_date_is_fixed: true,
      due_date_fixed: '2025-09-30',
    });
    const shown = (await t.api('get', `/groups/${other.id}/epics/${root.iid}`).expect(200)).body;
    expect(shown).toMatchObject({
      start_date: '2025-02-01',
      start_date_is_fixed: false,
      start_date_from_inherited_source: '2025-02-01',
      start_date_from_milestones: '2025-02-01',
      // The middle epic's fixed due date hides its child's later one.
      due_date: '2025-06-30',
      end_date: '2025-06-30',
      due_date_from_inherited_source: '2025-06-30',
    });
    const fixedRoot = (
      await t.api('put', `/groups/${other.id}/epics/${root.iid}`).send({ start_date_is_fixed: true, start_date_fixed: '2025-01-15' }).expect(200)
    ).body;
    expect(fixedRoot).toMatchObject({ start_date: '2025-01-15', start_date_fixed: '2025-01-15', start_date_from_inherited_source: '2025-02-01' });
    await t.api('put', `/groups/${other.id}/epics/${child.iid}`).send({ start_date_fixed: '2025-13-01' }).expect(400, { error: 'start_date_fixed is invalid' });
  });
});

describe('nesting', () => {
  it('sets and moves parents, with references relative to the requested group', async () => {
    const parent = await epic(acme, { title: 'Parent' });
    const child = await epic(sub, { title: 'Child', parent_id: parent.id });
    expect(child).toMatchObject({
      parent_id: parent.id,
      parent_iid: parent.iid,
      _links: { parent: `${EXTERNAL_URL}/api/v4/groups/${acme.id}/epics/${parent.iid}` },
    });
    const fromParent = (await t.api('get', `/groups/${acme.id}/epics?search=Child`).expect(200)).body[0];
    expect(fromParent.references).toEqual({ short: `&${child.iid}`, relative: `acme/sub&${child.iid}`, full: `acme/sub&${child.iid}` });
    const fromSub = (await t.api('get', `/groups/${sub.id}/epics?search=Child`).expect(200)).body[0];
    expect(fromSub.references).toEqual({ short: `&${child.iid}`, relative: `&${child.iid}`, full: `acme/sub&${child.iid}` });
    const moved = (await t.api('put', `/groups/${sub.id}/epics/${child.iid}`).send({ parent_id: null }).expect(200)).body;
    expect(moved).toMatchObject({ parent_id: null, parent_iid: null });
  });

  it("refuses GitLab's hierarchy violations with 400", async () => {
    const a = await epic(acme, { title: 'A' });
    const b = await epic(acme, { title: 'B', parent_id: a.id });
    const put = (e: { iid: number }, body: object) => t.api('put', `/groups/${acme.id}/epics/${e.iid}`).send(body);
    await put(a, { parent_id: a.id }).expect(400, { message: { parent: ['This epic cannot be added. An epic cannot be added to itself.'] } });
    await put(a, { parent_id: b.id }).expect(400, { message: { parent: ['This epic cannot be added. It is already an ancestor of the parent epic.'] } });
    // A parent in a subgroup cannot take an epic of the parent group.
    const inSub = await epic(sub, { title: 'Sub parent' });
    await put(a, { parent_id: inSub.id }).expect(400, {
      message: { parent: ['This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.'] },
    });
    const foreign = await epic(other, { title: 'Foreign' });
    await put(a, { parent_id: foreign.id }).expect(400, {
      message: { parent: ['This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.'] },
    });
    // A chain of 7 is one too deep.
    let top = await epic(acme, { title: 'Level 1' });
    for (let level = 2; level <= 6; level++) top = await epic(acme, { title: `Level ${level}`, parent_id: top.id });
    await t
      .api('post', `/groups/${acme.id}/epics`)
      .send({ title: 'Level 7', parent_id: top.id })
      .expect(400, {
        message: { parent: ['This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor.'] },
      });
    // A parent the viewer cannot manage (or that does not exist) is "no matching epic".
    await t
      .api('post', `/groups/${acme.id}/epics`)
      .send({ title: 'Orphan', parent_id: 999_999 })
      .expect(400, { message: { base: ['No matching epic found. Make sure that you are adding a valid epic URL.'] } });
    expect(await t.db.epic.count({ where: { title: { in: ['Level 7', 'Orphan'] } } })).toBe(0);
  });

  it('keeps confidential parents with confidential children only', async () => {
    const secret = await epic(acme, { title: 'Secret parent', confidential: true });
    await t
      .api('post', `/groups/${acme.id}/epics`)
      .send({ title: 'Open child', parent_id: secret.id })
      .expect(400, {
        message: {
          base: [`&${secret.iid} cannot be added: cannot assign a non-confidential epic to a confidential parent. Make the epic confidential and try again.`],
        },
      });
    const child = await epic(acme, { title: 'Secret child', parent_id: secret.id, confidential: true });
    expect(child.confidential).toBe('true');
    await t.api('put', `/groups/${acme.id}/epics/${child.iid}`).send({ confidential: false }).expect(400);
    const open = await epic(acme, { title: 'Open parent' });
    await epic(acme, { title: 'Open kid', parent_id: open.id });
    await t
      .api('put', `/groups/${acme.id}/epics/${open.iid}`)
      .send({ confidential: true })
      .expect(400, { message: { confidential: ['Cannot make the epic confidential if it contains non-confidential child epics'] } });
  });

  it('deleting a parent keeps its children, without a parent', async () => {
    const parent = await epic(acme, { title: 'Doomed' });
    const child = await epic(acme, { title: 'Survivor', parent_id: parent.id });
    await t.api('delete', `/groups/${acme.id}/epics/${parent.iid}`, people.developer.token).expect(403);
    await t.api('delete', `/groups/${acme.id}/epics/${parent.iid}`, people.owner.token).expect(204, '');
    await t.api('get', `/groups/${acme.id}/epics/${parent.iid}`).expect(403);
    const kept = (await t.api('get', `/groups/${acme.id}/epics/${child.iid}`).expect(200)).body;
    expect(kept).toMatchObject({ parent_id: null, parent_iid: null, _links: { parent: null } });
  });

  it('two concurrent moves cannot build a cycle', async () => {
    const a = await epic(other, { title: 'Cycle A' });
    const b = await epic(other, { title: 'Cycle B' });
    const [ab, ba] = await Promise.all([
      t.api('put', `/groups/${other.id}/epics/${a.iid}`).send({ parent_id: b.id }),
      t.api('put', `/groups/${other.id}/epics/${b.iid}`).send({ parent_id: a.id }),
    ]);
    expect([ab.status, ba.status].sort()).toEqual([200, 400]);
    const rows = await t.db.epic.findMany({ where: { id: { in: [a.id, b.id] } } });
    expect(rows.filter((r) => r.parentId != null)).toHaveLength(1);
  });
});

describe('to-dos and award emoji', () => {
  it('marks a to-do once: 201, then 304', async () => {
    const created = await epic(acme, { title: 'Remember me' });
    const path = `/groups/${acme.id}/epics/${created.iid}/todo`;
    const todo = (await t.api('post', path, people.guest.token).expect(201)).body;
    expect(todo).toMatchObject({
      group: { id: acme.id, name: 'acme', path: 'acme', kind: 'group', full_path: 'acme', parent_id: null },
      author: { username: 'gus' },
      action_name: 'marked',
      target_type: 'Epic',
      target: { id: created.id, iid: created.iid, title: 'Remember me', references: { short: `&${created.iid}` } },
      target_url: `${EXTERNAL_URL}/groups/acme/-/epics/${created.iid}`,
      body: 'Remember me',
      state: 'pending',
    });
    await t.api('post', path, people.guest.token).expect(304);
    // Another user gets their own.
    await t.api('post', path, people.reporter.token).expect(201);
    await t.api('post', path, null).expect(401);
    await t.api('post', `/groups/${acme.id}/epics/99999/todo`, people.guest.token).expect(403);
  });

  it('concurrent to-do requests make one to-do', async () => {
    const created = await epic(acme, { title: 'Race' });
    const path = `/groups/${acme.id}/epics/${created.iid}/todo`;
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => t.api('post', path, people.developer.token)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([201, 304, 304, 304, 304]);
    expect(await t.db.todo.count({ where: { epicId: created.id } })).toBe(1);
  });

  it('awards, counts up- and downvotes, and removes', async () => {
    const created = await epic(acme, { title: 'Vote' });
    const path = `/groups/${acme.id}/epics/${created.iid}/award_emoji`;
    const up = (await t.api('post', path, people.guest.token).send({ name: '+1' }).expect(201)).body;
    expect(up).toMatchObject({ name: 'thumbsup', user: { username: 'gus' }, awardable_id: created.id, awardable_type: 'Epic', url: null });
    await t.api('post', path, people.reporter.token).send({ name: 'thumbsup' }).expect(201);
    await t.api('post', path, people.developer.token).send({ name: 'thumbsdown' }).expect(201);
    await t
      .api('post', path, people.guest.token)
      .send({ name: 'thumbsup' })
      .expect(400, { message: { name: ['has already been taken'] } });
    await t
      .api('post', path, people.guest.token)
      .send({ name: 'not_an_emoji' })
      .expect(400, { message: { name: ['is not a valid emoji name'] } });
    await t.api('post', path, null).send({ name: 'smile' }).expect(401);
    expect((await t.api('get', `/groups/${acme.id}/epics/${created.iid}`).expect(200)).body).toMatchObject({ upvotes: 2, downvotes: 1 });
    const listed = await t.api('get', path, null).expect(200);
    expect(listed.body.map((a: { name: string }) => a.name)).toEqual(['thumbsup', 'thumbsup', 'thumbsdown']);
    expect(listed.headers['x-total']).toBe('3');
    // Only its user (or an administrator) removes an award.
    await t.api('delete', `${path}/${up.id}`, people.reporter.token).expect(401);
    await t.api('delete', `${path}/${up.id}`, people.guest.token).expect(204);
    await t.api('delete', `${path}/${up.id}`, people.guest.token).expect(404, { message: '404 Not found' });
    expect((await t.api('get', `/groups/${acme.id}/epics/${created.iid}`).expect(200)).body).toMatchObject({ upvotes: 1, downvotes: 1 });
  });
});

describe('permissions', () => {
  it('anonymous reads on public groups; every write needs a user', async () => {
    const created = await epic(acme, { title: 'Public read' });
    await t.api('get', `/groups/${acme.id}/epics`, null).expect(200);
    await t.api('get', `/groups/${acme.id}/epics/${created.iid}`, null).expect(200);
    await t.api('post', `/groups/${acme.id}/epics`, null).send({ title: 'Nope' }).expect(401, { message: '401 Unauthorized' });
    await t.api('put', `/groups/${acme.id}/epics/${created.iid}`, null).send({ title: 'Nope' }).expect(401);
    await t.api('delete', `/groups/${acme.id}/epics/${created.iid}`, null).expect(401);
    // 401 comes before the group lookup, as GitLab's authenticate_non_get!.
    await t.api('post', '/groups/99999/epics', null).send({ title: 'Nope' }).expect(401);
  });

  it('Reporters create and update, Guests do not, Owners delete', async () => {
    await t.api('post', `/groups/${acme.id}/epics`, people.guest.token).send({ title: 'Guest' }).expect(403, { message: '403 Forbidden' });
    await t.api('post', `/groups/${acme.id}/epics`, people.outsider.token).send({ title: 'Outsider' }).expect(403);
    const created = await epic(acme, { title: 'By a reporter' }, people.reporter.token);
    await t.api('put', `/groups/${acme.id}/epics/${created.iid}`, people.guest.token).send({ title: 'x' }).expect(403);
    await t.api('put', `/groups/${acme.id}/epics/${created.iid}`, people.developer.token).send({ title: 'Edited' }).expect(200);
    await t.api('delete', `/groups/${acme.id}/epics/${created.iid}`, people.reporter.token).expect(403);
    await t.api('delete', `/groups/${acme.id}/epics/${created.iid}`, people.owner.token).expect(204);
    // Subgroups inherit: an Owner of acme deletes in acme/sub.
    const inSub = await epic(sub, { title: 'Sub epic' }, people.reporter.token);
    await t.api('delete', `/groups/${sub.id}/epics/${inSub.iid}`, people.owner.token).expect(204);
  });

  it('created_at is honoured for Owners and administrators only', async () => {
    const byOwner = await epic(acme, { title: 'Back-dated', created_at: '2020-01-02T03:04:05Z' }, people.owner.token);
    expect(byOwner.created_at).toBe('2020-01-02T03:04:05.000Z');
    const byReporter = await epic(acme, { title: 'Not back-dated', created_at: '2020-01-02T03:04:05Z' }, people.reporter.token);
    expect(new Date(byReporter.created_at).getFullYear()).toBeGreaterThan(2020);
  });

  it('a private group is 404 for outsiders; an unknown iid is 403, as on GitLab', async () => {
    const secret = await group('secret', undefined, 'private');
    const created = await epic(secret, { title: 'Hidden' });
    await t.api('get', `/groups/${secret.id}/epics`, people.outsider.token).expect(404, { message: '404 Group Not Found' });
    await t.api('get', `/groups/${secret.id}/epics/${created.iid}`, null).expect(404, { message: '404 Group Not Found' });
    await t.api('post', `/groups/${secret.id}/epics`, people.outsider.token).send({ title: 'x' }).expect(404);
    await t.api('get', `/groups/${acme.id}/epics/424242`).expect(403, { message: '403 Forbidden' });
    await t.api('get', `/groups/${acme.id}/epics/abc`).expect(400, { error: 'epic_iid is invalid' });
    // A private subgroup's epics stay out of its public parent's list for those who may not see it.
    const hiddenSub = await group('hiddensub', acme, 'private');
    await epic(hiddenSub, { title: 'Behind the curtain' });
    expect(await list(acme, 'search=curtain', people.outsider.token)).toEqual([]);
    expect(await list(acme, 'search=curtain', null)).toEqual([]);
    // Members of acme inherit access to its subgroups.
    expect(await list(acme, 'search=curtain', people.guest.token)).toEqual(['Behind the curtain']);
  });

  it('read_api tokens read but do not write', async () => {
    const token = await t.token(people.reporter.id, ['read_api']);
    await t.api('get', `/groups/${acme.id}/epics`, token).expect(200);
    await t.api('post', `/groups/${acme.id}/epics`, token).send({ title: 'x' }).expect(403);
  });
});

describe('color, behind the flag epic_highlight_color', () => {
  afterAll(() => t.deps.flags.remove('epic_highlight_color'));

  it('is neither shown nor taken while the flag is off, and both once it is on', async () => {
    const plain = await epic(other, { title: 'Colourless', color: '#FF0000' });
    expect(plain).not.toHaveProperty('color');
    expect((await t.db.epic.findUniqueOrThrow({ where: { id: plain.id } })).color).toBe('#1068BF');
    await t.deps.flags.set('epic_highlight_color', { enabled: true });
    const shown = (await t.api('get', `/groups/${other.id}/epics/${plain.iid}`).expect(200)).body;
    expect(shown).toMatchObject({ color: '#1068BF', text_color: '#FFFFFF' });
    // The entity keeps GitLab's order: color and text_color right after iid.
    expect(Object.keys(shown).slice(0, 5)).toEqual(['id', 'iid', 'color', 'text_color', 'group_id']);
    const colored = await epic(other, { title: 'Coloured', color: 'yellow' });
    expect(colored).toMatchObject({ color: '#FFFF00', text_color: '#333333' });
    await t
      .api('put', `/groups/${other.id}/epics/${colored.iid}`)
      .send({ color: 'not-a-colour' })
      .expect(400, { message: { color: ['must be a valid color code'] } });
    const gql = await t.graphql(`{ group(fullPath: "other") { epic(iid: "${colored.iid}") { color textColor } } }`);
    expect(gql.body.data.group.epic).toEqual({ color: '#FFFF00', textColor: '#333333' });
  });
});

describe('with the epics feature switched off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await createTestApp({ env: { EPICS_ENABLED: 'false' } });
  });
  afterAll(() => off.close());

  it('answers 403 on every epic route, after the group lookup', async () => {
    const g = (await off.api('post', '/groups').send({ name: 'g', path: 'g', visibility: 'public' }).expect(201)).body;
    await off.api('get', `/groups/${g.id}/epics`).expect(403, { message: '403 Forbidden' });
    await off.api('get', `/groups/${g.id}/epics/1`).expect(403);
    await off.api('post', `/groups/${g.id}/epics`).send({ title: 'x' }).expect(403);
    await off.api('post', `/groups/${g.id}/epics/1/todo`).expect(403);
    await off.api('get', '/groups/99999/epics').expect(404);
    const gql = await off.graphql(`{ group(fullPath: "g") { epics { nodes { title } } } }`);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('nested lists over REST', () => {
  it('answers every label of an epic, past the page of 100 GraphQL answers', async () => {
    const names = Array.from({ length: 105 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
    const created = await epic(other, { title: 'Labelled', labels: names.join(',') });
    expect(created.labels).toEqual(names);
    expect((await t.api('get', `/groups/${other.id}/epics/${created.iid}`).expect(200)).body.labels).toEqual(names);
    const listed = (await t.api('get', `/groups/${other.id}/epics?per_page=100`).expect(200)).body.find((e: { iid: number }) => e.iid === created.iid);
    expect(listed.labels).toEqual(names);
    const res = await t.graphql(`{ group(fullPath: "${other.full_path}") { epic(iid: "${created.iid}") { labels(first: 500) { nodes { title } } } } }`);
    expect(res.body.data.group.epic.labels.nodes).toHaveLength(100);
  });
});
