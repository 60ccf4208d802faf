import type { UserDetailFragment } from '../../generated/operations.ts';
import { param, type Values } from '../../rest/declare.ts';
import { sendAvatar } from '../../core/avatars.ts';
import { defineRoutes, route, type OperationData } from '../../rest/route.ts';
import { expected, found, page, withoutNull } from '../../rest/shape.ts';
import { globalId } from '../../rest/sources.ts';

const GATED = ['email', 'is_admin', 'can_create_group', 'projects_limit', 'confirmed_at'] as const;

/**
 * Profile attributes GitLab's user entity carries that forgegate keeps no column for, as GitLab
 * answers them for a user who never filled them in: empty strings, no pronouns, no followers.
 */
const UNSET_PROFILE = {
  location: '',
  skype: '',
  linkedin: '',
  twitter: '',
  discord: '',
  website_url: '',
  organization: '',
  job_title: '',
  pronouns: null,
  work_information: null,
  followers: 0,
  following: 0,
  is_followed: false,
  local_time: null,
} as const;

const entity = (user: UserDetailFragment) => ({ ...withoutNull(user, [...GATED]), ...UNSET_PROFILE });

const ATTRIBUTES = {
  password: param.string(),
  admin: param.bool(),
  bio: param.string(),
  can_create_group: param.bool(),
  projects_limit: param.int(),
  skip_confirmation: param.bool(),
  avatar: param.file(),
};

const attributes = (v: Values<typeof ATTRIBUTES>) => ({
  password: v.password,
  admin: v.admin,
  bio: v.bio,
  canCreateGroup: v.can_create_group,
  projectsLimit: v.projects_limit,
  skipConfirmation: v.skip_confirmation,
  avatar: v.avatar,
});

/** The administrator's state actions, each a mutation of its own: its REST answer is the mutation's `stateChanged`. */
const stateRoute = <O extends 'UserBlock' | 'UserUnblock' | 'UserBan' | 'UserUnban' | 'UserDeactivate' | 'UserActivate'>(
  action: string,
  operation: O,
  changed: (data: OperationData<O>) => boolean | null | undefined,
) =>
  route({
    method: 'POST',
    path: `/users/:user_id/${action}`,
    operation,
    status: 201,
    params: { user_id: param.int({ required: true }) },
    variables: (v) => ({ input: { id: globalId('User', v.user_id) } }),
    result: (data) => changed(data) ?? null,
  });

export const routes = defineRoutes(
  [
    stateRoute('block', 'UserBlock', (d) => d.userBlock?.stateChanged),
    stateRoute('unblock', 'UserUnblock', (d) => d.userUnblock?.stateChanged),
    stateRoute('ban', 'UserBan', (d) => d.userBan?.stateChanged),
    stateRoute('unban', 'UserUnban', (d) => d.userUnban?.stateChanged),
    stateRoute('deactivate', 'UserDeactivate', (d) => d.userDeactivate?.stateChanged),
    stateRoute('activate', 'UserActivate', (d) => d.userActivate?.stateChanged),
    route({
      method: 'DELETE',
      path: '/users/:user_id',
      operation: 'UserDelete',
      params: { user_id: param.int({ required: true }), hard_delete: param.bool() },
      variables: (v) => ({ input: { id: globalId('User', v.user_id), hardDelete: v.hard_delete } }),
    }),
    route({
      method: 'GET',
      path: '/user',
      operation: 'CurrentUser',
      // GitLab's `resource :user` authenticates every route; `/users` only its writes.
      authenticate: true,
      result: (data) => entity(expected(data.currentUser, 'current user')),
    }),
    route({
      method: 'GET',
      path: '/users',
      operation: 'UserList',
      paginated: true,
      params: { username: param.string(), search: param.string(), active: param.bool(), blocked: param.bool() },
      variables: (v) => ({
        usernames: v.username === undefined ? undefined : [v.username],
        search: v.search,
        active: v.active,
        blocked: v.blocked,
      }),
      result: (data) => page(data.users, entity),
    }),
    route({
      method: 'GET',
      path: '/users/:user_id',
      operation: 'UserById',
      params: { user_id: param.int({ required: true }) },
      variables: (v) => ({ id: globalId('User', v.user_id) }),
      result: (data) => entity(found(data.user, 'User')),
    }),
    route({
      method: 'POST',
      path: '/users',
      operation: 'UserCreate',
      status: 201,
      params: {
        username: param.string({ required: true }),
        name: param.string({ required: true }),
        email: param.string({ required: true }),
        ...ATTRIBUTES,
        reset_password: param.bool(),
        force_random_password: param.bool(),
      },
      variables: (v) => ({
        input: {
          username: v.username,
          name: v.name,
          email: v.email,
          resetPassword: v.reset_password,
          forceRandomPassword: v.force_random_password,
          ...attributes(v),
        },
      }),
      result: (data) => entity(expected(data.userCreate?.user, 'user')),
    }),
    route({
      method: 'PUT',
      path: '/users/:user_id',
      operation: 'UserUpdate',
      params: { user_id: param.int({ required: true }), username: param.string(), name: param.string(), email: param.string(), ...ATTRIBUTES },
      variables: (v) => ({
        input: { id: globalId('User', v.user_id), ...attributes(v), username: v.username, name: v.name, email: v.email },
      }),
      result: (data) => entity(expected(data.userUpdate?.user, 'user')),
    }),
  ],
  { authenticate: 'writes' },
);

/** GitLab's address of a user's avatar (users are public profiles, so are their avatars). */
export const webRoutes = [
  route({
    method: 'GET',
    path: '/uploads/-/system/user/avatar/:id/:filename',
    operation: 'UserAvatar',
    params: { id: param.int({ required: true }), filename: param.string({ required: true }) },
    variables: (v) => ({ id: globalId('User', v.id) }),
    result: (data, v) => ({ model: 'user' as const, id: v.id, name: v.filename, url: data.user?.avatarUrl ?? null }),
    respond: (res, served, ctx) => sendAvatar(res, ctx.deps.config.dataDir, served),
  }),
];
