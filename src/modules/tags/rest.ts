import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { commitEntity } from '../commits/rest.ts';
import { projectInput } from '../projects/input.ts';

const tagEntity = ({ commit, ...tag }: Record<string, any>) => ({ ...tag, commit: commit && commitEntity(commit) });

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/projects/:id/repository/tags',
    operation: 'ProjectTags',
    paginated: true,
    variables: (p) => ({
      ...p.ref('id'),
      search: p.string('search'),
      orderBy: p.oneOf('order_by', ['name', 'updated'] as const),
      sort: p.oneOf('sort', ['asc', 'desc'] as const),
    }),
    result: (data) => {
      const tags = found(data.project, 'Project').repository.tags;
      return { ...tags, nodes: tags.nodes.map(tagEntity) };
    },
  },
  {
    method: 'GET',
    path: '/projects/:id/repository/tags/:tag_name',
    operation: 'ProjectTag',
    variables: (p) => ({ ...p.ref('id'), name: p.string('tag_name', { required: true }) }),
    result: (data) => tagEntity(found(found(data.project, 'Project').repository.tag, 'Tag')),
  },
  {
    method: 'POST',
    path: '/projects/:id/repository/tags',
    operation: 'TagCreate',
    status: 201,
    variables: (p) => ({
      input: {
        ...projectInput(p.ref('id')),
        name: p.string('tag_name', { required: true }),
        ref: p.string('ref', { required: true }),
        message: p.string('message'),
      },
    }),
    result: (data) => tagEntity(data.tagCreate.tag),
  },
  {
    method: 'DELETE',
    path: '/projects/:id/repository/tags/:tag_name',
    operation: 'TagDelete',
    variables: (p) => ({ input: { ...projectInput(p.ref('id')), name: p.string('tag_name', { required: true }) } }),
    result: () => undefined,
  },
]);
