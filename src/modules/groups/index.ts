import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const groups = defineModule({
  name: 'groups',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
