// User statuses: GitLab's `UserStatus` (users.ts lists its fields) and `AvailabilityEnum`, and
// forgegate's GraphQL twin of REST's status routes (`GET /users/:id/status`, `PUT /user/status`),
// which GitLab has in REST only. Facts from GitLab's GraphQL reference (app/graphql/types/user_status_type.rb).
import type { ReferenceType } from './types.ts';

const REST_STATUS = "GitLab sets and reads a user's status over REST only (`PUT /user/status`, `GET /users/:id/status`); the REST routes run this";

export const types: ReferenceType[] = [
  { name: 'UserStatus', kept: { clearStatusAt: "ours: the `clear_status_at` of GitLab's REST user status entity" } },
  { name: 'UserStatusClearAfter', notGitLab: `the \`clear_status_after\` choices of \`PUT /user/status\`: ${REST_STATUS}` },
  { name: 'UserStatusSetInput', notGitLab: REST_STATUS },
  { name: 'UserStatusSetPayload', notGitLab: REST_STATUS },
  { name: 'Query', kept: { userStatus: `ours: ${REST_STATUS}` } },
  { name: 'Mutation', kept: { userStatusSet: `ours: ${REST_STATUS}` } },
];
