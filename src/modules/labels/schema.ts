import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { parentOf, readableBelow, resolveParent, resolveProject } from '../parents/parent.ts';
import type { Namespace } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { parentFields, parentInputFields, projectInputFields } from '../parents/parent-fields.ts';
import { ProjectPermissionsRef } from '../projects/index.ts';
import {
  createLabel,
  DEFAULT_LABEL_COLOR,
  deleteLabel,
  findLabel,
  isSubscribed,
  LABEL_WRITE_LEVEL,
  listLabels,
  promoteLabel,
  subscribeToLabel,
  textColor,
  unsubscribeFromLabel,
  updateLabel,
} from './service.ts';

export const LabelRef = builder.prismaObject('Label', {
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (l) => gid(l.projectId ? 'ProjectLabel' : 'GroupLabel', l.id) }),
    databaseId: t.exposeInt('id'),
    title: t.exposeString('name', { nullable: false }),
    color: t.exposeString('color', { nullable: false }),
    textColor: t.string({ nullable: false, resolve: (l) => textColor(l.color) }),
    description: t.exposeString('description', { nullable: true }),
    priority: t.exposeInt('priority', { nullable: true }),
    isProjectLabel: t.boolean({ resolve: (l) => l.projectId != null }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    subscribed: t.boolean({
      description: "The current user follows the label. forgegate's field (GitLab has it in REST only).",
      resolve: (l, _a, ctx) => isSubscribed(ctx, l),
    }),
  }),
});

const LabelSearchFieldList = builder.enumType('LabelSearchFieldList', {
  description: 'List of fields where the provided searchTerm should be looked up',
  values: {
    TITLE: { value: 'title', description: 'Search in title field.' },
    DESCRIPTION: { value: 'description', description: 'Search in description field.' },
  } as const,
});

/**
 * What GitLab's group label list adds below the group: the labels of its subgroups
 * (`includeDescendantGroups`) and, unless `onlyGroupLabels`, those of the projects right in it,
 * each only where the viewer may read it.
 */
async function labelsBelow(ctx: Context, group: Namespace, args: { includeDescendantGroups?: boolean | null; onlyGroupLabels?: boolean | null }) {
  const subgroups = args.includeDescendantGroups === true;
  const onlyGroups = args.onlyGroupLabels === true;
  if (!subgroups && onlyGroups) return null;
  const [tree, own] = await Promise.all([
    subgroups ? readableBelow(ctx, group, { subgroups: true }) : null,
    onlyGroups ? null : readableBelow(ctx, group, { subgroups: false }),
  ]);
  return { groupIds: tree?.groupIds ?? [], projectIds: own?.projectIds ?? [] };
}

/** GitLab's `LabelConnection`, one type for every label list (Pothos would name one per field). */
const LabelConnection = builder.connectionObject({ type: LabelRef, name: 'LabelConnection' }, { name: 'LabelEdge' });

parentFields((t, kind) => ({
  labels: t.connection(
    {
      type: LabelRef,
      args: {
        title: t.arg.string({ description: 'Exact match on title. Cannot be used with `searchTerm`.' }),
        searchTerm: t.arg.string({ description: 'Search term to find labels with.' }),
        searchIn: t.arg({
          type: [LabelSearchFieldList],
          required: true,
          defaultValue: ['title', 'description'],
          description: 'Specify which fields to search in. Ignored if using `title`.',
        }),
        includeAncestorGroups: t.arg.boolean({ defaultValue: false, description: 'Include labels from ancestor groups.' }),
        // Group.labels only, as in GitLab.
        ...(kind === 'group' && {
          includeDescendantGroups: t.arg.boolean({ defaultValue: false, description: 'Include labels from descendant groups.' }),
          onlyGroupLabels: t.arg.boolean({ defaultValue: false, description: "Include only group level labels (not those of the group's projects)." }),
        }),
      },
      resolve: async (row, args, ctx) => {
        const parent = parentOf(row);
        const below = parent.kind === 'group' ? await labelsBelow(ctx, parent.group, args) : null;
        const filter = {
          includeAncestorGroups: args.includeAncestorGroups ?? false,
          search: args.searchTerm,
          searchIn: args.searchIn,
          title: args.title,
          below,
        };
        return pagedConnection(args, listLabels(ctx, parent, filter));
      },
    },
    LabelConnection,
  ),
  label: t.field({
    type: LabelRef,
    nullable: true,
    description: 'A label by title (or by `databaseId`), including those of ancestor groups unless told otherwise.',
    args: { title: t.arg.string(), databaseId: t.arg.int(), includeAncestorGroups: t.arg.boolean({ defaultValue: true }) },
    resolve: (row, args, ctx) => findLabel(ctx, parentOf(row), { id: args.databaseId, title: args.title }, args),
  }),
}));

const labelRefFields = (t: InputFields) => ({
  ...parentInputFields(t),
  labelId: t.int({ description: 'Id of the label (alternative to title).' }),
  title: t.string({ description: 'Title of the label.' }),
});

const LabelUpdateInput = mutationInput('LabelUpdateInput', (t) => ({
  ...labelRefFields(t),
  newTitle: t.string(),
  color: t.string(),
  description: t.string(),
  priority: t.int({ description: 'Null removes the priority.' }),
}));

const LabelDeleteInput = mutationInput('LabelDeleteInput', labelRefFields);

builder.mutationFields((t) => ({
  labelUpdate: t.field({
    type: payloadType('LabelUpdatePayload', 'label', LabelRef),
    args: { input: t.arg({ type: LabelUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      const { newTitle, color, description, priority } = input;
      return asPayload(
        'label',
        () => updateLabel(ctx, parent, { id: input.labelId, title: input.title }, { name: newTitle, color, description, priority }),
        input,
      );
    },
  }),
  labelDelete: t.field({
    type: payloadType('LabelDeletePayload', 'label', LabelRef),
    args: { input: t.arg({ type: LabelDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload('label', () => deleteLabel(ctx, parent, { id: input.labelId, title: input.title }), input);
    },
  }),
}));

builder.objectFields(ProjectPermissionsRef, (t) => ({
  createLabel: t.boolean({
    nullable: false,
    description: 'If `true`, the user can perform `create_label` on this resource',
    resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, LABEL_WRITE_LEVEL),
  }),
}));

const LabelCreateInput = mutationInput('LabelCreateInput', (t) => ({
  ...parentInputFields(t),
  title: t.string({ required: true, description: 'Title of the label.' }),
  description: t.string({ description: 'Description of the label.' }),
  color: t.string({
    defaultValue: DEFAULT_LABEL_COLOR,
    description: "The color of the label given in 6-digit hex notation with leading '#' sign (for example, `#FFAABB`) or one of the CSS color names.",
  }),
  priority: t.int({ description: 'Priority of the label (project labels).' }),
}));

builder.mutationFields((t) => ({
  labelCreate: t.field({
    type: payloadType('LabelCreatePayload', 'label', LabelRef),
    args: { input: t.arg({ type: LabelCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      const { title, description, color, priority } = input;
      return asPayload('label', () => createLabel(ctx, parent, { name: title, description, color: color ?? DEFAULT_LABEL_COLOR, priority }), input);
    },
  }),
}));

const LabelSubscriptionInput = mutationInput('LabelSubscriptionInput', (t) => ({
  ...labelRefFields(t),
  subscribed: t.boolean({ required: true, description: 'Follow (true) or stop following (false) the label.' }),
}));

const LabelPromoteInput = mutationInput('LabelPromoteInput', (t) => ({
  ...projectInputFields(t),
  labelId: t.int({ description: 'Database ID of the project label.' }),
  title: t.string({ description: 'Title of the project label.' }),
}));

builder.mutationFields((t) => ({
  labelSubscribe: t.field({
    type: payloadType('LabelSubscribePayload', 'label', LabelRef),
    description: "Follows or stops following a label; an unchanged subscription is an error. forgegate's mutation (GitLab has it in REST only).",
    args: { input: t.arg({ type: LabelSubscriptionInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      const ref = { id: input.labelId, title: input.title };
      return asPayload('label', () => (input.subscribed ? subscribeToLabel(ctx, parent, ref) : unsubscribeFromLabel(ctx, parent, ref)), input);
    },
  }),
  labelPromote: t.field({
    type: payloadType('LabelPromotePayload', 'label', LabelRef),
    description: "Promotes a project label to a label of the project's group. forgegate's mutation (GitLab has it in REST only).",
    args: { input: t.arg({ type: LabelPromoteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('label', () => promoteLabel(ctx, project, { id: input.labelId, title: input.title }), input);
    },
  }),
}));
