// The module manifest: every area of the product, in the order their REST routes are matched.
// Adding an area is adding its folder and one line here.
import { alerts } from './alerts/index.ts';
import { applicationSettings } from './application-settings/index.ts';
import { accessRequests } from './access-requests/index.ts';
import { archives } from './archives/index.ts';
import { branches } from './branches/index.ts';
import { commitStatuses } from './commit-statuses/index.ts';
import { commits } from './commits/index.ts';
import { gitHttp } from './git-http/index.ts';
import { experiments } from './experiments/index.ts';
import { features } from './features/index.ts';
import { epics } from './epics/index.ts';
import { groups } from './groups/index.ts';
import { housekeeping } from './housekeeping/index.ts';
import { importSourceUsers } from './import-source-users/index.ts';
import { bulkImports } from './bulk-imports/index.ts';
import { jobQueue } from './job-queue/index.ts';
import { integrations } from './integrations/index.ts';
import { jobTokens } from './job-tokens/index.ts';
import { labels } from './labels/index.ts';
import { members } from './members/index.ts';
import { meta } from './meta/index.ts';
import { milestones } from './milestones/index.ts';
import type { ModuleDef } from './module.ts';
import { namespaces } from './namespaces/index.ts';
import { outbox } from './outbox/index.ts';
import { packageProtection } from './package-protection/index.ts';
import { personalAccessTokens } from './personal-access-tokens/index.ts';
import { projects } from './projects/index.ts';
import { relationExports } from './relation-exports/index.ts';
import { releaseLinks } from './release-links/index.ts';
import { releases } from './releases/index.ts';
import { repository } from './repository/index.ts';
import { repositoryFiles } from './repository-files/index.ts';
import { tags } from './tags/index.ts';
import { users } from './users/index.ts';
import { userStatuses } from './user-statuses/index.ts';

export const modules: readonly ModuleDef[] = [
  meta,
  namespaces,
  users,
  userStatuses,
  groups,
  projects,
  members,
  milestones,
  labels,
  commits,
  repositoryFiles,
  repository,
  commitStatuses,
  branches,
  tags,
  releases,
  releaseLinks,
  archives,
  gitHttp,
  jobTokens,
  applicationSettings,
  outbox,
  personalAccessTokens,
  accessRequests,
  packageProtection,
  alerts,
  features,
  experiments,
  jobQueue,
  housekeeping,
  epics,
  integrations,
  relationExports,
  importSourceUsers,
  bulkImports,
];
