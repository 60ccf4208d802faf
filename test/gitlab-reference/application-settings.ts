// Instance settings: GitLab serves them through REST only (`/application/settings`); its GraphQL
// `CiApplicationSettings` is another type. Our REST routes run these.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "GitLab's application settings are REST-only (`/application/settings`, administrators); our REST routes run this";

export const types: ReferenceType[] = [
  ...['ApplicationSettings', 'ApplicationSettingsUpdateInput', 'ApplicationSettingsUpdatePayload'].map((name) => ({ name, notGitLab: REST_ONLY })),
  { name: 'Query', kept: { applicationSettings: REST_ONLY } },
  { name: 'Mutation', kept: { applicationSettingsUpdate: REST_ONLY } },
];
