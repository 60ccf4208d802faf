import type { TagEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, omit, page } from '../../rest/shape.ts';
import { commitEntity } from '../commits/entity.ts';
import { projectInput } from '../../rest/sources.ts';

const TAGS = '/projects/:id/repository/tags';

const tagEntity = (tag: TagEntityFragment) => ({ ...omit(tag, ['commit']), commit: tag.commit && commitEntity(tag.commit) });

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: TAGS,
    operation: 'ProjectTags',
    jobToken: true,
    paginated: true,
    params: { id: param.ref(), search: param.string(), order_by: param.oneOf(['name', 'updated']), sort: param.oneOf(['asc', 'desc']) },
    variables: (v) => ({ ...v.id, search: v.search, orderBy: v.order_by, sort: v.sort }),
    result: (data) => page(found(data.project, 'Project').repository?.tags, tagEntity),
  }),
  route({
    method: 'GET',
    path: `${TAGS}/:tag_name`,
    operation: 'ProjectTag',
    jobToken: true,
    params: { id: param.ref(), tag_name: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, name: v.tag_name }),
    result: (data) => tagEntity(found(found(data.project, 'Project').repository?.tag, 'Tag')),
  }),
  route({
    method: 'POST',
    path: TAGS,
    operation: 'TagCreate',
    status: 201,
    params: { id: param.ref(), tag_name: param.string({ required: true }), ref: param.string({ required: true }), message: param.string() },
    variables: (v) => ({ input: { ...projectInput(v.id), name: v.tag_name, ref: v.ref, message: v.message } }),
    result: (data) => tagEntity(expected(data.tagCreate?.tag, 'tag')),
  }),
  route({
    method: 'DELETE',
    path: `${TAGS}/:tag_name`,
    operation: 'TagDelete',
    params: { id: param.ref(), tag_name: param.string({ required: true }) },
    variables: (v) => ({ input: { ...projectInput(v.id), name: v.tag_name } }),
  }),
]);
