import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';

/**
 * Ceilings on a query's text (tokens, aliases) against expensive or abusive queries, as Yoga
 * plugins (GitLab's depth ceilings depend on the viewer: the operation checks keep them). The
 * endpoint imports this module with Yoga, on its first request; the packages are imported
 * statically here because their CommonJS entry points pick a build by NODE_ENV, which hides their
 * exports from the bundler when imported dynamically (the bundled server then got a module
 * without the plugins).
 */
export function queryLimits() {
  return [maxTokensPlugin({ n: 5000 }), maxAliasesPlugin({ n: 30 })];
}
