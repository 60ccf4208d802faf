import { defineModule } from '../module.ts';
import { routes, webRoutes } from './rest.ts';
import './schema.ts';

export const archives = defineModule({
  name: 'archives',
  routes,
  webRoutes,
  operations: new URL('./operations.graphql', import.meta.url),
});
