import { param, type Values } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { globalId, projectInput, REST_SOURCES, sourceInput } from '../../rest/sources.ts';
import { milestoneEntity } from './entity.ts';

const ATTRIBUTES = { description: param.string(), due_date: param.date(), start_date: param.date() };

const attributes = (v: Values<typeof ATTRIBUTES>) => ({ description: v.description, dueDate: v.due_date, startDate: v.start_date });

export const routes = defineRoutes(
  [
    ...REST_SOURCES.flatMap(({ prefix, kind, resource }) => [
      route({
        method: 'GET',
        path: `/${prefix}/:id/milestones`,
        operation: `${kind}Milestones`,
        paginated: true,
        params: {
          id: param.ref(),
          state: param.oneOf(['active', 'closed']),
          title: param.string(),
          search: param.string(),
          iids: param.intArray(),
          // A group's list only: its ancestors' and its descendants' (subgroups and their projects) milestones too.
          ...(kind === 'Group' && { include_ancestors: param.bool(), include_descendants: param.bool() }),
        },
        variables: (v) => ({
          ...v.id,
          state: v.state,
          title: v.title,
          search: v.search,
          iids: v.iids,
          ...(kind === 'Group' && { includeAncestors: v.include_ancestors, includeDescendants: v.include_descendants }),
        }),
        result: (data) => page(found(data.source, resource).milestones, milestoneEntity),
      }),
      route({
        method: 'GET',
        path: `/${prefix}/:id/milestones/:milestone_id`,
        operation: `${kind}Milestone`,
        params: { id: param.ref(), milestone_id: param.int({ required: true }) },
        variables: (v) => ({ ...v.id, milestoneId: v.milestone_id }),
        result: (data) => milestoneEntity(found(found(data.source, resource).milestone, 'Milestone')),
      }),
      route({
        method: 'POST',
        path: `/${prefix}/:id/milestones`,
        operation: 'MilestoneCreate',
        status: 201,
        params: { id: param.ref(), title: param.string({ required: true, allowBlank: false }), ...ATTRIBUTES },
        variables: (v) => ({ input: { ...sourceInput(kind, v.id), title: v.title, ...attributes(v) } }),
        result: (data) => milestoneEntity(expected(data.milestoneCreate?.milestone, 'milestone')),
      }),
      route({
        method: 'PUT',
        path: `/${prefix}/:id/milestones/:milestone_id`,
        operation: 'MilestoneUpdate',
        params: {
          id: param.ref(),
          milestone_id: param.int({ required: true }),
          ...ATTRIBUTES,
          title: param.string({ allowBlank: false }),
          state_event: param.oneOf(['close', 'activate']),
        },
        variables: (v) => ({
          input: { ...sourceInput(kind, v.id), id: globalId('Milestone', v.milestone_id), ...attributes(v), title: v.title, stateEvent: v.state_event },
        }),
        result: (data) => milestoneEntity(expected(data.milestoneUpdate?.milestone, 'milestone')),
      }),
      route({
        method: 'DELETE',
        path: `/${prefix}/:id/milestones/:milestone_id`,
        operation: 'MilestoneDelete',
        params: { id: param.ref(), milestone_id: param.int({ required: true }) },
        variables: (v) => ({ input: { ...sourceInput(kind, v.id), id: globalId('Milestone', v.milestone_id) } }),
      }),
      // forgegate has no issues or merge requests yet: a visible milestone lists none.
      ...(['issues', 'merge_requests'] as const).map((list) =>
        route({
          method: 'GET',
          path: `/${prefix}/:id/milestones/:milestone_id/${list}`,
          operation: `${kind}Milestone`,
          paginated: true,
          params: { id: param.ref(), milestone_id: param.int({ required: true }) },
          variables: (v) => ({ ...v.id, milestoneId: v.milestone_id }),
          result: (data) => {
            found(found(data.source, resource).milestone, 'Milestone');
            return { totalCount: 0, nodes: [] };
          },
        }),
      ),
    ]),
    route({
      method: 'POST',
      path: '/projects/:id/milestones/:milestone_id/promote',
      operation: 'MilestonePromote',
      params: { id: param.ref(), milestone_id: param.int({ required: true }) },
      variables: (v) => ({ input: { ...projectInput(v.id), id: globalId('Milestone', v.milestone_id) } }),
      // The endpoint's value is its `status(200)`: GitLab's body is the number.
      result: () => 200,
    }),
  ],
  { authenticate: 'always' },
);
