import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const users = defineModule({
  name: 'users',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
