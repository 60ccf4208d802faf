// Commit statuses and the external pipelines they make: GitLab's `Pipeline` (the fields we serve),
// `PipelineStatusEnum`, the commit's `pipelines`, and forgegate's GraphQL twin of REST's commit
// status API (`POST /projects/:id/statuses/:sha`, `GET .../repository/commits/:sha/statuses`), which
// GitLab has in REST only. Facts from GitLab's GraphQL reference (app/graphql/types/ci/pipeline_type.rb,
// pipeline_status_enum.rb).
import type { ReferenceType } from './types.ts';

const REST_STATUSES = "GitLab's commit status API is REST only (`/projects/:id/statuses/:sha`); the REST routes run this";

export const types: ReferenceType[] = [
  {
    name: 'Pipeline',
    fields: {
      createdAt: 'Time!',
      detailedStatus: 'DetailedStatus!',
      id: 'ID!',
      iid: 'String!',
      path: 'String',
      ref: 'String',
      sha: { type: 'String', args: { format: 'ShaFormat' } },
      source: 'String',
      status: 'PipelineStatusEnum!',
      updatedAt: 'Time!',
    },
    kept: {
      'sha.format': 'forgegate answers full SHAs only (GitLab also shortens them on request)',
      databaseId: "ours: the numeric id GitLab's REST pipeline entity answers as `id`",
      webUrl: "ours: GitLab's REST pipeline entity has `web_url`",
    },
  },
  {
    name: 'PipelineStatusEnum',
    values: [
      'CANCELED',
      'CANCELING',
      'CREATED',
      'FAILED',
      'MANUAL',
      'PENDING',
      'PREPARING',
      'RUNNING',
      'SCHEDULED',
      'SKIPPED',
      'SUCCESS',
      'WAITING_FOR_CALLBACK',
      'WAITING_FOR_RESOURCE',
    ],
  },
  { name: 'GenericCommitStatus', notGitLab: `a status an external system posted on a commit: ${REST_STATUSES}` },
  { name: 'CommitStatusOrder', notGitLab: `the \`order_by\` of a commit's statuses: ${REST_STATUSES}` },
  { name: 'CommitStatusState', notGitLab: `the \`state\` a status is posted with: ${REST_STATUSES}` },
  { name: 'CommitStatusCreateInput', notGitLab: REST_STATUSES },
  { name: 'CommitStatusCreatePayload', notGitLab: REST_STATUSES },
  { name: 'CommitStatusesConnection', notGitLab: `Commit.statuses: ${REST_STATUSES}` },
  { name: 'CommitStatusesConnectionEdge', notGitLab: `Commit.statuses: ${REST_STATUSES}` },
  { name: 'Commit', kept: { statuses: `ours: ${REST_STATUSES}` } },
  { name: 'Mutation', kept: { commitStatusCreate: `ours: ${REST_STATUSES}` } },
];
