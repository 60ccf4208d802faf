import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

/** Package protection rules of a project, and the push/delete question a package registry asks. */
export const packageProtection = defineModule({
  name: 'package-protection',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
