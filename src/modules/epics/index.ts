import { defineModule } from '../module.ts';
import { createEpicLoaders } from './loaders.ts';
import { routes, todoRoutes } from './rest.ts';
import './schema.ts';

export { TodoConnectionRef, TodoRef } from './schema.ts';

export const epics = defineModule({
  name: 'epics',
  routes: [...routes, ...todoRoutes],
  loaders: { epics: createEpicLoaders },
  operations: new URL('./operations.graphql', import.meta.url),
});
