import type { CommitEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';

/** GitLab's commit entity; `trailers` are not parsed yet. */
export const commitEntity = (commit: CommitEntityFragment) => ({ ...commit, trailers: {}, extended_trailers: {} });

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha',
    operation: 'ProjectCommit',
    params: { id: param.ref(), sha: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, ref: v.sha }),
    result: (data) => commitEntity(found(found(data.project, 'Project').repository?.commit, 'Commit')),
  }),
]);
