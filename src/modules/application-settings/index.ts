import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const applicationSettings = defineModule({
  name: 'application-settings',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
