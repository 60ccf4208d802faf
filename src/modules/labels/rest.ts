import { defineRoutes, type RouteDef } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { REST_SOURCES, sourceInput } from '../../rest/sources.ts';

/** Issue and merge request counters: forgegate has neither, so they are zero. */
const entity = (label: Record<string, unknown>) => ({
  ...label,
  description_html: label.description ?? '',
  open_issues_count: 0,
  closed_issues_count: 0,
  open_merge_requests_count: 0,
  subscribed: false,
});

export const routes = defineRoutes(
  REST_SOURCES.flatMap(({ prefix, kind, resource }): RouteDef[] => [
    {
      method: 'GET',
      path: `/${prefix}/:id/labels`,
      operation: `${kind}Labels`,
      paginated: true,
      variables: (p) => ({ ...p.ref('id'), includeAncestorGroups: p.bool('include_ancestor_groups'), search: p.string('search') }),
      result: (data) => {
        const labels = found(data.source, resource).labels;
        return { ...labels, nodes: labels.nodes.map(entity) };
      },
    },
    {
      method: 'POST',
      path: `/${prefix}/:id/labels`,
      operation: 'LabelCreate',
      status: 201,
      variables: (p) => ({
        source: sourceInput(kind, p.ref('id')),
        title: p.string('name', { required: true, allowBlank: false }),
        color: p.string('color', { required: true, allowBlank: false }),
        description: p.string('description'),
        priority: p.int('priority'),
      }),
      result: (data) => entity(data.labelCreate.label),
    },
  ]),
);
