import type { Context } from '../../core/context.ts';
import { BadRequestError } from '../../core/errors.ts';
import type { FlagChange, FlagDefinition, FlagStatus } from '../../flags/index.ts';

/** Flags an administrator has set (GitLab's `Feature.all`: persisted flags only). */
export async function listFeatures(ctx: Context): Promise<FlagStatus[]> {
  ctx.policy.requireAdmin();
  return (await ctx.deps.flags.list()).filter((flag) => flag.persisted);
}

/** Every flag the code defines, set or not. */
export function listFeatureDefinitions(ctx: Context): FlagDefinition[] {
  ctx.policy.requireAdmin();
  return [...ctx.deps.flags.definitions.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export type FeatureValueKey = 'percentage_of_actors' | 'percentage_of_time';

/**
 * GitLab's reading of `value` (Admin::SetFeatureFlagService): `true`/`100` open the boolean gate,
 * `false`/`0` close every gate, another whole percentage rolls out to that share of actors. Only
 * the boolean and percentage-of-actors gates exist here, so `percentage_of_time` is refused.
 */
function changeOf(name: string, value: string, key?: FeatureValueKey): FlagChange {
  if (value === 'true' || value === '100') return { enabled: true };
  if (value === 'false' || value === '0') return { enabled: false };
  if (key === 'percentage_of_time')
    throw new BadRequestError(`Cannot set '${name}' ("${key}") to ${JSON.stringify(value)}: only percentage_of_actors gates are supported`);
  const numeric = /^\d+(\.\d+)?$/.test(value);
  if (!numeric) throw new BadRequestError(key ? 'Not a percentage' : `Cannot set '${name}' to ${JSON.stringify(value)}`);
  const percentage = Number(value);
  if (!Number.isInteger(percentage) || percentage > 100) throw new BadRequestError('Not a percentage');
  return { percentageOfActors: percentage };
}

function definedFlag(ctx: Context, name: string) {
  if (!ctx.deps.flags.definitions.has(name)) throw new BadRequestError(`The feature flag '${name}' has no definition`);
}

export async function setFeature(ctx: Context, input: { name: string; value: string; key?: FeatureValueKey | null }): Promise<FlagStatus> {
  ctx.policy.requireAdmin();
  definedFlag(ctx, input.name);
  return ctx.deps.flags.set(input.name, changeOf(input.name, input.value.trim(), input.key ?? undefined));
}

/**
 * Forgets what was set, so the flag answers its definition's default again. Like GitLab, a name
 * that was never set (or is not defined) is not an error; the answer is null then.
 */
export async function deleteFeature(ctx: Context, name: string): Promise<FlagStatus | null> {
  ctx.policy.requireAdmin();
  if (!ctx.deps.flags.definitions.has(name)) return null;
  await ctx.deps.flags.remove(name);
  return ctx.deps.flags.get(name);
}
