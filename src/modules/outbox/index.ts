import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const outbox = defineModule({
  name: 'outbox',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
