import { MEMBER_ACCESS_LEVELS } from '../../auth/access-levels.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { globalId, REST_SOURCES, sourceInput } from '../../rest/sources.ts';
import { memberEntity } from './entity.ts';

const MEMBERSHIP = {
  id: param.ref(),
  user_id: param.int({ required: true }),
  access_level: param.int({ required: true, documented: { enum: [...MEMBER_ACCESS_LEVELS] } }),
  expires_at: param.date(),
};

/** Members through a group share, as each parent kind's relation enum names them. */
const SHARED_RELATION = { Project: 'SHARED_INTO_ANCESTORS', Group: 'SHARED_FROM_GROUPS' } as const;

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/users/:user_id/memberships',
      operation: 'UserMemberships',
      paginated: true,
      params: { user_id: param.int({ required: true }), type: param.oneOf(['Project', 'Namespace']) },
      variables: (v) => ({ userId: globalId('User', v.user_id), type: v.type }),
      result: (data) => page(data.userMemberships, (m) => ({ ...m, access_level: m.access_level?.integerValue ?? null })),
    }),
    ...REST_SOURCES.flatMap(({ prefix, kind, resource }) => [
      ...(['', '/all'] as const).map((suffix) =>
        route({
          method: 'GET',
          path: `/${prefix}/:id/members${suffix}`,
          operation: `${kind}Members`,
          paginated: true,
          params: { id: param.ref(), query: param.string(), user_ids: param.intArray() },
          // `/all`: inherited members and those of the groups shared with the group or the project's groups.
          variables: (v) => ({
            ...v.id,
            search: v.query,
            userIds: v.user_ids,
            // Each kind's operation takes its own relation enum; TypeScript cannot tie the value to the operation the same `kind` picked.
            relations: (suffix ? ['DIRECT', 'INHERITED', SHARED_RELATION[kind]] : ['DIRECT']) as never,
          }),
          result: (data) => page(found(data.source, resource).members, memberEntity),
        }),
      ),
      ...(['', '/all'] as const).map((suffix) =>
        route({
          method: 'GET',
          path: `/${prefix}/:id/members${suffix}/:user_id`,
          operation: `${kind}Member`,
          params: { id: param.ref(), user_id: param.int({ required: true }) },
          variables: (v) => ({ ...v.id, userId: v.user_id, inherited: Boolean(suffix) }),
          result: (data) => memberEntity(found(found(data.source, resource).member, 'Member')),
        }),
      ),
      route({
        method: 'POST',
        path: `/${prefix}/:id/members`,
        operation: 'MemberCreate',
        status: 201,
        params: { ...MEMBERSHIP, user_id: param.int(), username: param.string() },
        variables: (v) => ({
          input: {
            ...sourceInput(kind, v.id),
            userId: v.user_id == null ? null : globalId('User', v.user_id),
            username: v.username,
            accessLevel: v.access_level,
            expiresAt: v.expires_at,
          },
        }),
        result: (data) => memberEntity(expected(data.memberCreate?.member, 'member')),
      }),
      route({
        method: 'PUT',
        path: `/${prefix}/:id/members/:user_id`,
        operation: 'MemberUpdate',
        params: MEMBERSHIP,
        variables: (v) => ({
          input: { ...sourceInput(kind, v.id), userId: globalId('User', v.user_id), accessLevel: v.access_level, expiresAt: v.expires_at },
        }),
        result: (data) => memberEntity(expected(data.memberUpdate?.member, 'member')),
      }),
      route({
        method: 'DELETE',
        path: `/${prefix}/:id/members/:user_id`,
        operation: 'MemberDelete',
        params: { id: param.ref(), user_id: param.int({ required: true }) },
        variables: (v) => ({ input: { ...sourceInput(kind, v.id), userId: globalId('User', v.user_id) } }),
      }),
    ]),
  ],
  { authenticate: 'always' },
);
