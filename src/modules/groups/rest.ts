import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';

const VISIBILITY = ['private', 'internal', 'public'] as const;

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/groups',
    operation: 'GroupList',
    paginated: true,
    variables: (p) => ({
      search: p.string('search'),
      topLevelOnly: p.bool('top_level_only'),
      allAvailable: p.bool('all_available'),
      owned: p.bool('owned'),
    }),
    result: (data) => data.groups,
  },
  {
    method: 'GET',
    path: '/groups/:id',
    operation: 'GroupGet',
    variables: (p) => p.ref('id'),
    result: (data) => found(data.group, 'Group'),
  },
  {
    method: 'GET',
    path: '/groups/:id/subgroups',
    operation: 'GroupSubgroups',
    paginated: true,
    variables: (p) => ({ ...p.ref('id'), search: p.string('search') }),
    result: (data) => found(data.group, 'Group').descendantGroups,
  },
  {
    method: 'POST',
    path: '/groups',
    operation: 'GroupCreate',
    status: 201,
    variables: (p) => ({
      name: p.string('name', { required: true }),
      path: p.string('path', { required: true }),
      parentId: p.int('parent_id'),
      visibility: p.oneOf('visibility', VISIBILITY),
      description: p.string('description'),
      requestAccessEnabled: p.bool('request_access_enabled'),
    }),
    result: (data) => data.groupCreate.group,
  },
  {
    method: 'DELETE',
    path: '/groups/:id',
    operation: 'GroupDelete',
    status: 202,
    variables: (p) => p.ref('id'),
    result: () => ({ message: '202 Accepted' }),
  },
]);
