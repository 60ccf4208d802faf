import type { LabelEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { projectInput, REST_SOURCES, sourceInput } from '../../rest/sources.ts';

/** Issue and merge request counters: forgegate has neither, so they are zero. */
const entity = (label: LabelEntityFragment) => ({
  ...label,
  description_html: label.description ?? '',
  open_issues_count: 0,
  closed_issues_count: 0,
  open_merge_requests_count: 0,
});

/** `:label_id`: an id (digits, tried as a title too) or a URL-encoded title, as GitLab's find_label reads it. */
const isId = (value: string) => /^\d{1,9}$/.test(value);
const labelRef = (value: string) => (isId(value) ? { labelId: Number(value) } : { title: value });

const CHANGES = { new_name: param.string(), color: param.string(), description: param.string(), priority: param.nullable(param.int()) };
/** The label named in the body: its id or its name, exactly one (the service checks). */
const BODY_LABEL = { label_id: param.int(), name: param.string() };

export const routes = defineRoutes(
  [
    ...REST_SOURCES.flatMap(({ prefix, kind, resource }) => [
      route({
        method: 'GET',
        path: `/${prefix}/:id/labels`,
        operation: `${kind}Labels`,
        paginated: true,
        params: {
          id: param.ref(),
          include_ancestor_groups: param.bool(),
          search: param.string(),
          // A group's list only: its subgroups' labels, and (only_group_labels=false) its projects'.
          ...(kind === 'Group' && { include_descendant_groups: param.bool(), only_group_labels: param.bool() }),
        },
        // GitLab's REST list includes ancestor groups' labels unless told not to, and a group's list
        // leaves its projects' labels out unless told to; GraphQL's does neither.
        variables: (v) => ({
          ...v.id,
          includeAncestorGroups: v.include_ancestor_groups ?? true,
          search: v.search,
          ...(kind === 'Group' && { includeDescendantGroups: v.include_descendant_groups ?? false, onlyGroupLabels: v.only_group_labels ?? true }),
        }),
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
      route({
        method: 'GET',
        path: `/${prefix}/:id/labels/:label_id`,
        operation: `${kind}Label`,
        params: { id: param.ref(), label_id: param.string({ required: true }), include_ancestor_groups: param.bool({ default: true }) },
        variables: (v) => ({ ...v.id, ...labelRef(v.label_id), includeAncestorGroups: v.include_ancestor_groups }),
        result: (data) => entity(found(found(data.source, resource).label, 'Label')),
      }),
      route({
        method: 'PUT',
        path: `/${prefix}/:id/labels/:label_id`,
        operation: 'LabelUpdate',
        params: {
          id: param.ref(),
          label_id: param.string({ required: true }),
          ...CHANGES,
        },
        variables: (v) => ({
          input: {
            ...sourceInput(kind, v.id),
            ...labelRef(v.label_id),
            newTitle: v.new_name,
            color: v.color,
            description: v.description,
            priority: v.priority,
          },
        }),
        result: (data) => entity(expected(data.labelUpdate?.label, 'label')),
      }),
      route({
        method: 'DELETE',
        path: `/${prefix}/:id/labels/:label_id`,
        operation: 'LabelDelete',
        params: { id: param.ref(), label_id: param.string({ required: true }) },
        variables: (v) => ({ input: { ...sourceInput(kind, v.id), ...labelRef(v.label_id) } }),
      }),
      // GitLab still serves the older form that names the label in the body (`label_id` or `name`);
      // python-gitlab 3.x updates labels through it.
      route({
        method: 'PUT',
        path: `/${prefix}/:id/labels`,
        operation: 'LabelUpdate',
        params: { id: param.ref(), ...BODY_LABEL, ...CHANGES },
        variables: (v) => ({
          input: {
            ...sourceInput(kind, v.id),
            labelId: v.label_id,
            title: v.name,
            newTitle: v.new_name,
            color: v.color,
            description: v.description,
            priority: v.priority,
          },
        }),
        result: (data) => entity(expected(data.labelUpdate?.label, 'label')),
      }),
      route({
        method: 'DELETE',
        path: `/${prefix}/:id/labels`,
        operation: 'LabelDelete',
        params: { id: param.ref(), ...BODY_LABEL },
        variables: (v) => ({ input: { ...sourceInput(kind, v.id), labelId: v.label_id, title: v.name } }),
      }),
      // GitLab's subscriptions API: 201 with the label, 304 when nothing changes.
      ...(['subscribe', 'unsubscribe'] as const).map((action) =>
        route({
          method: 'POST',
          path: `/${prefix}/:id/labels/:label_id/${action}`,
          operation: 'LabelSubscribe',
          status: 201,
          params: { id: param.ref(), label_id: param.string({ required: true }) },
          variables: (v) => ({ input: { ...sourceInput(kind, v.id), ...labelRef(v.label_id), subscribed: action === 'subscribe' } }),
          result: (data) => entity(expected(data.labelSubscribe?.label, 'label')),
        }),
      ),
    ]),
    route({
      method: 'PUT',
      path: '/projects/:id/labels/:label_id/promote',
      operation: 'LabelPromote',
      params: { id: param.ref(), label_id: param.string({ required: true }) },
      variables: (v) => ({ input: { ...projectInput(v.id), ...labelRef(v.label_id) } }),
      result: (data) => entity(expected(data.labelPromote?.label, 'label')),
    }),
  ],
  { authenticate: 'always' },
);
