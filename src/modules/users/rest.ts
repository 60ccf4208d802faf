import { UnauthorizedError } from '../../graphql/errors.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes } from '../../rest/route.ts';
import { found, withoutNull } from '../../rest/shape.ts';

const GATED = ['email', 'is_admin', 'can_create_group', 'projects_limit', 'confirmed_at'] as const;
const entity = (user: Record<string, unknown>) => withoutNull(user, [...GATED]);

function attributes(p: Params) {
  return {
    password: p.string('password'),
    admin: p.bool('admin'),
    bio: p.string('bio'),
    canCreateGroup: p.bool('can_create_group'),
    projectsLimit: p.int('projects_limit'),
    skipConfirmation: p.bool('skip_confirmation'),
  };
}

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/user',
    operation: 'CurrentUser',
    result: (data) => {
      if (!data.currentUser) throw new UnauthorizedError();
      return entity(data.currentUser);
    },
  },
  {
    method: 'GET',
    path: '/users',
    operation: 'UserList',
    paginated: true,
    variables: (p) => ({
      usernames: p.has('username') ? [p.string('username')] : undefined,
      search: p.string('search'),
      active: p.bool('active'),
      blocked: p.bool('blocked'),
    }),
    result: (data) => ({ ...data.users, nodes: data.users.nodes.map(entity) }),
  },
  {
    method: 'GET',
    path: '/users/:user_id',
    operation: 'UserById',
    variables: (p) => ({ id: p.int('user_id', { required: true }) }),
    result: (data) => entity(found(data.user, 'User')),
  },
  {
    method: 'POST',
    path: '/users',
    operation: 'UserCreate',
    status: 201,
    variables: (p) => {
      p.atLeastOneOf('password', 'reset_password', 'force_random_password');
      return {
        username: p.string('username', { required: true }),
        name: p.string('name', { required: true }),
        email: p.string('email', { required: true }),
        attributes: attributes(p),
      };
    },
    result: (data) => entity(data.userCreate.user),
  },
  {
    method: 'PUT',
    path: '/users/:user_id',
    operation: 'UserUpdate',
    variables: (p) => ({
      id: p.int('user_id', { required: true }),
      attributes: { ...attributes(p), username: p.string('username'), name: p.string('name'), email: p.string('email') },
    }),
    result: (data) => entity(data.userUpdate.user),
  },
]);
