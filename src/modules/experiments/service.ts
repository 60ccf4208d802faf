import type { Context } from '../../core/context.ts';
import { experimentKey, type FlagStatus } from '../../flags/index.ts';

export type Experiment = { key: string; status: FlagStatus };

/**
 * Every experiment definition (type `experiment`) with its rollout read from the flag store;
 * administrators only. An experiment nobody has set reports its definition's default.
 */
export async function listExperiments(ctx: Context): Promise<Experiment[]> {
  ctx.policy.requireAdmin();
  const flags = await ctx.deps.flags.list();
  return flags.filter((f) => f.definition.type === 'experiment').map((status) => ({ key: experimentKey(status.definition), status }));
}
