import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const meta = defineModule({
  name: 'meta',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
