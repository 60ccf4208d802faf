import { sendAvatar } from '../../core/avatars.ts';
import { param } from '../../rest/declare.ts';
import { cursorKeyset } from '../../rest/pagination.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { globalId, sourceInput } from '../../rest/sources.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { groupEntity } from './entity.ts';

const VISIBILITY = ['private', 'internal', 'public'] as const;

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/groups',
      operation: 'GroupList',
      paginated: true,
      // GitLab's groups seek by name only, ascending, with its cursors.
      keyset: cursorKeyset({ name: 'asc' }, (last) => ({ name: String(last.name), id: String(last.id) })),
      params: {
        search: param.string(),
        top_level_only: param.bool(),
        all_available: param.bool(),
        owned: param.bool(),
        skip_groups: param.intArray(),
      },
      variables: (v) => ({ search: v.search, topLevelOnly: v.top_level_only, allAvailable: v.all_available, owned: v.owned, skipGroups: v.skip_groups }),
      result: (data) => page(data.groups, groupEntity),
    }),
    route({
      method: 'GET',
      path: '/groups/:id',
      operation: 'GroupGet',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => groupEntity(found(data.group, 'Group')),
    }),
    // Direct subgroups, and every group below (`descendant_groups`).
    ...(['subgroups', 'descendant_groups'] as const).map((list) =>
      route({
        method: 'GET',
        path: `/groups/:id/${list}`,
        operation: 'GroupSubgroups',
        paginated: true,
        params: { id: param.ref(), search: param.string() },
        variables: (v) => ({ ...v.id, search: v.search, allDescendants: list === 'descendant_groups' }),
        result: (data) => page(found(data.group, 'Group').descendantGroups, groupEntity),
      }),
    ),
    route({
      method: 'POST',
      path: '/groups',
      operation: 'GroupCreate',
      status: 201,
      params: {
        name: param.string({ required: true }),
        path: param.string({ required: true }),
        parent_id: param.int(),
        visibility: param.oneOf(VISIBILITY),
        description: param.string(),
        request_access_enabled: param.bool(),
      },
      variables: (v) => ({
        input: {
          name: v.name,
          path: v.path,
          parentId: globalId('Group', v.parent_id),
          visibility: v.visibility,
          description: v.description,
          requestAccessEnabled: v.request_access_enabled,
        },
      }),
      result: (data) => groupEntity(expected(data.groupCreate?.group, 'group')),
    }),
    route({
      method: 'PUT',
      path: '/groups/:id',
      operation: 'GroupUpdate',
      params: {
        id: param.ref(),
        name: param.string({ allowBlank: false }),
        path: param.string({ allowBlank: false }),
        description: param.string(),
        visibility: param.oneOf(VISIBILITY),
        request_access_enabled: param.bool(),
        avatar: param.file(),
      },
      variables: (v) => ({
        input: {
          avatar: v.avatar,
          id: v.id.id,
          fullPath: v.id.fullPath,
          name: v.name,
          path: v.path,
          description: v.description,
          visibility: v.visibility,
          requestAccessEnabled: v.request_access_enabled,
        },
      }),
      result: (data) => groupEntity(expected(data.groupUpdate?.group, 'group')),
    }),
    route({
      method: 'POST',
      path: '/groups/:id/share',
      operation: 'GroupShare',
      status: 201,
      params: {
        id: param.ref(),
        group_id: param.int({ required: true }),
        group_access: param.int({ required: true, documented: { enum: [10, 20, 30, 40, 50] } }),
        expires_at: param.date(),
      },
      variables: (v) => ({ input: { ...v.id, sharedWithGroupId: v.group_id, groupAccess: v.group_access, expiresAt: v.expires_at } }),
      result: (data) => groupEntity(expected(data.groupShare?.group, 'group')),
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/share/:group_id',
      operation: 'GroupShareDelete',
      params: { id: param.ref(), group_id: param.int({ required: true }) },
      variables: (v) => ({ input: { ...v.id, sharedWithGroupId: v.group_id } }),
    }),
    route({
      method: 'POST',
      path: '/groups/:id/transfer',
      operation: 'GroupTransfer',
      status: 201,
      params: { id: param.ref(), group_id: param.int() },
      variables: (v) => ({ input: { ...v.id, parentId: v.group_id } }),
      result: (data) => groupEntity(expected(data.groupTransfer?.group, 'group')),
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id',
      operation: 'GroupDelete',
      status: 202,
      params: { id: param.ref() },
      variables: (v) => ({ input: sourceInput('Group', v.id) }),
      result: () => ({ message: '202 Accepted' }),
    }),
  ],
  { authenticate: 'writes' },
);

/** GitLab's address of a group's avatar, for those who can see the group. */
export const webRoutes = [
  route({
    method: 'GET',
    path: '/uploads/-/system/group/avatar/:id/:filename',
    operation: 'GroupAvatar',
    params: { id: param.int({ required: true }), filename: param.string({ required: true }) },
    variables: (v) => ({ id: v.id }),
    result: (data, v) => ({ model: 'group' as const, id: v.id, name: v.filename, url: data.group?.avatarUrl ?? null }),
    respond: (res, served, ctx) => sendAvatar(res, ctx.deps.config.dataDir, served),
  }),
];
