import { MEMBER_ACCESS_LEVELS } from '../../auth/access-levels.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes, type RouteDef } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { REST_SOURCES, sourceInput } from '../../rest/sources.ts';

type MemberNode = { user: Record<string, unknown>; access_level: { integerValue: number } } & Record<string, unknown>;

/** GitLab's member entity: the user's attributes with the membership's beside them. */
const entity = ({ user, access_level, ...membership }: MemberNode) => ({ ...user, access_level: access_level.integerValue, ...membership });


const membership = (p: Params) => ({
  userId: p.int('user_id', { required: true }),
  accessLevel: p.intOneOf('access_level', MEMBER_ACCESS_LEVELS, { required: true }),
  expiresAt: p.date('expires_at'),
});

export const routes = defineRoutes(
  REST_SOURCES.flatMap(({ prefix, kind, resource }): RouteDef[] => [
    ...(['', '/all'] as const).map((suffix): RouteDef => ({
      method: 'GET',
      path: `/${prefix}/:id/members${suffix}`,
      operation: `${kind}Members`,
      paginated: true,
      variables: (p) => ({ ...p.ref('id'), search: p.string('query'), relations: suffix ? ['DIRECT', 'INHERITED'] : ['DIRECT'] }),
      result: (data) => {
        const members = found(data.source, resource).members;
        return { ...members, nodes: members.nodes.map(entity) };
      },
    })),
    ...(['', '/all'] as const).map((suffix): RouteDef => ({
      method: 'GET',
      path: `/${prefix}/:id/members${suffix}/:user_id`,
      operation: `${kind}Member`,
      variables: (p) => ({ ...p.ref('id'), userId: p.int('user_id', { required: true }), inherited: Boolean(suffix) }),
      result: (data) => entity(found(found(data.source, resource).member, 'Member')),
    })),
    {
      method: 'POST',
      path: `/${prefix}/:id/members`,
      operation: 'MemberCreate',
      status: 201,
      variables: (p) => ({ source: sourceInput(kind, p.ref('id')), ...membership(p) }),
      result: (data) => entity(data.memberCreate.member),
    },
    {
      method: 'PUT',
      path: `/${prefix}/:id/members/:user_id`,
      operation: 'MemberUpdate',
      variables: (p) => ({ source: sourceInput(kind, p.ref('id')), ...membership(p) }),
      result: (data) => entity(data.memberUpdate.member),
    },
    {
      method: 'DELETE',
      path: `/${prefix}/:id/members/:user_id`,
      operation: 'MemberDelete',
      status: 204,
      variables: (p) => ({ source: sourceInput(kind, p.ref('id')), userId: p.int('user_id', { required: true }) }),
      result: () => undefined,
    },
  ]),
);
