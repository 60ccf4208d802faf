// Direct transfer: GitLab serves it over REST only (lib/api/bulk_imports.rb); its frontend's
// `bulkImportSourceGroups` is a client-side resolver, not a field of GitLab's schema.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "carries GitLab's REST /bulk_imports routes, which GitLab has no GraphQL for";

export const types: ReferenceType[] = [
  ...[
    'BulkImport',
    'BulkImportEntity',
    'BulkImportFailure',
    'BulkImportEntityInput',
    'BulkImportCreateInput',
    'BulkImportCreatePayload',
    'BulkImportCancelInput',
    'BulkImportCancelPayload',
    'QueryBulkImportsConnection',
    'QueryBulkImportsConnectionEdge',
    'QueryBulkImportEntitiesConnection',
    'QueryBulkImportEntitiesConnectionEdge',
  ].map((name) => ({ name, notGitLab: REST_ONLY })),
  { name: 'Query', kept: { bulkImports: REST_ONLY, bulkImport: REST_ONLY, bulkImportEntities: REST_ONLY, bulkImportEntity: REST_ONLY } },
  { name: 'Mutation', kept: { bulkImportCreate: REST_ONLY, bulkImportCancel: REST_ONLY } },
];
