import { defineModule } from '../module.ts';
import { createCommitLoaders } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const commits = defineModule({
  name: 'commits',
  routes,
  loaders: { commits: createCommitLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
