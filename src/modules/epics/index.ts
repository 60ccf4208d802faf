import { defineModule } from '../module.ts';
import { createEpicLoaders } from './loaders.ts';
import { routes, todoRoutes } from './rest.ts';
import { recomputeEpicDates } from './service.ts';
import './schema.ts';

export { TodoConnectionRef, TodoRef } from './schema.ts';

export const epics = defineModule({
  name: 'epics',
  routes: [...routes, ...todoRoutes],
  loaders: { epics: createEpicLoaders },
  // Their parents that stay lose the dates the deleted epics gave them.
  subscribers: { epicsDeleted: [({ parentIds }, deps) => recomputeEpicDates(deps.db, parentIds)] },
  operations: new URL('./operations.graphql', import.meta.url),
});
