// GitLab's GraphQL reference for labels: Label, the search fields, labelCreate, and the label
// lists of projects and groups. Written from docs.gitlab.com/api/graphql/reference and
// gitlab-org/gitlab app/graphql/types/label_type.rb, resolvers/labels_resolver.rb,
// resolvers/group_labels_resolver.rb.
import { gitlabConnection, PAGING, PARENT_IDS } from './core.ts';
import type { ReferenceType } from './types.ts';

const LABEL_MUTATIONS = "the twin of the REST labels API (PUT/DELETE labels); GitLab's GraphQL has labelCreate only";

/** The arguments GitLab's LabelsResolver takes, for projects and groups. */
const LABEL_ARGS = {
  ...PAGING,
  includeAncestorGroups: 'Boolean',
  searchIn: '[LabelSearchFieldList!]!',
  searchTerm: 'String',
  title: 'String',
};

const ONE_LABEL = {
  label: "GitLab's label(title: String!); ours also finds a label by databaseId, as the REST labels API reads one by id or name",
  'label.databaseId': 'the REST labels API reads a label by id too',
  'label.includeAncestorGroups': "the REST labels API's include_ancestor_groups on one label",
};

const LABEL_REST_ROUTES =
  "GitLab's REST label routes (`PUT .../labels/:id/promote`, `POST .../labels/:id/subscribe` and `unsubscribe`); the REST routes run this";

export const types: ReferenceType[] = [
  {
    name: 'Label',
    fields: {
      color: 'String!',
      createdAt: 'Time!',
      description: 'String',
      id: 'ID!',
      textColor: 'String!',
      title: 'String!',
      updatedAt: 'Time!',
    },
    kept: {
      databaseId: 'the numeric id the REST facade answers with',
      isProjectLabel: "the REST labels API's is_project_label",
      priority: "the REST labels API's priority (project labels)",
    },
  },
  { name: 'LabelSearchFieldList', values: ['DESCRIPTION', 'TITLE'] },
  {
    name: 'LabelCreateInput',
    fields: { clientMutationId: 'String', color: 'String', description: 'String', groupPath: 'ID', projectPath: 'ID', title: 'String!' },
    kept: { groupId: PARENT_IDS, projectId: PARENT_IDS, priority: "the REST labels API's priority on create (project labels)" },
  },
  { name: 'LabelCreatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', label: 'Label' } },
  { name: 'LabelUpdateInput', notGitLab: LABEL_MUTATIONS },
  { name: 'LabelUpdatePayload', notGitLab: LABEL_MUTATIONS },
  { name: 'LabelDeleteInput', notGitLab: LABEL_MUTATIONS },
  { name: 'LabelDeletePayload', notGitLab: LABEL_MUTATIONS },
  ...gitlabConnection('Label'),
];

/** This area's fields of the types every area adds to; see users.ts `sharedParts`. */
export const sharedParts: ReferenceType[] = [
  { name: 'Project', fields: { labels: { type: 'LabelConnection', args: LABEL_ARGS } }, kept: ONE_LABEL },
  {
    name: 'Group',
    fields: { labels: { type: 'LabelConnection', args: { ...LABEL_ARGS, includeDescendantGroups: 'Boolean', onlyGroupLabels: 'Boolean' } } },
    kept: ONE_LABEL,
  },
  {
    name: 'Mutation',
    fields: { labelCreate: { type: 'LabelCreatePayload', args: { input: 'LabelCreateInput!' } } },
    kept: { labelUpdate: LABEL_MUTATIONS, labelDelete: LABEL_MUTATIONS },
  },
  // GitLab's REST label routes (promote, subscribe and unsubscribe) as mutations; its GraphQL has neither.
  { name: 'Label', kept: { subscribed: "ours: the `subscribed` of GitLab's REST label entity, for the viewer" } },
  { name: 'LabelPromoteInput', notGitLab: LABEL_REST_ROUTES },
  { name: 'LabelPromotePayload', notGitLab: LABEL_REST_ROUTES },
  { name: 'LabelSubscriptionInput', notGitLab: LABEL_REST_ROUTES },
  { name: 'LabelSubscribePayload', notGitLab: LABEL_REST_ROUTES },
  { name: 'Mutation', kept: { labelPromote: `ours: ${LABEL_REST_ROUTES}`, labelSubscribe: `ours: ${LABEL_REST_ROUTES}` } },
];
