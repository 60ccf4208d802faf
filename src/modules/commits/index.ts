import { defineModule } from '../module.ts';
import { createCommitLoaders } from './loaders.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { CommitRef, DetailedStatusRef, RepositoryRef, type DetailedStatus } from './schema.ts';

export const commits = defineModule({
  name: 'commits',
  routes,
  loaders: { commits: createCommitLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
