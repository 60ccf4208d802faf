import { defineModule } from '../module.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const commits = defineModule({
  name: 'commits',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
});
