import type { UserStatusEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { globalId } from '../../rest/sources.ts';
import { CLEAR_STATUS_AFTER } from './service.ts';

/** GitLab's status entity; a user without a status answers every key null. */
const statusEntity = (status: UserStatusEntityFragment | null | undefined) => ({
  emoji: status?.emoji ?? null,
  availability: status?.availability?.toLowerCase() ?? null,
  message: status?.message ?? null,
  message_html: status?.message_html ?? null,
  clear_status_at: status?.clear_status_at ?? null,
});

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/user/status',
    operation: 'UserStatusGet',
    authenticate: true,
    result: (data) => statusEntity(data.userStatus),
  }),
  route({
    method: 'PUT',
    path: '/user/status',
    operation: 'UserStatusSet',
    authenticate: true,
    params: {
      emoji: param.string(),
      message: param.string(),
      availability: param.oneOf(['not_set', 'busy']),
      clear_status_after: param.oneOf(Object.keys(CLEAR_STATUS_AFTER) as (keyof typeof CLEAR_STATUS_AFTER)[]),
    },
    variables: (v) => ({
      input: {
        emoji: v.emoji,
        message: v.message,
        availability: v.availability && v.availability === 'busy' ? 'BUSY' : v.availability && 'NOT_SET',
        clearStatusAfter: v.clear_status_after && (`AFTER_${v.clear_status_after.toUpperCase()}` as never),
      },
    }),
    result: (data) => statusEntity(data.userStatusSet?.status),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/status',
    operation: 'UserStatusGet',
    // `:user_id` is an id or a username.
    params: { user_id: param.string({ required: true }) },
    variables: (v) => (/^\d+$/.test(v.user_id) ? { id: globalId('User', Number(v.user_id)) } : { username: v.user_id }),
    result: (data) => statusEntity(data.userStatus),
  }),
]);
