// What is left: instance metadata (`Query.metadata`, `Metadata`, `Kas`), the outbox of e-mails,
// source archives and shared enums.
import type { ReferenceType } from './types.ts';

const OUTBOX = 'the e-mails the instance sent, or kept when no SMTP server is configured (administrators): forgegate’s own outbox';
const ARCHIVES =
  "a source archive's name and prefix, for REST's `GET /projects/:id/repository/archive` and the web archive path (GitLab builds them without GraphQL)";

export const types: ReferenceType[] = [
  {
    name: 'Metadata',
    fields: { enterprise: 'Boolean!', kas: 'Kas!', revision: 'String!', version: 'String!' },
    kept: { featureFlags: "GitLab's, missing: the instance's feature flags for its own frontend; ours are served by `Query.featureFlags` (administrators)" },
  },
  { name: 'Kas', fields: { enabled: 'Boolean!', externalK8sProxyUrl: 'String', externalUrl: 'String', version: 'String' } },
  { name: 'MutationOperationMode', values: ['APPEND', 'REMOVE', 'REPLACE'] },
  { name: 'Email', notGitLab: OUTBOX },
  { name: 'QueryOutboxEmailsConnection', notGitLab: OUTBOX },
  { name: 'QueryOutboxEmailsConnectionEdge', notGitLab: OUTBOX },
  { name: 'ArchiveFormat', notGitLab: ARCHIVES },
  { name: 'RepositoryArchive', notGitLab: ARCHIVES },
  { name: 'Repository', kept: { archive: `ours: ${ARCHIVES}` } },
  { name: 'Query', fields: { metadata: 'Metadata' }, kept: { outboxEmails: `ours: ${OUTBOX}` } },
];
