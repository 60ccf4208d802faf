import type { BranchEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, omit, page } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';
import { commitEntity } from '../commits/entity.ts';

const BRANCHES = '/projects/:id/repository/branches';

const entity = (branch: BranchEntityFragment) => ({ ...omit(branch, ['commit']), commit: branch.commit && commitEntity(branch.commit) });

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: BRANCHES,
    operation: 'ProjectBranches',
    paginated: true,
    params: { id: param.ref(), search: param.string() },
    variables: (v) => ({ ...v.id, search: v.search }),
    result: (data) => page(found(data.project, 'Project').repository?.branches, entity),
  }),
  route({
    method: 'GET',
    path: `${BRANCHES}/:branch`,
    operation: 'ProjectBranch',
    params: { id: param.ref(), branch: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, name: v.branch }),
    result: (data) => entity(found(found(data.project, 'Project').repository?.branch, 'Branch')),
  }),
  route({
    method: 'POST',
    path: BRANCHES,
    operation: 'BranchCreate',
    status: 201,
    params: {
      id: param.ref(),
      branch: param.string({ required: true, allowBlank: false }),
      ref: param.string({ required: true, allowBlank: false }),
    },
    variables: (v) => ({ input: { ...projectInput(v.id), name: v.branch, ref: v.ref } }),
    result: (data) => entity(expected(data.createBranch?.branch, 'branch')),
  }),
  route({
    method: 'DELETE',
    path: `${BRANCHES}/:branch`,
    operation: 'BranchDelete',
    params: { id: param.ref(), branch: param.string({ required: true }) },
    variables: (v) => ({ input: { ...projectInput(v.id), name: v.branch } }),
  }),
]);
