// GitLab's GraphQL reference for milestones: Milestone, its stats, sorts and states, and the
// milestone lists of projects and groups. Written from docs.gitlab.com/api/graphql/reference and
// gitlab-org/gitlab app/graphql/types/milestone_type.rb, resolvers/milestones_resolver.rb.
import { gitlabConnection, PAGING, PARENT_IDS } from './core.ts';
import type { ReferenceType } from './types.ts';

const DATE_COLUMN = "a milestone's due and start dates are days: Date (YYYY-MM-DD), where GitLab types them Time (midnight); GitLab's frontend parses either";
const MILESTONE_MUTATIONS = "the twin of the REST milestones API (POST/PUT milestones); GitLab's GraphQL has no milestone mutations";

/** The arguments GitLab's MilestonesResolver (and its project and group resolvers) takes. */
const MILESTONE_ARGS = {
  ...PAGING,
  containingDate: 'Time',
  ids: '[ID!]',
  includeAncestors: 'Boolean',
  searchTitle: 'String',
  sort: 'MilestoneSort',
  state: 'MilestoneStateEnum',
  timeframe: 'Timeframe',
  title: 'String',
};

const MILESTONE_KEPT = {
  'milestones.iids': "the REST milestones API's iids[] filter",
  milestone: 'one milestone by its database id, as the REST milestones API reads it (GET milestones/:milestone_id)',
};

const MILESTONE_REST_ROUTES = "GitLab's REST milestone routes (`DELETE .../milestones/:id`, `POST .../milestones/:id/promote`); the REST routes run this";

export const types: ReferenceType[] = [
  {
    name: 'Milestone',
    fields: {
      createdAt: 'Time!',
      description: 'String',
      dueDate: 'Time',
      expired: 'Boolean!',
      groupMilestone: 'Boolean!',
      id: 'ID!',
      iid: 'ID!',
      projectMilestone: 'Boolean!',
      startDate: 'Time',
      state: 'MilestoneStateEnum!',
      stats: 'MilestoneStats',
      subgroupMilestone: 'Boolean!',
      title: 'String!',
      upcoming: 'Boolean!',
      updatedAt: 'Time!',
      webPath: 'String!',
    },
    kept: {
      dueDate: DATE_COLUMN,
      startDate: DATE_COLUMN,
      databaseId: 'the numeric id the REST facade answers with',
      groupId: "the REST milestones API's group_id",
      projectId: "the REST milestones API's project_id",
      webUrl: "the REST milestones API's web_url",
      issueStats: "the REST releases API's milestone issue_stats (releases area)",
    },
  },
  { name: 'MilestoneStats', fields: { closedIssuesCount: 'Int', totalIssuesCount: 'Int' } },
  { name: 'MilestoneStateEnum', values: ['active', 'closed'] },
  {
    name: 'MilestoneSort',
    values: [
      'CREATED_ASC',
      'CREATED_DESC',
      'DUE_DATE_ASC',
      'DUE_DATE_DESC',
      'EXPIRED_LAST_DUE_DATE_ASC',
      'EXPIRED_LAST_DUE_DATE_DESC',
      'UPDATED_ASC',
      'UPDATED_DESC',
      'created_asc',
      'created_desc',
      'updated_asc',
      'updated_desc',
    ],
    kept: {
      created_asc: 'deprecated in GitLab 13.5 for CREATED_ASC',
      created_desc: 'deprecated in GitLab 13.5 for CREATED_DESC',
      updated_asc: 'deprecated in GitLab 13.5 for UPDATED_ASC',
      updated_desc: 'deprecated in GitLab 13.5 for UPDATED_DESC',
    },
  },
  { name: 'Timeframe', fields: { end: 'Date!', start: 'Date!' } },
  { name: 'MilestoneStateEvent', notGitLab: MILESTONE_MUTATIONS },
  { name: 'MilestoneCreateInput', notGitLab: `${MILESTONE_MUTATIONS}; ${PARENT_IDS}` },
  { name: 'MilestoneCreatePayload', notGitLab: MILESTONE_MUTATIONS },
  { name: 'MilestoneUpdateInput', notGitLab: `${MILESTONE_MUTATIONS}; ${PARENT_IDS}` },
  { name: 'MilestoneUpdatePayload', notGitLab: MILESTONE_MUTATIONS },
  ...gitlabConnection('Milestone'),
];

/** This area's fields of the types every area adds to; see users.ts `sharedParts`. */
export const sharedParts: ReferenceType[] = [
  { name: 'Project', fields: { milestones: { type: 'MilestoneConnection', args: MILESTONE_ARGS } }, kept: MILESTONE_KEPT },
  {
    name: 'Group',
    fields: { milestones: { type: 'MilestoneConnection', args: { ...MILESTONE_ARGS, includeDescendants: 'Boolean' } } },
    kept: MILESTONE_KEPT,
  },
  { name: 'Mutation', fields: {}, kept: { milestoneCreate: MILESTONE_MUTATIONS, milestoneUpdate: MILESTONE_MUTATIONS } },
  // GitLab's REST milestone routes (delete, promote) as mutations; its GraphQL has neither.
  { name: 'MilestoneDeleteInput', notGitLab: MILESTONE_REST_ROUTES },
  { name: 'MilestoneDeletePayload', notGitLab: MILESTONE_REST_ROUTES },
  { name: 'MilestonePromoteInput', notGitLab: MILESTONE_REST_ROUTES },
  { name: 'MilestonePromotePayload', notGitLab: MILESTONE_REST_ROUTES },
  { name: 'MilestoneIssueStats', notGitLab: "Milestone.issueStats: the `issue_stats` (total, closed) of GitLab's REST release milestones" },
  { name: 'Mutation', kept: { milestoneDelete: `ours: ${MILESTONE_REST_ROUTES}`, milestonePromote: `ours: ${MILESTONE_REST_ROUTES}` } },
];
