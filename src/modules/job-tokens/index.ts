import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const jobTokens = defineModule({
  name: 'job-tokens',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
