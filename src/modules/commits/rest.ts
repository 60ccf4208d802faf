import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';

/** GitLab's commit entity; `trailers` are not parsed yet. */
export const commitEntity = (commit: Record<string, unknown>) => ({ ...commit, trailers: {}, extended_trailers: {} });

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha',
    operation: 'ProjectCommit',
    variables: (p) => ({ ...p.ref('id'), ref: p.string('sha', { required: true }) }),
    result: (data) => commitEntity(found(found(data.project, 'Project').repository.commit, 'Commit')),
  },
]);
