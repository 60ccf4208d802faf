import type { Params } from '../../rest/params.ts';
import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';

const VISIBILITY = ['private', 'internal', 'public'] as const;
const ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;

const attributes = (p: Params) => ({
  name: p.string('name'),
  path: p.string('path'),
  description: p.string('description'),
  visibility: p.oneOf('visibility', VISIBILITY),
  defaultBranch: p.string('default_branch'),
});

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/projects',
    operation: 'ProjectList',
    paginated: true,
    variables: (p) => ({
      search: p.string('search'),
      membership: p.bool('membership'),
      owned: p.bool('owned'),
      visibility: p.oneOf('visibility', VISIBILITY),
      orderBy: p.oneOf('order_by', ORDER_BY),
      sort: p.oneOf('sort', ['asc', 'desc'] as const),
    }),
    result: (data) => data.projects,
  },
  {
    method: 'GET',
    path: '/projects/:id',
    operation: 'ProjectGet',
    variables: (p) => p.ref('id'),
    result: (data) => found(data.project, 'Project'),
  },
  {
    method: 'GET',
    path: '/groups/:id/projects',
    operation: 'GroupProjects',
    paginated: true,
    variables: (p) => ({ ...p.ref('id'), includeSubgroups: p.bool('include_subgroups'), search: p.string('search') }),
    result: (data) => found(data.group, 'Group').projects,
  },
  {
    method: 'POST',
    path: '/projects',
    operation: 'ProjectCreate',
    status: 201,
    variables: (p) => {
      p.atLeastOneOf('name', 'path');
      return {
        namespaceId: p.int('namespace_id'),
        initializeWithReadme: p.bool('initialize_with_readme'),
        attributes: attributes(p),
      };
    },
    result: (data) => data.projectCreate.project,
  },
  {
    method: 'PUT',
    path: '/projects/:id',
    operation: 'ProjectUpdate',
    variables: (p) => {
      p.atLeastOneOf('name', 'path', 'description', 'visibility', 'default_branch');
      return { ...p.ref('id'), attributes: attributes(p) };
    },
    result: (data) => data.projectUpdate.project,
  },
  {
    method: 'DELETE',
    path: '/projects/:id',
    operation: 'ProjectDelete',
    status: 202,
    variables: (p) => p.ref('id'),
    result: () => ({ message: '202 Accepted' }),
  },
]);
