import type { Namespace } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { equalsIgnoringCase } from '../../core/input.ts';

/** A group or a user's namespace by its full path, as the viewer may see it (null otherwise, as GitLab's `namespace` answers). */
export async function findNamespace(ctx: Context, fullPath: string): Promise<Namespace | null> {
  const namespace = await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) } });
  return namespace && (await ctx.policy.canReadNamespace(namespace)) ? namespace : null;
}
