import type { AppDeps } from '../deps.ts';
import type { FlagActor } from './gates.ts';

export { flagActor, type FlagActor } from './gates.ts';
export type { FlagStatus, FlagChange } from './store.ts';
export { experimentKey, type FlagDefinition } from './definitions.ts';

/**
 * The one question code asks about a flag: is `name` enabled (for `actor`, when the flag is
 * rolled out to a percentage of actors)? A name without a definition file throws
 * UnknownFlagError, so a typo fails the first test that reaches it instead of reading "off".
 *
 *     if (await featureEnabled(ctx.deps, 'epic_highlight_color', ctx.viewer.user ?? undefined)) …
 */
export function featureEnabled(deps: Pick<AppDeps, 'flags'>, name: string, actor?: FlagActor | null): Promise<boolean> {
  return deps.flags.isEnabled(name, actor ?? undefined);
}
