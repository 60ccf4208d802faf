import { defineModule } from '../module.ts';
import { createRepositoryFileLoaders } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const repositoryFiles = defineModule({
  name: 'repository-files',
  routes,
  loaders: { repositoryFiles: createRepositoryFileLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
