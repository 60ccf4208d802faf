import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const tags = defineModule({
  name: 'tags',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
