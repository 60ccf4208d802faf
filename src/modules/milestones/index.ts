import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { MilestoneRef, TimeframeInput } from './schema.ts';

export const milestones = defineModule({
  name: 'milestones',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
