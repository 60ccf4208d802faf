import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const branches = defineModule({
  name: 'branches',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
