import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const labels = defineModule({
  name: 'labels',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
