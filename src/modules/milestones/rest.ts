import type { Params } from '../../rest/params.ts';
import { defineRoutes, type RouteDef } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { REST_SOURCES, sourceInput } from '../../rest/sources.ts';

const attributes = (p: Params) => ({
  description: p.string('description'),
  dueDate: p.date('due_date'),
  startDate: p.date('start_date'),
});

/** GitLab leaves project_id out of group milestones and group_id out of project milestones. */
export const milestoneEntity = ({ project_id, group_id, ...rest }: Record<string, unknown>) => ({
  ...(project_id != null ? { project_id } : { group_id }),
  ...rest,
});

export const routes = defineRoutes(
  REST_SOURCES.flatMap(({ prefix, kind, resource }): RouteDef[] => [
    {
      method: 'GET',
      path: `/${prefix}/:id/milestones`,
      operation: `${kind}Milestones`,
      paginated: true,
      variables: (p) => ({
        ...p.ref('id'),
        state: p.oneOf('state', ['active', 'closed'] as const),
        title: p.string('title'),
        search: p.string('search'),
        iids: p.intArray('iids'),
      }),
      result: (data) => {
        const milestones = found(data.source, resource).milestones;
        return { ...milestones, nodes: milestones.nodes.map(milestoneEntity) };
      },
    },
    {
      method: 'GET',
      path: `/${prefix}/:id/milestones/:milestone_id`,
      operation: `${kind}Milestone`,
      variables: (p) => ({ ...p.ref('id'), milestoneId: p.int('milestone_id', { required: true }) }),
      result: (data) => milestoneEntity(found(found(data.source, resource).milestone, 'Milestone')),
    },
    {
      method: 'POST',
      path: `/${prefix}/:id/milestones`,
      operation: 'MilestoneCreate',
      status: 201,
      variables: (p) => ({
        source: sourceInput(kind, p.ref('id')),
        title: p.string('title', { required: true, allowBlank: false }),
        attributes: attributes(p),
      }),
      result: (data) => milestoneEntity(data.milestoneCreate.milestone),
    },
    {
      method: 'PUT',
      path: `/${prefix}/:id/milestones/:milestone_id`,
      operation: 'MilestoneUpdate',
      variables: (p) => ({
        source: sourceInput(kind, p.ref('id')),
        milestoneId: p.int('milestone_id', { required: true }),
        attributes: {
          ...attributes(p),
          title: p.string('title', { allowBlank: false }),
          stateEvent: p.oneOf('state_event', ['close', 'activate'] as const),
        },
      }),
      result: (data) => milestoneEntity(data.milestoneUpdate.milestone),
    },
  ]),
);
