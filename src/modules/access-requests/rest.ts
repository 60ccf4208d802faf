import type { AccessRequesterEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, omit, page } from '../../rest/shape.ts';
import { REST_SOURCES, sourceInput } from '../../rest/sources.ts';
import { memberEntity } from '../members/entity.ts';

/** GitLab's AccessRequester: the user's basic attributes, then when they asked. */
const requesterEntity = (request: AccessRequesterEntityFragment) => omit(request, ['user'], { ...request.user });

const REQUESTER = { id: param.ref(), user_id: param.int({ required: true }) };

export const routes = defineRoutes(
  REST_SOURCES.flatMap(({ prefix, kind, resource }) => [
    route({
      method: 'GET',
      path: `/${prefix}/:id/access_requests`,
      operation: `${kind}AccessRequests`,
      paginated: true,
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => page(found(data.source, resource).accessRequests, requesterEntity),
    }),
    route({
      method: 'POST',
      path: `/${prefix}/:id/access_requests`,
      operation: 'AccessRequestCreate',
      status: 201,
      params: { id: param.ref() },
      variables: (v) => ({ input: sourceInput(kind, v.id) }),
      result: (data) => requesterEntity(expected(data.accessRequestCreate?.accessRequest, 'access request')),
    }),
    route({
      method: 'PUT',
      path: `/${prefix}/:id/access_requests/:user_id/approve`,
      operation: 'AccessRequestApprove',
      status: 201,
      params: { ...REQUESTER, access_level: param.int({ description: "Default 30 (Developer); never above the approver's own level." }) },
      variables: (v) => ({ input: { ...sourceInput(kind, v.id), userId: v.user_id, accessLevel: v.access_level } }),
      result: (data) => memberEntity(expected(data.accessRequestApprove?.member, 'member')),
    }),
    route({
      method: 'DELETE',
      path: `/${prefix}/:id/access_requests/:user_id`,
      operation: 'AccessRequestDeny',
      params: REQUESTER,
      variables: (v) => ({ input: { ...sourceInput(kind, v.id), userId: v.user_id } }),
    }),
  ]),
  { authenticate: 'always' },
);
