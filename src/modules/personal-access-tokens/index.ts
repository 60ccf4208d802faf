import { defineModule } from '../module.ts';
import { createUserTokensLoader } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';

/** Personal access tokens (created by administrators or by users for themselves) and impersonation tokens. */
export const personalAccessTokens = defineModule({
  name: 'personal-access-tokens',
  routes,
  loaders: { userTokens: createUserTokensLoader },
  operations: new URL('./operations.graphql', import.meta.url),
});
