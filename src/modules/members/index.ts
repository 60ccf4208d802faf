import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const members = defineModule({
  name: 'members',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
