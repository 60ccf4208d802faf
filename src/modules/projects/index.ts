import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const projects = defineModule({
  name: 'projects',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
