import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';

/**
 * GitLab's own ceilings (depth 20 for signed-in users) against expensive or abusive queries, as Yoga
 * plugins. The endpoint imports this module with Yoga, on its first request; the packages are
 * imported statically here because their CommonJS entry points pick a build by NODE_ENV, which
 * hides their exports from the bundler when imported dynamically (the bundled server then got a
 * module without `maxDepthPlugin`).
 */
export function queryLimits() {
  return [maxDepthPlugin({ n: 20, flattenFragments: true }), maxTokensPlugin({ n: 5000 }), maxAliasesPlugin({ n: 30 })];
}
