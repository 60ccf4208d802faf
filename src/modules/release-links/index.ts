import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const releaseLinks = defineModule({
  name: 'release-links',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
