// Access requests: GitLab serves them through REST only (`/groups|projects/:id/access_requests`);
// our REST routes run these types' fields and mutations.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "GitLab's access requests are REST-only (`/:source/:id/access_requests`); our REST routes run this";

export const types: ReferenceType[] = [
  { name: 'AccessRequest', notGitLab: REST_ONLY },
  ...['Approve', 'Create', 'Deny'].flatMap((verb) => [
    { name: `AccessRequest${verb}Input`, notGitLab: REST_ONLY },
    { name: `AccessRequest${verb}Payload`, notGitLab: REST_ONLY },
  ]),
  ...['Group', 'Project'].flatMap((parent) => [
    { name: `${parent}AccessRequestsConnection`, notGitLab: REST_ONLY },
    { name: `${parent}AccessRequestsConnectionEdge`, notGitLab: REST_ONLY },
  ]),
  { name: 'Project', kept: { accessRequests: REST_ONLY } },
  { name: 'Group', kept: { accessRequests: REST_ONLY } },
  { name: 'Mutation', kept: { accessRequestApprove: REST_ONLY, accessRequestCreate: REST_ONLY, accessRequestDeny: REST_ONLY } },
];
