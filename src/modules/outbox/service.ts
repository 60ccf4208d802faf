import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import type { Email } from '../../generated/prisma/client.ts';

/** Every e-mail the instance sent or kept, newest first; administrators only (it holds other users' mail). */
export function listEmails(ctx: Context, filter: { to?: string | null }): Listing<Email> {
  ctx.policy.requireAdmin();
  const where = filter.to ? { to: { has: filter.to } } : {};
  return {
    fetch: ({ offset, limit }) => ctx.db.email.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.email.count({ where, take: ctx.countLimit }),
  };
}
