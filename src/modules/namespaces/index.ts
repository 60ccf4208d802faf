import { defineModule } from '../module.ts';
// The GraphQL types other areas reference or extend (importing them registers this area's schema).
export { NamespaceRef, VisibilityEnum } from './schema.ts';

export const namespaces = defineModule({
  name: 'namespaces',
});
