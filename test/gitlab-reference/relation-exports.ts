// Project and group relation exports and imports (direct transfer): GitLab serves them through
// REST only (`/projects/:id/export_relations`, `/groups/:id/export_relations`,
// `/projects/import-relation`); our REST routes run this.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "GitLab's relation exports and imports are REST-only (`/projects|groups/:id/export_relations…`); our REST routes run this";

export const types: ReferenceType[] = [
  ...['RelationExportBatch', 'RelationExportFile', 'RelationExportStatus', 'RelationImport'].map((name) => ({ name, notGitLab: REST_ONLY })),
  ...['ProjectImportRelation', 'ProjectRelationsExport', 'GroupRelationsExport'].flatMap((name) => [
    { name: `${name}Input`, notGitLab: REST_ONLY },
    { name: `${name}Payload`, notGitLab: REST_ONLY },
  ]),
  { name: 'Project', kept: { relationExportFile: REST_ONLY, relationExportStatuses: REST_ONLY } },
  { name: 'Group', kept: { relationExportFile: REST_ONLY, relationExportStatuses: REST_ONLY } },
  { name: 'Mutation', kept: { projectImportRelation: REST_ONLY, projectRelationsExport: REST_ONLY, groupRelationsExport: REST_ONLY } },
];
