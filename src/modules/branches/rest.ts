import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { commitEntity } from '../commits/rest.ts';

const BRANCHES = '/projects/:id/repository/branches';

const entity = ({ commit, ...branch }: Record<string, unknown>) => ({ ...branch, commit: commitEntity(commit as Record<string, unknown>) });

export const routes = defineRoutes([
  {
    method: 'GET',
    path: BRANCHES,
    operation: 'ProjectBranches',
    paginated: true,
    variables: (p) => ({ ...p.ref('id'), search: p.string('search') }),
    result: (data) => {
      const branches = found(data.project, 'Project').repository.branches;
      return { ...branches, nodes: branches.nodes.map(entity) };
    },
  },
  {
    method: 'GET',
    path: `${BRANCHES}/:branch`,
    operation: 'ProjectBranch',
    variables: (p) => ({ ...p.ref('id'), name: p.string('branch', { required: true }) }),
    result: (data) => entity(found(found(data.project, 'Project').repository.branch, 'Branch')),
  },
  {
    method: 'POST',
    path: BRANCHES,
    operation: 'BranchCreate',
    status: 201,
    variables: (p) => ({ ...p.ref('id'), name: p.string('branch', { required: true, allowBlank: false }), ref: p.string('ref', { required: true, allowBlank: false }) }),
    result: (data) => entity(data.createBranch.branch),
  },
  {
    method: 'DELETE',
    path: `${BRANCHES}/:branch`,
    operation: 'BranchDelete',
    variables: (p) => ({ ...p.ref('id'), name: p.string('branch', { required: true }) }),
    result: () => undefined,
  },
]);
