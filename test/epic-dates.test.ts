// The composite dates stored on each epic (issue 42): fixed where fixed, otherwise the earliest
// start and the latest due date of its child epics, kept right by every change below them — a
// fixed date or its flag, a child added, moved, removed or deleted — however deep, as GitLab's
// Epics::UpdateDatesService keeps its `start_date` / `end_date`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeDates } from '../src/modules/epics/store.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let group: { id: number; full_path: string };

type Made = { id: number; iid: number };

const day = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : null);

async function epic(attributes: Record<string, unknown>): Promise<Made> {
  return (await t.api('post', `/groups/${group.id}/epics`).send(attributes).expect(201)).body;
}

const update = (e: Made, attributes: Record<string, unknown>) => t.api('put', `/groups/${group.id}/epics/${e.iid}`).send(attributes).expect(200);

/** The dates stored on the rows, by epic. */
async function stored(...epics: Made[]): Promise<[string | null, string | null][]> {
  const rows = await t.db.epic.findMany({ where: { id: { in: epics.map((e) => e.id) } } });
  return epics.map((e) => {
    const row = rows.find((r) => r.id === e.id)!;
    return [day(row.startDate), day(row.dueDate)];
  });
}

/** What GitLab's answer shows for an epic (REST `start_date` / `due_date`), read fresh. */
async function shown(e: Made): Promise<[string | null, string | null]> {
  const { body } = await t.api('get', `/groups/${group.id}/epics/${e.iid}`).expect(200);
  return [body.start_date, body.due_date];
}

/** Every stored date of the group equals a computation from the fixed dates alone (store `recomputeDates`). */
async function expectConsistent() {
  const before = await t.db.epic.findMany({ where: { groupId: group.id }, orderBy: { id: 'asc' }, select: { id: true, startDate: true, dueDate: true } });
  await t.db.epic.updateMany({ where: { groupId: group.id }, data: { startDate: null, dueDate: null } });
  await recomputeDates(
    t.db,
    before.map((e) => e.id),
  );
  const after = await t.db.epic.findMany({ where: { groupId: group.id }, orderBy: { id: 'asc' }, select: { id: true, startDate: true, dueDate: true } });
  expect(after).toEqual(before);
}

beforeAll(async () => {
  t = await createTestApp({ env: { EPICS_ENABLED: 'true' } });
  group = (await t.api('post', '/groups').send({ name: 'Plans', path: 'plans', visibility: 'public' }).expect(201)).body;
});
afterAll(() => t?.close());

describe('stored composite dates', () => {
  it('follow fixed dates, their flags, and children added, changed, moved, closed and deleted, up every level', async () => {
    const top = await epic({ title: 'Top' });
    const mid = await epic({ title: 'Mid', parent_id: top.id });
    expect(await stored(top, mid)).toEqual([
      [null, null],
      [null, null],
    ]);

    // A child with fixed dates: its parent and grandparent inherit them.
    const leaf = await epic({
      title: 'Leaf',
      parent_id: mid.id,
      start_date_is_fixed: true,
      start_date_fixed: '2026-03-01',
      due_date_is_fixed: true,
      due_date_fixed: '2026-04-30',
    });
    expect(await stored(top, mid, leaf)).toEqual([
      ['2026-03-01', '2026-04-30'],
      ['2026-03-01', '2026-04-30'],
      ['2026-03-01', '2026-04-30'],
    ]);
    expect(await shown(top)).toEqual(['2026-03-01', '2026-04-30']);

    // A second child, earlier on one end only: the earliest start, the latest due date.
    const other = await epic({ title: 'Other', parent_id: top.id, start_date_is_fixed: true, start_date_fixed: '2026-02-01' });
    expect(await stored(top)).toEqual([['2026-02-01', '2026-04-30']]);

    // The leaf's fixed dates change: every level above follows.
    await update(leaf, { start_date_fixed: '2026-01-15', due_date_fixed: '2026-06-30' });
    expect(await stored(top, mid)).toEqual([
      ['2026-01-15', '2026-06-30'],
      ['2026-01-15', '2026-06-30'],
    ]);

    // Fixing the top's start ignores the children for that end only; unfixing inherits again.
    await update(top, { start_date_is_fixed: true, start_date_fixed: '2025-12-01' });
    expect(await stored(top)).toEqual([['2025-12-01', '2026-06-30']]);
    expect(await shown(top)).toEqual(['2025-12-01', '2026-06-30']);
    await update(top, { start_date_is_fixed: false });
    expect(await stored(top)).toEqual([['2026-01-15', '2026-06-30']]);

    // Closing a child keeps its dates counted, as GitLab's inheritance does.
    await update(leaf, { state_event: 'close' });
    expect(await stored(top)).toEqual([['2026-01-15', '2026-06-30']]);

    // Moving the middle epic out: the top keeps only the other child; moving it back restores.
    await update(mid, { parent_id: null });
    expect(await stored(top, mid)).toEqual([
      ['2026-02-01', null],
      ['2026-01-15', '2026-06-30'],
    ]);
    await expectConsistent();
    const moved = await t.graphql(
      `mutation { epicAddChild(input: { groupPath: "plans", iid: "${top.iid}", childId: "gid://gitlab/Epic/${mid.id}" }) { errors } }`,
    );
    expect(moved.body.data.epicAddChild.errors).toEqual([]);
    expect(await stored(top)).toEqual([['2026-01-15', '2026-06-30']]);

    // The leaf moves under the other child, from one branch to another below the same top.
    const reordered = await t.graphql(
      `mutation { epicTreeReorder(input: { baseEpicId: "gid://gitlab/Epic/${mid.id}", moved: { id: "gid://gitlab/Epic/${leaf.id}", newParentId: "gid://gitlab/Epic/${other.id}" } }) { errors } }`,
    );
    expect(reordered.body.data.epicTreeReorder.errors).toEqual([]);
    expect(await stored(top, mid, other)).toEqual([
      // The leaf's start stops at the other child, whose start is fixed; its due date passes up.
      ['2026-02-01', '2026-06-30'],
      [null, null],
      ['2026-02-01', '2026-06-30'],
    ]);
    await expectConsistent();

    // Deleting the leaf: its ancestors lose its dates.
    await t.api('delete', `/groups/${group.id}/epics/${leaf.iid}`).expect(204);
    expect(await stored(top, other)).toEqual([
      ['2026-02-01', null],
      ['2026-02-01', null],
    ]);
    await expectConsistent();
  });

  it("lose a deleted user's epics: hard_delete removes them, their parents' dates follow", async () => {
    const author = await t.user('planner');
    await t.api('post', `/groups/${group.id}/members`).send({ user_id: author.id, access_level: 20 }).expect(201);
    const parent = await epic({ title: 'Kept' });
    await t
      .api('post', `/groups/${group.id}/epics`, author.token)
      .send({ title: 'Theirs', parent_id: parent.id, start_date_is_fixed: true, start_date_fixed: '2028-05-01' })
      .expect(201);
    expect(await stored(parent)).toEqual([['2028-05-01', null]]);
    await t.api('delete', `/users/${author.id}?hard_delete=true`).expect(204);
    expect(await stored(parent)).toEqual([[null, null]]);
  });

  it("lose a deleted subgroup's epics: their parents above follow", async () => {
    const sub = (await t.api('post', '/groups').send({ name: 'Team', path: 'team', parent_id: group.id, visibility: 'public' }).expect(201)).body;
    const parent = await epic({ title: 'Above' });
    await t
      .api('post', `/groups/${sub.id}/epics`)
      .send({ title: 'Below', parent_id: parent.id, due_date_is_fixed: true, due_date_fixed: '2029-09-30' })
      .expect(201);
    expect(await stored(parent)).toEqual([[null, '2029-09-30']]);
    await t.api('delete', `/groups/${sub.id}`).expect(202);
    expect(await stored(parent)).toEqual([[null, null]]);
  });

  it('are right after an update returns: the answer shows the new dates at once', async () => {
    const parent = await epic({ title: 'Parent' });
    const child = await epic({ title: 'Child', parent_id: parent.id });
    const { body } = await update(child, { due_date_is_fixed: true, due_date_fixed: '2027-01-31' });
    expect([body.start_date, body.due_date]).toEqual([null, '2027-01-31']);
    expect(await shown(parent)).toEqual([null, '2027-01-31']);
    const graph = await t.graphql(`{ group(fullPath: "plans") { epic(iid: "${parent.iid}") { startDate dueDate dueDateFromInheritedSource } } }`);
    expect(graph.body.data.group.epic).toEqual({
      startDate: null,
      dueDate: '2027-01-31T00:00:00.000Z',
      dueDateFromInheritedSource: '2027-01-31T00:00:00.000Z',
    });
  });
});
