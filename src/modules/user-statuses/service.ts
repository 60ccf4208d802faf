import type { Context } from '../../core/context.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { equalsIgnoringCase } from '../../core/input.ts';
import type { User, UserAvailability, UserStatus } from '../../generated/prisma/client.ts';

/** GitLab's `clear_status_after` choices and how long each keeps a status. */
export const CLEAR_STATUS_AFTER = {
  '30_minutes': 30 * 60_000,
  '3_hours': 3 * 3_600_000,
  '8_hours': 8 * 3_600_000,
  '1_day': 86_400_000,
  '3_days': 3 * 86_400_000,
  '7_days': 7 * 86_400_000,
  '30_days': 30 * 86_400_000,
} as const;
export type ClearStatusAfter = keyof typeof CLEAR_STATUS_AFTER;

const MESSAGE_LIMIT = 100;
const DEFAULT_EMOJI = 'speech_balloon';
// GitLab checks the name against its emoji set; forgegate checks its form (what an emoji name can be).
const EMOJI_NAME = /^[a-z0-9_+-]{1,64}$/;

/** A status whose `clear_status_at` passed reads as none, as GitLab's clean-up job leaves it. */
const current = (status: UserStatus | null) => (status && (!status.clearStatusAt || status.clearStatusAt > new Date()) ? status : null);

/** The user a REST `:user_id` names: digits are an id, anything else a username. Users are public profiles. */
async function findUser(ctx: Context, by: { id?: number | null; username?: string | null }): Promise<User> {
  const user =
    by.id != null
      ? await ctx.loaders.user.load(by.id)
      : by.username
        ? await ctx.db.user.findFirst({ where: { username: equalsIgnoringCase(by.username) } })
        : null;
  if (!user) throw new NotFoundError('User');
  return user;
}

/** A user's status, or null when they set none (or it was cleared). */
export async function userStatus(ctx: Context, by: { id?: number | null; username?: string | null }): Promise<UserStatus | null> {
  const user = by.id == null && by.username == null ? requireViewer(ctx) : await findUser(ctx, by);
  return current(await ctx.db.userStatus.findUnique({ where: { userId: user.id } }));
}

/** The status `User.status` shows: the user's, unless it lapsed. */
export async function statusOf(ctx: Context, user: User): Promise<UserStatus | null> {
  return current((await ctx.loaders.userStatuses.load(user.id)) ?? null);
}

function requireViewer(ctx: Context): User {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  return ctx.viewer.user;
}

export type StatusInput = {
  emoji?: string | null;
  message?: string | null;
  availability?: UserAvailability | null;
  clearStatusAfter?: ClearStatusAfter | null;
};

/**
 * Sets the viewer's status (GitLab's `Users::SetStatusService`): nothing given clears it; a
 * message without an emoji gets the speech balloon; `clearStatusAfter` makes it lapse.
 */
export async function setUserStatus(ctx: Context, input: StatusInput): Promise<UserStatus | null> {
  const user = requireViewer(ctx);
  const errors: Record<string, string[]> = {};
  if (input.emoji && !EMOJI_NAME.test(input.emoji)) errors.emoji = ['is not a valid emoji name'];
  if (input.message && input.message.length > MESSAGE_LIMIT) errors.message = [`is too long (maximum is ${MESSAGE_LIMIT} characters)`];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  if (!input.emoji && !input.message && (!input.availability || input.availability === 'not_set')) {
    await ctx.db.userStatus.deleteMany({ where: { userId: user.id } });
    return null;
  }
  const data = {
    emoji: input.emoji || DEFAULT_EMOJI,
    message: input.message || null,
    availability: input.availability ?? 'not_set',
    clearStatusAt: input.clearStatusAfter ? new Date(Date.now() + CLEAR_STATUS_AFTER[input.clearStatusAfter]) : null,
  };
  return ctx.db.userStatus.upsert({ where: { userId: user.id }, create: { userId: user.id, ...data }, update: data });
}
