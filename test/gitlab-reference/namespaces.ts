// Namespaces: GitLab's root `namespace` (import-source-users.ts lists it) and forgegate's GraphQL twins
// of REST's namespace routes (`GET /namespaces`, `GET /namespaces/:id`, `GET /namespaces/:id/exists`),
// which GitLab has in REST only. Namespace's fields: groups.ts.
import type { ReferenceType } from './types.ts';

const REST_NAMESPACES = 'GitLab lists and checks namespaces over REST only (`/namespaces`); the REST routes run this';

export const types: ReferenceType[] = [
  { name: 'NamespaceExists', notGitLab: `the answer of \`GET /namespaces/:id/exists\` (exists, suggests): ${REST_NAMESPACES}` },
  { name: 'QueryNamespacesConnection', notGitLab: `Query.namespaces: ${REST_NAMESPACES}` },
  { name: 'QueryNamespacesConnectionEdge', notGitLab: `Query.namespaces: ${REST_NAMESPACES}` },
  {
    name: 'Query',
    kept: {
      administeredNamespace: `ours: \`GET /namespaces/:id\` (a namespace the viewer administers, by id or path): ${REST_NAMESPACES}`,
      namespaceExists: `ours: \`GET /namespaces/:id/exists\`: ${REST_NAMESPACES}`,
      namespaces: `ours: \`GET /namespaces\`: ${REST_NAMESPACES}`,
    },
  },
];
