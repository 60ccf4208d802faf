import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const milestones = defineModule({
  name: 'milestones',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
