import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

/** Experiments (flag definitions of type `experiment`) and their rollout, from the flag store. */
export const experiments = defineModule({
  name: 'experiments',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
