import { ForbiddenError } from '../../core/errors.ts';
import type { AwardEmojiEntityFragment, EpicEntityFragment, EpicLabelBasicFragment, TodoEntityFragment } from '../../generated/operations.ts';
import { gid } from '../../graphql/builder.ts';
import { param, type Values } from '../../rest/declare.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, found, nodesOf, page } from '../../rest/shape.ts';

/** A GraphQL `Time` (a Date in-process, a string over the wire) as GitLab's calendar date. */
const day = (value: Date | string | null) => (value == null ? null : new Date(value).toISOString().slice(0, 10));

const labelEntity = (label: EpicLabelBasicFragment) => ({ ...label, description_html: label.description ?? '' });

type EpicNode = EpicEntityFragment & { subscribed?: boolean | null };

/**
 * GraphQL's epic as GitLab's entity, in its field order: flattened group and parent, dates as
 * days, `confidential` as a string (as the contract renders it), labels as names or objects,
 * `color` only where the flag shows it and the editor-only fields where the fields answer them.
 */
export function epicEntity(node: EpicNode, opts: { labelDetails?: boolean } = {}) {
  const labels = nodesOf(node.labels);
  const references = expected(node.references, 'references');
  return {
    id: node.id,
    iid: Number(node.iid),
    ...(node.color != null && { color: node.color, text_color: node.text_color }),
    group_id: node.group?.id,
    parent_id: node.parent?.id ?? null,
    parent_iid: node.parent ? Number(node.parent.iid) : null,
    imported: false,
    imported_from: 'none',
    title: node.title,
    description: node.description,
    confidential: String(node.confidential),
    author: node.author,
    start_date: day(node.start_date),
    // Editor-only keys, which GitLab omits for others: the fields withhold them (null where the
    // flag, a non-null column, would answer).
    ...(node.start_date_is_fixed != null && {
      start_date_is_fixed: node.start_date_is_fixed,
      start_date_fixed: day(node.start_date_fixed),
      start_date_from_inherited_source: day(node.start_date_from_inherited_source),
      start_date_from_milestones: day(node.start_date_from_milestones),
    }),
    end_date: day(node.due_date),
    due_date: day(node.due_date),
    ...(node.due_date_is_fixed != null && {
      due_date_is_fixed: node.due_date_is_fixed,
      due_date_fixed: day(node.due_date_fixed),
      due_date_from_inherited_source: day(node.due_date_from_inherited_source),
      due_date_from_milestones: day(node.due_date_from_milestones),
    }),
    state: node.state,
    web_url: node.web_url,
    references,
    reference: references.relative,
    created_at: node.created_at,
    updated_at: node.updated_at,
    closed_at: node.closed_at,
    labels: opts.labelDetails ? labels.map(labelEntity) : labels.map((l) => l.name),
    upvotes: node.upvotes,
    downvotes: node.downvotes,
    ...(node.subscribed != null && { subscribed: node.subscribed }),
    _links: node._links,
  };
}

const awardEntity = (award: AwardEmojiEntityFragment) => ({ ...award, awardable_type: 'Epic', url: null });

const LIST_PARAMS = {
  id: param.ref(),
  order_by: param.oneOf(['created_at', 'updated_at', 'title'], { default: 'created_at' }),
  sort: param.oneOf(['asc', 'desc'], { default: 'desc' }),
  search: param.string(),
  state: param.oneOf(['opened', 'closed', 'all'], { default: 'all' }),
  author_id: param.int(),
  author_username: param.string(),
  labels: param.stringArray({ description: 'Comma-separated label names; `None` or `Any`.' }),
  with_labels_details: param.bool({ default: false }),
  created_after: param.dateTime(),
  created_before: param.dateTime(),
  updated_after: param.dateTime(),
  updated_before: param.dateTime(),
  include_ancestor_groups: param.bool({ default: false }),
  include_descendant_groups: param.bool({ default: true }),
  my_reaction_emoji: param.string({ description: 'An emoji name, `None` or `Any`.' }),
  confidential: param.bool(),
  not: param.hash({ labels: param.stringArray(), author_id: param.int(), author_username: param.string() }),
};

const EPIC = { id: param.ref(), epic_iid: param.int({ required: true }) };

/** The epic a route names, as the group and iid of the epic mutations' inputs. */
const epicRef = (v: Values<typeof EPIC>) => ({ groupId: v.id.id, groupPath: v.id.fullPath, iid: String(v.epic_iid) });

/** An epic target of the generic mutations (to-do, award emoji), named by group and iid. */
const epicTarget = (v: Values<typeof EPIC>) => ({ groupId: v.id.id, groupPath: v.id.fullPath, epicIid: String(v.epic_iid) });

/** `parent_id` as the global id GraphQL takes; an empty value or JSON null removes the parent. */
const parentParam = (p: Params, id: number | undefined) => {
  if (!p.has('parent_id')) return undefined;
  const raw = p.value('parent_id');
  if (raw === null || raw === '') return null;
  return id === undefined ? undefined : gid('Epic', id);
};

/** Dates both create and update take; the deprecated `start_date` / `end_date` fill the fixed dates. */
const DATE_PARAMS = {
  start_date_fixed: param.date(),
  start_date: param.date({ description: 'Deprecated: use start_date_fixed.' }),
  start_date_is_fixed: param.bool(),
  due_date_fixed: param.date(),
  end_date: param.date({ description: 'Deprecated: use due_date_fixed.' }),
  due_date_is_fixed: param.bool(),
};

const dates = (v: Values<typeof DATE_PARAMS>, p: Params) => ({
  startDateFixed: p.has('start_date_fixed') ? v.start_date_fixed : v.start_date,
  startDateIsFixed: v.start_date_is_fixed,
  dueDateFixed: p.has('due_date_fixed') ? v.due_date_fixed : v.end_date,
  dueDateIsFixed: v.due_date_is_fixed,
});

const ATTRIBUTES = {
  description: param.string(),
  color: param.string({ description: 'Behind the feature flag `epic_highlight_color`.' }),
  confidential: param.bool(),
  parent_id: param.int(),
  ...DATE_PARAMS,
};

const singleEpic = <E>(group: { epic?: E | null } | null | undefined): E => {
  const epic = found(group, 'Group').epic;
  // GitLab finds the epic, then authorizes it: a missing one is 403, like one the viewer may not read.
  if (!epic) throw new ForbiddenError();
  return epic;
};

/** GitLab answers the epic routes under `/groups/:id/-/epics` too. */
const dashed = (path: string) => [path, path.replace('/epics', '/-/epics')];

export const routes = defineRoutes(
  [
    ...dashed('/groups/:id/epics').map((path) =>
      route({
        method: 'GET',
        path,
        operation: 'GroupEpics',
        paginated: true,
        params: LIST_PARAMS,
        variables: (v) => ({
          ...v.id,
          sort: `${enumValue(v.order_by)}_${enumValue(v.sort)}` as const,
          state: v.state,
          search: v.search,
          authorId: v.author_id,
          authorUsername: v.author_username,
          labelName: v.labels,
          includeAncestorGroups: v.include_ancestor_groups,
          includeDescendantGroups: v.include_descendant_groups,
          confidential: v.confidential,
          myReactionEmoji: v.my_reaction_emoji,
          createdAfter: v.created_after,
          createdBefore: v.created_before,
          updatedAfter: v.updated_after,
          updatedBefore: v.updated_before,
          not: v.not && { labelName: v.not.labels, authorId: v.not.author_id, authorUsername: v.not.author_username },
        }),
        result: (data, v) => page(found(data.group, 'Group').epics, (e) => epicEntity(e, { labelDetails: v.with_labels_details })),
      }),
    ),
    ...dashed('/groups/:id/epics/:epic_iid').map((path) =>
      route({
        method: 'GET',
        path,
        operation: 'GroupEpic',
        params: EPIC,
        variables: (v) => ({ ...v.id, iid: String(v.epic_iid) }),
        result: (data) => epicEntity(singleEpic(data.group)),
      }),
    ),
    ...dashed('/groups/:id/epics').map((path) =>
      route({
        method: 'POST',
        path,
        operation: 'CreateEpic',
        status: 201,
        params: { id: param.ref(), title: param.string({ required: true }), labels: param.stringArray(), created_at: param.dateTime(), ...ATTRIBUTES },
        variables: (v, p) => ({
          input: {
            groupId: v.id.id,
            groupPath: v.id.fullPath,
            title: v.title,
            description: v.description,
            color: v.color,
            confidential: v.confidential,
            createdAt: v.created_at,
            ...dates(v, p),
            addLabels: v.labels,
            parentId: parentParam(p, v.parent_id),
          },
        }),
        result: (data) => epicEntity(expected(data.createEpic?.epic, 'epic')),
      }),
    ),
    ...dashed('/groups/:id/epics/:epic_iid').map((path) =>
      route({
        method: 'PUT',
        path,
        operation: 'UpdateEpic',
        params: {
          ...EPIC,
          title: param.string(),
          labels: param.stringArray({ description: 'Replaces every label; an empty string removes them all.' }),
          add_labels: param.stringArray(),
          remove_labels: param.stringArray(),
          state_event: param.oneOf(['close', 'reopen']),
          updated_at: param.dateTime(),
          ...ATTRIBUTES,
        },
        variables: (v, p) => ({
          input: {
            ...epicRef(v),
            title: v.title,
            description: v.description,
            color: v.color,
            confidential: v.confidential,
            updatedAt: v.updated_at,
            ...dates(v, p),
            labels: v.labels,
            addLabels: v.add_labels,
            removeLabels: v.remove_labels,
            stateEvent: v.state_event && enumValue(v.state_event),
            parentId: parentParam(p, v.parent_id),
          },
        }),
        result: (data) => epicEntity(expected(data.updateEpic?.epic, 'epic')),
      }),
    ),
    ...dashed('/groups/:id/epics/:epic_iid').map((path) =>
      route({
        method: 'DELETE',
        path,
        operation: 'DestroyEpic',
        params: EPIC,
        variables: (v) => ({ input: epicRef(v) }),
      }),
    ),
    route({
      method: 'POST',
      path: '/groups/:id/epics/:epic_iid/todo',
      operation: 'EpicTodoCreate',
      status: 201,
      params: EPIC,
      variables: (v) => ({ input: epicTarget(v) }),
      result: (data) => {
        const todo = data.todoCreate?.todo;
        return todo && { ...todo, group: { ...todo.group, kind: 'group' }, target_type: 'Epic', target: epicEntity(expected(todo.target, 'target')) };
      },
      // GitLab answers 304 Not Modified when the user already has a pending to-do for the epic.
      respond: (res, todo) => {
        if (todo) res.status(201).json(todo);
        else res.status(304).end();
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/epics/:epic_iid/award_emoji',
      operation: 'EpicAwardEmoji',
      paginated: true,
      params: EPIC,
      variables: (v) => ({ ...v.id, iid: String(v.epic_iid) }),
      result: (data) => page(singleEpic(data.group).awardEmoji, awardEntity),
    }),
    route({
      method: 'POST',
      path: '/groups/:id/epics/:epic_iid/award_emoji',
      operation: 'EpicAwardEmojiAdd',
      status: 201,
      params: { ...EPIC, name: param.string({ required: true, allowBlank: false }) },
      variables: (v) => ({ input: { ...epicTarget(v), name: v.name } }),
      result: (data) => awardEntity(expected(data.awardEmojiAdd?.awardEmoji, 'award')),
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/epics/:epic_iid/award_emoji/:award_id',
      operation: 'EpicAwardEmojiRemove',
      params: { ...EPIC, award_id: param.int({ required: true }) },
      variables: (v) => ({ input: { ...epicTarget(v), awardId: v.award_id } }),
    }),
  ],
  { authenticate: 'writes' },
);

/** GitLab's REST `type` of a to-do's target, and the GraphQL TodoTargetEnum value it filters by. */
const TODO_TYPES = { Epic: 'EPIC', 'AlertManagement::Alert': 'ALERT' } as const;
const TARGET_TYPES = { EPIC: 'Epic', ALERT: 'AlertManagement::Alert' } as const;

/** GraphQL's to-do as GitLab's Todo entity (the epic as its entity; an alert's target is not served yet). */
const todoEntity = (todo: TodoEntityFragment) => ({
  ...todo,
  project: todo.project ?? null,
  group: todo.group && { ...todo.group, kind: 'group' },
  target_type: TARGET_TYPES[todo.target_type],
  target: todo.target && epicEntity(todo.target),
});

/** GitLab's Todos API (lib/api/todos.rb: `before { authenticate! }`): only the viewer's own to-dos. */
export const todoRoutes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/todos',
      operation: 'TodoList',
      paginated: true,
      params: {
        action: param.oneOf(['marked']),
        author_id: param.int(),
        project_id: param.int(),
        group_id: param.int(),
        state: param.oneOf(['pending', 'done']),
        type: param.oneOf(Object.keys(TODO_TYPES) as (keyof typeof TODO_TYPES)[]),
      },
      variables: (v) => ({
        action: v.action && [v.action],
        authorId: v.author_id === undefined ? undefined : [String(v.author_id)],
        projectId: v.project_id === undefined ? undefined : [String(v.project_id)],
        groupId: v.group_id === undefined ? undefined : [String(v.group_id)],
        state: v.state && [v.state],
        type: v.type && [TODO_TYPES[v.type]],
      }),
      result: (data) => page(expected(data.currentUser, 'currentUser').todos, todoEntity),
    }),
    route({
      method: 'POST',
      path: '/todos/:id/mark_as_done',
      operation: 'TodoMarkDone',
      status: 201,
      params: { id: param.int({ required: true }) },
      variables: (v) => ({ input: { id: gid('Todo', v.id) } }),
      result: (data) => todoEntity(expected(data.todoMarkDone?.todo, 'todo')),
    }),
    route({
      method: 'POST',
      path: '/todos/mark_as_done',
      operation: 'TodosMarkAllDone',
      status: 204,
      variables: () => ({ input: {} }),
    }),
  ],
  { authenticate: 'always' },
);
