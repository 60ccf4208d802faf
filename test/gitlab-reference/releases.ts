// Releases, their assets, links, sources and evidence, and the release mutations: GitLab's
// GraphQL reference (`Release`, `ReleaseAssets`, `ReleaseAssetLink`, `ReleaseEvidence`,
// `ReleaseLinks`, `ReleaseSource`, `releaseCreate`, `releaseUpdate`, `releaseDelete`,
// `releaseAssetLinkCreate`, `releaseAssetLinkUpdate`, `releaseAssetLinkDelete`).
import type { ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const DATABASE_ID = "ours: the numeric id GitLab's REST answers as `id` (our REST routes read it here)";
const BY_PROJECT_ID = 'ours: REST runs the mutation with the project of its path (`:id`) instead of `projectPath`';
const PROJECT_PATH = "GitLab's `ID!`: ours may be left out when `projectId` names the project (REST); a GitLab document's `ID!` variable still fits";

/** A connection (and its edge) of ours standing for GitLab's `gitlab`: our builder names connections per field. */
export function connection(ours: string, gitlab: string): ReferenceType[] {
  const why = `GitLab's \`${gitlab}\` (same fields: count, edges, nodes, pageInfo) under the name our schema builder gives per field`;
  return [
    { name: ours, notGitLab: why },
    { name: `${ours}Edge`, notGitLab: `the edge of ${why}` },
  ];
}

/** The field's type differs only by the name of its connection (see `connection`). */
export const CONNECTION_NAME = 'the same connection under our per-field name (see its table entry)';

const LINK_INPUT_SCOPE = 'ours: REST names the link by project, tag and link id; GitLab needs only the global id';

export const types: ReferenceType[] = [
  {
    name: 'Release',
    fields: {
      assets: 'ReleaseAssets',
      author: 'UserCore',
      commit: 'Commit',
      createdAt: 'Time',
      description: 'String',
      descriptionHtml: 'String',
      evidences: { type: 'ReleaseEvidenceConnection', args: PAGE },
      historicalRelease: 'Boolean',
      id: 'ReleaseID!',
      links: 'ReleaseLinks',
      milestones: { type: 'MilestoneConnection', args: PAGE },
      name: 'String',
      releasedAt: 'Time',
      tagName: 'String',
      tagPath: 'String',
      upcomingRelease: 'Boolean',
    },
    kept: {
      evidences: CONNECTION_NAME,
      milestones: CONNECTION_NAME,
      assetDownloadUrl: 'ours: where `/-/releases/:tag/downloads/*path` (REST and web) redirects',
      commitPath: "ours: GitLab's REST release entity has `commit_path`",
      databaseId: DATABASE_ID,
      evidence: 'ours: one evidence by id, for the REST evidence routes',
      evidenceSha: "ours: GitLab's REST release entity has `evidence_sha`",
    },
  },
  {
    name: 'ReleaseAssets',
    fields: {
      count: 'Int',
      links: { type: 'ReleaseAssetLinkConnection', args: PAGE },
      sources: { type: 'ReleaseSourceConnection', args: PAGE },
    },
    kept: {
      links: CONNECTION_NAME,
      'links.directAssetPath': 'ours: the link with this direct asset path (downloads redirect)',
      sources: CONNECTION_NAME,
      link: 'ours: one link by id, for the REST release-links routes',
    },
  },
  {
    name: 'ReleaseAssetLink',
    fields: {
      directAssetPath: 'String',
      directAssetUrl: 'String',
      id: 'ID!',
      linkType: 'ReleaseAssetLinkType',
      name: 'String',
      url: 'String',
    },
    kept: {
      databaseId: DATABASE_ID,
      external: 'ours: GitLab removed it from GraphQL (its REST link entity still has `external`, which our REST route reads here)',
    },
  },
  {
    name: 'ReleaseEvidence',
    fields: { collectedAt: 'Time', filepath: 'String', id: 'ID!', sha: 'String' },
    kept: { databaseId: DATABASE_ID, summary: "ours: the evidence's JSON, which GitLab serves only as a file at `filepath`" },
  },
  {
    name: 'ReleaseLinks',
    fields: {
      closedIssuesUrl: 'String',
      closedMergeRequestsUrl: 'String',
      editUrl: 'String',
      mergedMergeRequestsUrl: 'String',
      openedIssuesUrl: 'String',
      openedMergeRequestsUrl: 'String',
      selfUrl: 'String',
    },
  },
  { name: 'ReleaseSource', fields: { format: 'String', url: 'String' } },
  { name: 'ReleaseSort', values: ['CREATED_ASC', 'CREATED_DESC', 'RELEASED_AT_ASC', 'RELEASED_AT_DESC'] },
  { name: 'GroupReleaseSort', values: ['RELEASED_AT_ASC', 'RELEASED_AT_DESC'] },
  { name: 'ReleaseAssetLinkType', values: ['IMAGE', 'OTHER', 'PACKAGE', 'RUNBOOK'] },
  { name: 'ReleaseID' },
  { name: 'ReleasesLinkID' },
  {
    name: 'ReleaseAssetLinkInput',
    fields: { directAssetPath: 'String', linkType: 'ReleaseAssetLinkType', name: 'String!', url: 'String!' },
  },
  { name: 'ReleaseAssetsInput', fields: { links: '[ReleaseAssetLinkInput!]' } },
  {
    name: 'ReleaseCreateInput',
    fields: {
      assets: 'ReleaseAssetsInput',
      clientMutationId: 'String',
      description: 'String',
      milestones: '[String!]',
      name: 'String',
      projectPath: 'ID!',
      ref: 'String',
      releasedAt: 'Time',
      tagMessage: 'String',
      tagName: 'String!',
    },
    kept: {
      projectPath: PROJECT_PATH,
      projectId: BY_PROJECT_ID,
      milestoneIds: "ours: REST's `milestone_ids` (GitLab's REST has it, its GraphQL takes titles only)",
    },
  },
  { name: 'ReleaseCreatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', release: 'Release' } },
  {
    name: 'ReleaseUpdateInput',
    fields: {
      clientMutationId: 'String',
      description: 'String',
      milestones: '[String!]',
      name: 'String',
      projectPath: 'ID!',
      releasedAt: 'Time',
      tagName: 'String!',
    },
    kept: {
      projectPath: PROJECT_PATH,
      projectId: BY_PROJECT_ID,
      milestoneIds: "ours: REST's `milestone_ids` (GitLab's REST has it, its GraphQL takes titles only)",
    },
  },
  { name: 'ReleaseUpdatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', release: 'Release' } },
  {
    name: 'ReleaseDeleteInput',
    fields: { clientMutationId: 'String', projectPath: 'ID!', tagName: 'String!' },
    kept: { projectPath: PROJECT_PATH, projectId: BY_PROJECT_ID },
  },
  { name: 'ReleaseDeletePayload', fields: { clientMutationId: 'String', errors: '[String!]!', release: 'Release' } },
  {
    name: 'ReleaseAssetLinkCreateInput',
    fields: {
      clientMutationId: 'String',
      directAssetPath: 'String',
      linkType: 'ReleaseAssetLinkType',
      name: 'String!',
      projectPath: 'ID!',
      tagName: 'String!',
      url: 'String!',
    },
    kept: { projectPath: PROJECT_PATH, projectId: BY_PROJECT_ID },
  },
  { name: 'ReleaseAssetLinkCreatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', link: 'ReleaseAssetLink' } },
  {
    name: 'ReleaseAssetLinkUpdateInput',
    fields: {
      clientMutationId: 'String',
      directAssetPath: 'String',
      id: 'ReleasesLinkID!',
      linkType: 'ReleaseAssetLinkType',
      name: 'String',
      url: 'String',
    },
    kept: { projectId: LINK_INPUT_SCOPE, projectPath: LINK_INPUT_SCOPE, tagName: LINK_INPUT_SCOPE },
  },
  { name: 'ReleaseAssetLinkUpdatePayload', fields: { clientMutationId: 'String', errors: '[String!]!', link: 'ReleaseAssetLink' } },
  {
    name: 'ReleaseAssetLinkDeleteInput',
    fields: { clientMutationId: 'String', id: 'ReleasesLinkID!' },
    kept: { projectId: LINK_INPUT_SCOPE, projectPath: LINK_INPUT_SCOPE, tagName: LINK_INPUT_SCOPE },
  },
  { name: 'ReleaseAssetLinkDeletePayload', fields: { clientMutationId: 'String', errors: '[String!]!', link: 'ReleaseAssetLink' } },
  {
    name: 'CollectReleaseEvidenceInput',
    notGitLab: 'GitLab collects evidence through REST only (`POST /projects/:id/releases/:tag/evidence`), which runs this mutation',
  },
  { name: 'CollectReleaseEvidencePayload', notGitLab: 'the payload of collectReleaseEvidence (see its input)' },
  ...connection('ProjectReleasesConnection', 'ReleaseConnection'),
  ...connection('GroupReleasesConnection', 'ReleaseConnection'),
  ...connection('ReleaseEvidencesConnection', 'ReleaseEvidenceConnection'),
  ...connection('ReleaseMilestonesConnection', 'MilestoneConnection'),
  ...connection('ReleaseAssetsLinksConnection', 'ReleaseAssetLinkConnection'),
  ...connection('ReleaseAssetsSourcesConnection', 'ReleaseSourceConnection'),
  {
    name: 'Project',
    fields: {
      release: { type: 'Release', args: { tagName: 'String!' } },
      releases: { type: 'ReleaseConnection', args: { ...PAGE, sort: 'ReleaseSort' } },
    },
    kept: {
      releases: CONNECTION_NAME,
      'releases.updatedAfter': "ours: REST's `updated_after` of the release list",
      'releases.updatedBefore': "ours: REST's `updated_before` of the release list",
      latestReleasePath: "ours: where GitLab's `releases/permalink/latest` redirects",
      releaseAssets: 'ours: the assets of one release for the REST release-links routes, open to readers without code',
    },
  },
  {
    name: 'Group',
    fields: { releases: { type: 'ReleaseConnection', args: { ...PAGE, sort: 'GroupReleaseSort' } } },
    kept: { releases: CONNECTION_NAME },
  },
  {
    name: 'Mutation',
    fields: {
      releaseAssetLinkCreate: { type: 'ReleaseAssetLinkCreatePayload', args: { input: 'ReleaseAssetLinkCreateInput!' } },
      releaseAssetLinkDelete: { type: 'ReleaseAssetLinkDeletePayload', args: { input: 'ReleaseAssetLinkDeleteInput!' } },
      releaseAssetLinkUpdate: { type: 'ReleaseAssetLinkUpdatePayload', args: { input: 'ReleaseAssetLinkUpdateInput!' } },
      releaseCreate: { type: 'ReleaseCreatePayload', args: { input: 'ReleaseCreateInput!' } },
      releaseDelete: { type: 'ReleaseDeletePayload', args: { input: 'ReleaseDeleteInput!' } },
      releaseUpdate: { type: 'ReleaseUpdatePayload', args: { input: 'ReleaseUpdateInput!' } },
    },
    kept: { collectReleaseEvidence: 'ours: GitLab collects evidence through REST only, and our REST route runs this' },
  },
];
