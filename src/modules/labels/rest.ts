import type { LabelEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { REST_SOURCES, sourceInput } from '../../rest/sources.ts';

/** Issue and merge request counters: forgegate has neither, so they are zero. */
const entity = (label: LabelEntityFragment) => ({
  ...label,
  description_html: label.description ?? '',
  open_issues_count: 0,
  closed_issues_count: 0,
  open_merge_requests_count: 0,
  subscribed: false,
});

export const routes = defineRoutes(
  REST_SOURCES.flatMap(({ prefix, kind, resource }) => [
    route({
      method: 'GET',
      path: `/${prefix}/:id/labels`,
      operation: `${kind}Labels`,
      paginated: true,
      params: { id: param.ref(), include_ancestor_groups: param.bool(), search: param.string() },
      // GitLab's REST list includes ancestor groups' labels unless told not to; GraphQL's does not.
      variables: (v) => ({ ...v.id, includeAncestorGroups: v.include_ancestor_groups ?? true, search: v.search }),
      result: (data) => page(found(data.source, resource).labels, entity),
    }),
    route({
      method: 'POST',
      path: `/${prefix}/:id/labels`,
      operation: 'LabelCreate',
      status: 201,
      params: {
        id: param.ref(),
        name: param.string({ required: true, allowBlank: false }),
        color: param.string({ required: true, allowBlank: false }),
        description: param.string(),
        priority: param.int(),
      },
      variables: (v) => ({ input: { ...sourceInput(kind, v.id), title: v.name, color: v.color, description: v.description, priority: v.priority } }),
      result: (data) => entity(expected(data.labelCreate?.label, 'label')),
    }),
  ]),
);
