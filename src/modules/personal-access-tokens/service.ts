import { containsIgnoringCase } from '../../core/input.ts';
import type { PersonalAccessToken, Prisma, User } from '../../generated/prisma/client.ts';
import { ADMIN_ONLY_SCOPES, TOKEN_SCOPES } from '../../auth/scopes.ts';
import { isExpired, issueToken, utcToday } from '../../auth/tokens.ts';
import type { Context } from '../../core/context.ts';
import {
  badRequestBecause,
  InsufficientScopeError,
  NotFoundError,
  ParamError,
  RecordNotFoundError,
  UnauthorizedError,
  UnprocessableError,
  ValidationError,
} from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';

/** A token as just issued: the record and, this once, its clear text. */
export type IssuedToken = PersonalAccessToken & { value: string };

/** GitLab's maximum token lifetime (and the default expiry of an administrator-created token). */
export const MAX_LIFETIME_DAYS = 365;
/** A self-created token's default lifetime: GitLab's `1.day.from_now.to_date`. */
const SELF_SERVICE_LIFETIME_DAYS = 1;
/** A rotated token's default lifetime. */
export const ROTATION_LIFETIME_DAYS = 7;
/** The only scope a user may give a token they create for themselves through the API. */
export const SELF_SERVICE_SCOPES = ['k8s_proxy'];

const daysFromToday = (days: number) => new Date(utcToday().getTime() + days * 86_400_000);
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

export const isActive = (token: Pick<PersonalAccessToken, 'revoked' | 'expiresAt'>) => !token.revoked && !isExpired(token.expiresAt);

type Kind = 'personal' | 'impersonation';

/**
 * GitLab reports a token's model errors differently per route: a personal token's create service
 * answers 422 with the sentence, the impersonation route 400 with the fields.
 */
function modelErrors(kind: Kind, fields: Record<string, string[]>, sentence: string) {
  return kind === 'impersonation' ? new ValidationError(fields) : new UnprocessableError(sentence);
}

type TokenAttributes = { name: string; description?: string | null; scopes: string[]; expiresAt?: Date | null };

/** Checks what GitLab's token model and parameters check, in their order. */
function validateAttributes(kind: Kind, owner: User, attributes: TokenAttributes) {
  if (attributes.scopes.some((s) => !(TOKEN_SCOPES as readonly string[]).includes(s))) throw new ParamError('scopes does not have a valid value');
  if (attributes.name.trim() === '') throw modelErrors(kind, { name: ["can't be blank"] }, "Name can't be blank");
  if (attributes.scopes.length === 0) throw modelErrors(kind, { scopes: ["can't be blank"] }, "Scopes can't be blank");
  if (!owner.isAdmin && attributes.scopes.some((s) => (ADMIN_ONLY_SCOPES as string[]).includes(s))) {
    throw modelErrors(kind, { scopes: ['can only contain available scopes'] }, 'Scopes can only contain available scopes');
  }
  const latest = daysFromToday(MAX_LIFETIME_DAYS);
  if (attributes.expiresAt && attributes.expiresAt > latest) {
    throw modelErrors(kind, { expires_at: [`must be before ${isoDate(latest)}`] }, `Expiration date must be before ${isoDate(latest)}`);
  }
}

async function issue(ctx: Context, owner: User, kind: Kind, attributes: TokenAttributes & { expiresAt: Date | null }, previousTokenId: number | null = null) {
  const { row, token } = await issueToken(ctx.db, ctx.deps.secrets.tokenDigestKey, {
    userId: owner.id,
    name: attributes.name,
    description: attributes.description ?? null,
    scopes: [...new Set(attributes.scopes)],
    expiresAt: attributes.expiresAt,
    impersonation: kind === 'impersonation',
    previousTokenId,
  });
  return { ...row, value: token };
}

function requireSignedIn(ctx: Context): User {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  return ctx.viewer.user;
}

/** A user by id for an administrator's token route; GitLab checks the administrator first. */
async function targetUser(ctx: Context, userId: number): Promise<User> {
  ctx.policy.requireAdmin();
  const user = await ctx.loaders.user.load(userId);
  if (!user) throw new NotFoundError('User');
  return user;
}

export type CreateTokenInput = TokenAttributes & { userId?: number | null };

/**
 * Personal access tokens: an administrator creates one for any user (`userId`, any scopes,
 * expiring after the maximum lifetime unless told otherwise); a user creates one for themselves
 * with the `k8s_proxy` scope only, expiring the day after creation unless told otherwise.
 */
export async function createPersonalAccessToken(ctx: Context, input: CreateTokenInput): Promise<IssuedToken> {
  if (input.userId != null) {
    const owner = await targetUser(ctx, input.userId);
    validateAttributes('personal', owner, input);
    return issue(ctx, owner, 'personal', { ...input, expiresAt: input.expiresAt ?? daysFromToday(MAX_LIFETIME_DAYS) });
  }
  const owner = requireSignedIn(ctx);
  if (input.scopes.some((s) => !SELF_SERVICE_SCOPES.includes(s))) throw new ParamError('scopes does not have a valid value');
  validateAttributes('personal', owner, input);
  return issue(ctx, owner, 'personal', { ...input, expiresAt: input.expiresAt ?? daysFromToday(SELF_SERVICE_LIFETIME_DAYS) });
}

/**
 * An administrator's token that acts as `userId` (API and git), hidden from that user's own lists;
 * without an expiry it gets the maximum lifetime, as an administrator's personal token does.
 */
export async function createImpersonationToken(ctx: Context, input: TokenAttributes & { userId: number }): Promise<IssuedToken> {
  const owner = await targetUser(ctx, input.userId);
  validateAttributes('impersonation', owner, input);
  return issue(ctx, owner, 'impersonation', { ...input, expiresAt: input.expiresAt ?? daysFromToday(MAX_LIFETIME_DAYS) });
}

export type TokenState = 'active' | 'inactive';

const stateWhere = (state: TokenState): Prisma.PersonalAccessTokenWhereInput =>
  state === 'active'
    ? { revoked: false, OR: [{ expiresAt: null }, { expiresAt: { gte: utcToday() } }] }
    : { OR: [{ revoked: true }, { expiresAt: { lt: utcToday() } }] };

/** GitLab's `AccessTokenSort` values. */
export const TOKEN_SORTS = [
  'created_desc',
  'created_asc',
  'updated_desc',
  'updated_asc',
  'expires_desc',
  'expires_asc',
  'last_used_desc',
  'last_used_asc',
  'id_desc',
  'id_asc',
  'name_desc',
  'name_asc',
] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

// Tokens are never edited here (revoking or rotating makes a new state, not an edit), so GitLab's
// `updated` order is the order of creation.
const SORT_COLUMNS = { created: 'createdAt', updated: 'createdAt', expires: 'expiresAt', last_used: 'lastUsedAt', id: 'id', name: 'name' } as const;

/** The order of a token list: the sort's column (tokens without a date last), then the id; by id without a sort. */
function tokenOrder(sort: TokenSort | null | undefined): Prisma.PersonalAccessTokenOrderByWithRelationInput[] {
  if (!sort) return [{ id: 'asc' }];
  const direction = sort.endsWith('_asc') ? 'asc' : 'desc';
  const column = SORT_COLUMNS[sort.replace(/_(asc|desc)$/, '') as keyof typeof SORT_COLUMNS];
  const nullable = column === 'expiresAt' || column === 'lastUsedAt';
  return [{ [column]: nullable ? { sort: direction, nulls: 'last' } : direction }, { id: direction }];
}

/**
 * A page is read as its ids first, then their rows. The ids alone come from the owner's index on
 * (user_id[, impersonation], sort, id) without reading the table. Asked for whole rows, the planner
 * may walk the primary key instead, filtering by owner: when one user holds most tokens and they are
 * the newest, it reads every other user's token before the first of theirs (bench/RESULTS.md).
 */
function listing(ctx: Context, where: Prisma.PersonalAccessTokenWhereInput, sort?: TokenSort | null): Listing<PersonalAccessToken> {
  const orderBy = tokenOrder(sort);
  return {
    fetch: async ({ offset, limit }) => {
      const page = await ctx.db.personalAccessToken.findMany({ where, orderBy, skip: offset, take: limit, select: { id: true } });
      if (page.length === 0) return [];
      return ctx.db.personalAccessToken.findMany({ where: { id: { in: page.map((token) => token.id) } }, orderBy });
    },
    count: () => ctx.db.personalAccessToken.count({ where, take: ctx.countLimit }),
  };
}

export async function listImpersonationTokens(ctx: Context, userId: number, state: TokenState | null): Promise<Listing<PersonalAccessToken>> {
  const user = await targetUser(ctx, userId);
  return listing(ctx, { userId: user.id, impersonation: true, ...(state && stateWhere(state)) });
}

/** One impersonation token of the user; a normal personal token's id is not one. */
export async function findImpersonationToken(ctx: Context, userId: number, tokenId: number): Promise<PersonalAccessToken> {
  const user = await targetUser(ctx, userId);
  const token = await ctx.db.personalAccessToken.findFirst({ where: { id: tokenId, userId: user.id, impersonation: true } });
  if (!token) throw new NotFoundError('Impersonation Token');
  return token;
}

/** Revoking keeps the record (`active` false, `revoked` true). */
export async function revokeImpersonationToken(ctx: Context, userId: number, tokenId: number): Promise<PersonalAccessToken> {
  const token = await findImpersonationToken(ctx, userId, tokenId);
  return ctx.db.personalAccessToken.update({ where: { id: token.id }, data: { revoked: true } });
}

export type TokenFilter = {
  userId?: number | null;
  state?: TokenState | null;
  revoked?: boolean | null;
  search?: string | null;
  createdBefore?: Date | null;
  createdAfter?: Date | null;
  lastUsedBefore?: Date | null;
  lastUsedAfter?: Date | null;
  expiresBefore?: Date | null;
  expiresAfter?: Date | null;
  sort?: TokenSort | null;
};

/**
 * Administrators see every token (optionally one user's, impersonation tokens included); anyone
 * else sees their own personal tokens only, never the impersonation tokens issued for them, and
 * naming another user is 401 as in GitLab.
 */
async function ownerScope(ctx: Context, userId: number | null | undefined): Promise<Prisma.PersonalAccessTokenWhereInput> {
  const viewer = requireSignedIn(ctx);
  if (!ctx.viewer.isAdmin) {
    if (userId != null && userId !== viewer.id) throw new UnauthorizedError();
    return { userId: viewer.id, impersonation: false };
  }
  if (userId == null) return {};
  if (!(await ctx.loaders.user.load(userId))) throw new NotFoundError();
  return { userId };
}

const between = (after?: Date | null, before?: Date | null) => (after || before ? { ...(after && { gt: after }), ...(before && { lt: before }) } : undefined);

/** The conditions of a token list's filters. */
const filterWhere = (filter: TokenFilter): Prisma.PersonalAccessTokenWhereInput[] => [
  filter.state ? stateWhere(filter.state) : {},
  filter.revoked != null ? { revoked: filter.revoked } : {},
  filter.search ? { name: containsIgnoringCase(filter.search) } : {},
  { createdAt: between(filter.createdAfter, filter.createdBefore) },
  { lastUsedAt: between(filter.lastUsedAfter, filter.lastUsedBefore) },
  { expiresAt: between(filter.expiresAfter, filter.expiresBefore) },
];

export async function listPersonalAccessTokens(ctx: Context, filter: TokenFilter): Promise<Listing<PersonalAccessToken>> {
  return listing(ctx, { AND: [await ownerScope(ctx, filter.userId), ...filterWhere(filter)] }, filter.sort);
}

/**
 * Who may list a user's personal access tokens (GitLab's `read_user_personal_access_tokens`): the
 * user and administrators.
 */
export const mayReadTokensOf = (ctx: Context, userId: number) => ctx.viewer.isAdmin || ctx.viewer.userId === userId;

/**
 * The personal access tokens of several users (impersonation tokens are not theirs to see) under
 * one filter, in its order: GitLab's `User.personalAccessTokens` for a list of users, read in one
 * statement (see loaders.ts).
 */
export function tokensOfUsers(ctx: Context, userIds: readonly number[], filter: Omit<TokenFilter, 'userId'>): Promise<PersonalAccessToken[]> {
  return ctx.db.personalAccessToken.findMany({
    where: { AND: [{ userId: { in: [...userIds] }, impersonation: false }, ...filterWhere(filter)] },
    orderBy: tokenOrder(filter.sort),
  });
}

/** Whether the viewer manages this token as its owner: their own personal token, or the one they present. */
const ownedByViewer = (ctx: Context, token: PersonalAccessToken) =>
  token.id === ctx.viewer.token?.id || (token.userId === ctx.viewer.userId && !token.impersonation);

/**
 * A token the viewer may read or rotate. Only administrators learn whether an id exists (404);
 * others get 401 for any token that is not theirs, as GitLab answers.
 */
async function manageableToken(ctx: Context, id: number): Promise<PersonalAccessToken> {
  requireSignedIn(ctx);
  const token = await ctx.db.personalAccessToken.findUnique({ where: { id } });
  if (token && (ctx.viewer.isAdmin || ownedByViewer(ctx, token))) return token;
  throw ctx.viewer.isAdmin ? new NotFoundError() : new UnauthorizedError();
}

/** One token by id: any for administrators, their own for others. */
export const findPersonalAccessToken = manageableToken;

/** The token the request came with (GitLab's `/personal_access_tokens/self`). */
export function currentToken(ctx: Context): PersonalAccessToken {
  requireSignedIn(ctx);
  if (!ctx.viewer.token) throw new UnauthorizedError();
  return ctx.viewer.token;
}

/** Revokes a token (`id` omitted: the token of this request). Revoking twice is harmless. */
export async function revokePersonalAccessToken(ctx: Context, id?: number | null): Promise<PersonalAccessToken> {
  requireSignedIn(ctx);
  const token = id == null ? currentToken(ctx) : await ctx.db.personalAccessToken.findUnique({ where: { id } });
  if (!token) throw new RecordNotFoundError();
  // An impersonated user may not revoke the administrator's token issued for them (gitlab#332410).
  if (!ctx.viewer.isAdmin && !ownedByViewer(ctx, token)) throw badRequestBecause('Not permitted to revoke');
  return ctx.db.personalAccessToken.update({ where: { id: token.id }, data: { revoked: true } });
}

/**
 * Revokes a token and issues its successor (same name, description, scopes, owner and kind),
 * expiring in a week unless told otherwise. A `self_rotate` token may rotate only itself. The
 * revocation is a conditional update, so two concurrent rotations of one token issue one successor.
 */
export async function rotatePersonalAccessToken(ctx: Context, id: number | null | undefined, expiresAt?: Date | null): Promise<IssuedToken> {
  const token = id == null ? currentToken(ctx) : await manageableToken(ctx, id);
  if (ctx.viewer.token && !ctx.viewer.hasScope(['api']) && token.id !== ctx.viewer.token.id) throw new InsufficientScopeError(['api']);
  if (token.revoked) throw badRequestBecause('token already revoked');
  const latest = daysFromToday(MAX_LIFETIME_DAYS);
  if (expiresAt && expiresAt > latest) throw badRequestBecause(`Expiration date must be before ${isoDate(latest)}`);
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.personalAccessToken.updateMany({ where: { id: token.id, revoked: false }, data: { revoked: true } });
    if (count === 0) throw badRequestBecause('token already revoked');
    const successor = await issueToken(tx, ctx.deps.secrets.tokenDigestKey, {
      userId: token.userId,
      name: token.name,
      description: token.description,
      scopes: token.scopes,
      expiresAt: expiresAt ?? daysFromToday(ROTATION_LIFETIME_DAYS),
      impersonation: token.impersonation,
      previousTokenId: token.id,
    });
    return { ...successor.row, value: successor.token };
  });
}
