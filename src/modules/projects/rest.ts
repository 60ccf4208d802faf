import { createReadStream } from 'node:fs';
import { idKeyset } from '../../rest/pagination.ts';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../core/context.ts';
import type { ProjectApiSettingsInput } from '../../generated/operations.ts';
import { param, type Param, type ParamShape, type Values } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, nodesOf, page } from '../../rest/shape.ts';
import { globalId, projectInput } from '../../rest/sources.ts';
import { projectEntity } from './entity.ts';
import { openAvatar } from './service.ts';
import { camelName, settingKinds } from './settings.ts';

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

/** Every setting of the table (settings.ts) as a parameter of its REST name. */
const SETTING_PARAMS: ParamShape = Object.fromEntries(
  settingKinds().map(([name, setting]): [string, Param<unknown>] => {
    if (setting.kind === 'boolean') return [name, param.bool()];
    if (setting.kind === 'int') return [name, param.int()];
    if (setting.kind === 'string') return [name, param.string({ allowBlank: true })];
    return [name, param.oneOf(setting.values)];
  }),
);

/** The settings sent, as the operation's input (camelCase); null when none was. */
function settingsInput(v: Record<string, unknown>): ProjectApiSettingsInput | null {
  const given = settingKinds().filter(([name]) => v[name] !== undefined);
  return given.length ? Object.fromEntries(given.map(([name]) => [camelName(name), v[name]])) : null;
}

const attributes = (v: Values<typeof ATTRIBUTES>) => ({
  topics: v.topics ?? v.tag_list,
  name: v.name,
  path: v.path,
  description: v.description,
  visibility: v.visibility,
  defaultBranch: v.default_branch,
  apiSettings: settingsInput(v),
});

/** The order of every project list (`/projects`, `/users/:id/projects`, `/groups/:id/projects`). */
const LIST_ORDER = {
  order_by: param.oneOf(ORDER_BY),
  sort: param.oneOf(['asc', 'desc']),
};

// REST's default order is created_at desc; GraphQL's (GitLab's) id_desc.
const listSort = (v: Values<typeof LIST_ORDER>) => `${v.order_by ?? 'created_at'}_${v.sort ?? 'desc'}`;

/** The filters of the project lists of all projects and of a user's (`/projects`, `/users/:id/projects`). */
const LIST_FILTERS = {
  search: param.string(),
  membership: param.bool(),
  owned: param.bool(),
  visibility: param.oneOf(VISIBILITY),
  ...LIST_ORDER,
};

const listFilters = (v: Values<typeof LIST_FILTERS>) => ({
  search: v.search,
  membership: v.membership,
  owned: v.owned,
  visibility: v.visibility,
  sort: listSort(v),
});

/** A target namespace given as an id, or as an id or full path in one string (GitLab's `namespace`). */
function namespaceChoice(id: number | undefined, idOrPath: string | undefined) {
  if (id !== undefined) return { namespaceId: id };
  if (idOrPath === undefined) return {};
  return /^\d{1,9}$/.test(idOrPath) ? { namespaceId: Number(idOrPath) } : { namespacePath: idOrPath };
}

/**
 * Star, unstar, archive and unarchive: each answers the project with 201 (Grape's POST); a star
 * or unstar that changes nothing answers 304 (the use case's NotModifiedError).
 */
function starAndArchiveRoutes() {
  const params = { id: param.ref() };
  const variables = (v: Values<typeof params>) => ({ input: projectInput(v.id) });
  return [
    route({
      method: 'POST',
      path: '/projects/:id/star',
      operation: 'ProjectStar',
      status: 201,
      params,
      variables,
      result: (data) => projectEntity(expected(data.projectStar?.project, 'project')),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/unstar',
      operation: 'ProjectUnstar',
      status: 201,
      params,
      variables,
      result: (data) => projectEntity(expected(data.projectUnstar?.project, 'project')),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/archive',
      operation: 'ProjectArchiveSet',
      status: 201,
      params,
      variables,
      result: (data) => projectEntity(expected(data.projectArchive?.project, 'project')),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/unarchive',
      operation: 'ProjectUnarchiveSet',
      status: 201,
      params,
      variables,
      result: (data) => projectEntity(expected(data.projectUnarchive?.project, 'project')),
    }),
  ];
}

/** A stored avatar, streamed as GitLab's uploads are served. */
async function sendAvatar(res: Response, avatar: { projectId: number; fileName: string }, ctx: Context) {
  const file = await openAvatar(ctx, avatar.projectId, avatar.fileName);
  res.set({ 'Content-Type': file.contentType, 'Cache-Control': 'max-age=0, private, must-revalidate' });
  await pipeline(createReadStream(file.path), res);
}

/** Avatars at GitLab's upload path, readable by whoever sees the project. */
export const webRoutes = defineRoutes([
  route({
    method: 'GET',
    path: '/uploads/-/system/project/avatar/:id/:filename',
    operation: 'ProjectGet',
    params: { id: param.int({ required: true }), filename: param.string({ required: true }) },
    variables: (v) => ({ id: v.id }),
    result: (data, v) => ({ projectId: found(data.project, 'Project').id!, fileName: v.filename }),
    respond: sendAvatar,
  }),
]);

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/projects',
      operation: 'ProjectList',
      paginated: true,
      keyset: idKeyset,
      params: LIST_FILTERS,
      variables: listFilters,
      result: (data) => page(data.projects, projectEntity),
    }),
    route({
      method: 'GET',
      path: '/projects/:id',
      operation: 'ProjectGet',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => projectEntity(found(data.project, 'Project')),
    }),
    route({
      method: 'GET',
      path: '/users/:user_id/projects',
      operation: 'UserProjects',
      paginated: true,
      keyset: idKeyset,
      params: { user_id: param.string({ required: true }), ...LIST_FILTERS },
      variables: (v) => ({
        // An id, or a username (GitLab's find_user).
        ...(/^\d{1,9}$/.test(v.user_id) ? { userId: globalId('User', Number(v.user_id)) } : { username: v.user_id }),
        ...listFilters(v),
      }),
      result: (data) => page(found(data.user, 'User').namespace?.projects, projectEntity),
    }),
    route({
      method: 'GET',
      path: '/groups/:id/projects',
      operation: 'GroupProjects',
      paginated: true,
      // As /projects: keyset pagination by id only.
      keyset: idKeyset,
      params: { id: param.ref(), include_subgroups: param.bool(), search: param.string(), ...LIST_ORDER },
      variables: (v) => ({ ...v.id, includeSubgroups: v.include_subgroups, search: v.search, sort: listSort(v) }),
      result: (data) => page(found(data.group, 'Group').projects, projectEntity),
    }),
    route({
      method: 'POST',
      path: '/projects',
      operation: 'ProjectCreate',
      status: 201,
      params: { namespace_id: param.int(), initialize_with_readme: param.bool(), ...ATTRIBUTES, ...SETTING_PARAMS },
      variables: (v) => ({ input: { namespaceId: globalId('Namespace', v.namespace_id), initializeWithReadme: v.initialize_with_readme, ...attributes(v) } }),
      result: (data) => projectEntity(expected(data.projectCreate?.project, 'project')),
    }),
    route({
      method: 'PUT',
      path: '/projects/:id',
      operation: 'ProjectUpdate',
      params: { id: param.ref(), avatar: param.file({ description: 'An image of at most 200 KiB (multipart).' }), ...ATTRIBUTES, ...SETTING_PARAMS },
      variables: (v) => ({ input: { ...projectInput(v.id), ...attributes(v), avatar: v.avatar } }),
      result: (data) => projectEntity(expected(data.projectUpdate?.project, 'project')),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/fork',
      operation: 'ProjectFork',
      status: 201,
      params: {
        id: param.ref(),
        namespace_id: param.int(),
        namespace_path: param.string(),
        /** GitLab's deprecated `namespace`: an id or a full path. */
        namespace: param.string(),
        name: param.string(),
        path: param.string(),
        description: param.string(),
        visibility: param.oneOf(VISIBILITY),
      },
      variables: (v) => ({
        input: {
          ...projectInput(v.id),
          ...namespaceChoice(v.namespace_id, v.namespace_path ?? v.namespace),
          name: v.name,
          path: v.path,
          description: v.description,
          visibility: v.visibility,
        },
      }),
      result: (data) => projectEntity(expected(data.projectFork?.project, 'project')),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/forks',
      operation: 'ProjectForks',
      paginated: true,
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => page(found(data.project, 'Project').visibleForks, projectEntity),
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/transfer',
      operation: 'ProjectTransfer',
      params: { id: param.ref(), namespace: param.string({ required: true }) },
      variables: (v) => ({ input: { ...projectInput(v.id), ...namespaceChoice(undefined, v.namespace) } }),
      result: (data) => projectEntity(expected(data.projectTransfer?.project, 'project')),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/groups',
      operation: 'ProjectGroups',
      paginated: true,
      params: { id: param.ref(), search: param.string() },
      variables: (v) => ({ ...v.id, search: v.search }),
      result: (data) => page(found(data.project, 'Project').groups),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/languages',
      operation: 'ProjectLanguages',
      params: { id: param.ref() },
      variables: (v) => v.id,
      // GitLab's answer is an object: language → share in percent.
      result: (data) => Object.fromEntries((found(data.project, 'Project').languages ?? []).map((l) => [l.name, l.share])),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/storage',
      operation: 'ProjectStorage',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => found(data.project, 'Project').repositoryStorage,
    }),
    route({
      method: 'GET',
      path: '/projects/:id/users',
      operation: 'ProjectUsers',
      paginated: true,
      params: { id: param.ref(), search: param.string() },
      variables: (v) => ({ ...v.id, search: v.search }),
      result: (data) => {
        const members = found(data.project, 'Project').projectMembers;
        return { totalCount: members?.totalCount ?? 0, nodes: nodesOf(members ?? { nodes: [] }).map((m) => m.user) };
      },
    }),
    ...starAndArchiveRoutes(),
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
