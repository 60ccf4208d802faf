import type { Gemoji } from 'gemoji';
import type { AwardEmoji, Epic } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { RecordNotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { normalizeEmojiName } from './service.ts';

let byName: Promise<ReadonlyMap<string, Gemoji>> | undefined;

/**
 * The emoji of a name, from GitHub's gemoji set (whose names GitLab's follow). The set (0.6 MB of
 * JavaScript) loads with the first award read or written, not with every process's start.
 */
export async function emojiNamed(name: string): Promise<Gemoji | undefined> {
  byName ??= import('gemoji').then(({ gemoji }) => new Map(gemoji.flatMap((g) => g.names.map((n) => [normalizeEmojiName(n), g] as const))));
  return (await byName).get(name);
}

/** Awards the emoji to the epic as the viewer (who can read it); once per user and name. */
export async function addAward(ctx: Context, epic: Epic, name: string): Promise<AwardEmoji> {
  const userId = ctx.viewer.userId;
  if (userId == null) throw new UnauthorizedError();
  const normalized = normalizeEmojiName(name);
  if (!(await emojiNamed(normalized))) throw new ValidationError({ name: ['is not a valid emoji name'] });
  try {
    const award = await ctx.db.awardEmoji.create({ data: { name: normalized, userId, epicId: epic.id } });
    forgetAwards(ctx, epic);
    return award;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ValidationError({ name: ['has already been taken'] });
    throw error;
  }
}

/**
 * Removes an award of the epic: by id (its user or an administrator, as GitLab's REST route) or
 * the viewer's award of a name (GitLab's `awardEmojiRemove`). Returns the award as it was.
 */
export async function removeAward(ctx: Context, epic: Epic, by: { awardId?: number | null; name?: string | null }): Promise<AwardEmoji> {
  const userId = ctx.viewer.userId;
  if (userId == null) throw new UnauthorizedError();
  const award =
    by.awardId != null
      ? await ctx.db.awardEmoji.findFirst({ where: { id: by.awardId, epicId: epic.id } })
      : await ctx.db.awardEmoji.findFirst({ where: { epicId: epic.id, userId, name: normalizeEmojiName(by.name ?? '') } });
  if (!award) {
    if (by.awardId != null) throw new RecordNotFoundError();
    throw new ValidationError({ base: [`User has not awarded emoji of type ${by.name ?? ''} on the awardable`] });
  }
  if (award.userId !== userId && !ctx.viewer.isAdmin) throw new UnauthorizedError();
  await ctx.db.awardEmoji.delete({ where: { id: award.id } });
  forgetAwards(ctx, epic);
  return award;
}

function forgetAwards(ctx: Context, epic: Epic) {
  ctx.loaders.epics.awards.clear(epic.id);
  ctx.loaders.epics.awardCounts.clear(epic.id);
}
