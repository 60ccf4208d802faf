import { param, type Values } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { globalId, projectInput } from '../../rest/sources.ts';

const VISIBILITY = ['private', 'internal', 'public'] as const;
const ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;

const ATTRIBUTES = {
  name: param.string(),
  path: param.string(),
  description: param.string(),
  visibility: param.oneOf(VISIBILITY),
  default_branch: param.string(),
  topics: param.stringArray(),
  /** GitLab's former name of `topics`; `topics` wins when both are sent. */
  tag_list: param.stringArray(),
};

const attributes = (v: Values<typeof ATTRIBUTES>) => ({
  topics: v.topics ?? v.tag_list,
  name: v.name,
  path: v.path,
  description: v.description,
  visibility: v.visibility,
  defaultBranch: v.default_branch,
});

/** The filters of every project list (`/projects`, `/users/:id/projects`). */
const LIST_FILTERS = {
  search: param.string(),
  membership: param.bool(),
  owned: param.bool(),
  visibility: param.oneOf(VISIBILITY),
  order_by: param.oneOf(ORDER_BY),
  sort: param.oneOf(['asc', 'desc']),
};

const listFilters = (v: Values<typeof LIST_FILTERS>) => ({
  search: v.search,
  membership: v.membership,
  owned: v.owned,
  visibility: v.visibility,
  // REST's default order is created_at desc; GraphQL's (GitLab's) id_desc.
  sort: `${v.order_by ?? 'created_at'}_${v.sort ?? 'desc'}`,
});

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/projects',
      operation: 'ProjectList',
      paginated: true,
      params: LIST_FILTERS,
      variables: listFilters,
      result: (data) => page(data.projects),
    }),
    route({
      method: 'GET',
      path: '/projects/:id',
      operation: 'ProjectGet',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => found(data.project, 'Project'),
    }),
    route({
      method: 'GET',
      path: '/users/:user_id/projects',
      operation: 'UserProjects',
      paginated: true,
      params: { user_id: param.string({ required: true }), ...LIST_FILTERS },
      variables: (v) => ({
        // An id, or a username (GitLab's find_user).
        ...(/^\d{1,9}$/.test(v.user_id) ? { userId: globalId('User', Number(v.user_id)) } : { username: v.user_id }),
        ...listFilters(v),
      }),
      result: (data) => page(found(data.user, 'User').namespace?.projects),
    }),
    route({
      method: 'GET',
      path: '/groups/:id/projects',
      operation: 'GroupProjects',
      paginated: true,
      params: { id: param.ref(), include_subgroups: param.bool(), search: param.string() },
      variables: (v) => ({ ...v.id, includeSubgroups: v.include_subgroups, search: v.search }),
      result: (data) => page(found(data.group, 'Group').projects),
    }),
    route({
      method: 'POST',
      path: '/projects',
      operation: 'ProjectCreate',
      status: 201,
      params: { namespace_id: param.int(), initialize_with_readme: param.bool(), ...ATTRIBUTES },
      variables: (v) => ({ input: { namespaceId: globalId('Namespace', v.namespace_id), initializeWithReadme: v.initialize_with_readme, ...attributes(v) } }),
      result: (data) => expected(data.projectCreate?.project, 'project'),
    }),
    route({
      method: 'PUT',
      path: '/projects/:id',
      operation: 'ProjectUpdate',
      params: { id: param.ref(), ...ATTRIBUTES },
      variables: (v) => ({ input: { ...projectInput(v.id), ...attributes(v) } }),
      result: (data) => expected(data.projectUpdate?.project, 'project'),
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id',
      operation: 'ProjectDelete',
      status: 202,
      params: { id: param.ref() },
      variables: (v) => ({ input: projectInput(v.id) }),
      result: () => ({ message: '202 Accepted' }),
    }),
  ],
  { authenticate: 'writes' },
);
