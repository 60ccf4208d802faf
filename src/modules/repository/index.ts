import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const repository = defineModule({
  name: 'repository',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
