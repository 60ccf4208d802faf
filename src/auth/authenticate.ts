import { equalsIgnoringCase, parseId } from '../core/input.ts';
import type { Db } from '../db/client.ts';
import type { SqlReader } from '../db/rows.ts';
import type { User } from '../generated/prisma/client.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../core/errors.ts';
import { isExpired, tokenDigest } from './tokens.ts';
import { Viewer } from './viewer.ts';
import type { ViewerCache } from './viewer-cache.ts';
import { jobTokenByDigest, revokeRotatedSuccessors, tokenByDigest, markTokenUsed } from './store.ts';

export type Credentials = { token?: string; sudo?: string; jobToken?: string };

const LAST_USED_INTERVAL_MS = 60_000;

type HeaderSource = { header(name: string): string | undefined; query?: Record<string, unknown> };

/** Token sources GitLab accepts: PRIVATE-TOKEN, `Authorization: Bearer`, `?private_token=`, JOB-TOKEN / `?job_token=`. */
export function readCredentials(req: HeaderSource): Credentials {
  const bearer = req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
  const queryToken = req.query?.private_token ?? req.query?.access_token;
  const sudoParam = req.query?.sudo;
  const jobParam = req.query?.job_token;
  return {
    jobToken: req.header('job-token') ?? (typeof jobParam === 'string' ? jobParam : undefined),
    token: req.header('private-token') ?? bearer ?? (typeof queryToken === 'string' ? queryToken : undefined),
    sudo: req.header('sudo') ?? (typeof sudoParam === 'string' ? sudoParam : undefined),
  };
}

const expired = () =>
  new UnauthorizedError({
    error: 'invalid_token',
    error_description: 'Token is expired. You can either do re-authorization or token refresh.',
  });

const revoked = () =>
  new UnauthorizedError({
    error: 'invalid_token',
    error_description: 'Token was revoked. You have to re-authorize from the user.',
  });

/** The database and the plain reader every request's credential lookup goes through, and the address deactivated users are sent to. */
export type AuthStore = { db: Db; sql: SqlReader; config: { externalUrl: string } };

/** States whose credentials GitLab refuses as blocked (`User#blocked?`: banned and LDAP-blocked users are blocked too). */
const BLOCKED_STATES: ReadonlySet<User['state']> = new Set(['blocked', 'banned', 'ldap_blocked']);

/**
 * GitLab's `api_access_denied_message`: a blocked account's credentials are refused; a deactivated
 * one's too, with the way back (signing in on the web, which forgegate does not have: an
 * administrator's `POST /users/:id/activate` is the way here).
 */
function requireAccountAccess(user: User, externalUrl: string): void {
  if (BLOCKED_STATES.has(user.state)) throw new ForbiddenError('Your account has been blocked.');
  if (user.state === 'deactivated') {
    throw new ForbiddenError(
      `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${externalUrl}`,
    );
  }
}

/** A job token acts as its user, bound to its project; it cannot be combined with another credential. */
async function authenticateJob(store: AuthStore, digestKey: string, credentials: Credentials): Promise<Viewer> {
  if (credentials.token || credentials.sudo) throw new UnauthorizedError();
  const job = await jobTokenByDigest(store.sql, tokenDigest(digestKey, credentials.jobToken!));
  if (!job) throw new UnauthorizedError();
  if (job.expiresAt < new Date()) throw expired();
  requireAccountAccess(job.user, store.config.externalUrl);
  return new Viewer(job.user, null, null, { projectId: job.projectId });
}

export async function authenticate(store: AuthStore, digestKey: string, credentials: Credentials, cache?: ViewerCache): Promise<Viewer> {
  if (credentials.jobToken) return authenticateJob(store, digestKey, credentials);
  if (!credentials.token) {
    if (credentials.sudo) throw new UnauthorizedError();
    return Viewer.anonymous();
  }
  const viewer = await authenticateToken(store, digestKey, credentials.token, cache);
  return credentials.sudo ? sudo(store.db, viewer, credentials.sudo) : viewer;
}

/**
 * The one lookup of a personal or impersonation token, for every surface that takes one (the
 * API, GraphQL, git over HTTP): an impersonation token acts as its user. Unknown tokens are 401
 * at once; an expired or revoked one yields a viewer carrying the failure, raised by the scope
 * check (`viewer.requireScope`) so that scope, expiry and revocation are checked in GitLab's order.
 */
export async function authenticateToken({ db, sql, config }: AuthStore, digestKey: string, token: string, cache?: ViewerCache): Promise<Viewer> {
  const digest = tokenDigest(digestKey, token);
  const find = () => tokenByDigest(sql, digest);
  const row = cache ? await cache.lookup(digest, find) : await find();
  if (!row) throw new UnauthorizedError();
  requireAccountAccess(row.user, config.externalUrl);
  const problem = isExpired(row.expiresAt) ? expired() : row.revoked ? revoked() : null;
  // A revoked token that comes back after it was rotated may have leaked: GitLab then revokes the
  // whole family, every token rotated from it (directly or down the chain).
  if (row.revoked) await revokeRotatedSuccessors(db, row.id);
  // The next lookup reads the new last_used_at (the trigger does not announce that column).
  if (!problem && (await touchLastUsed(db, row.id, row.lastUsedAt))) cache?.forget(digest);
  const { user, ...tokenRow } = row;
  return new Viewer(user, tokenRow, null, null, problem);
}

/**
 * `last_used_at` moves at most once a minute per token. The condition is in the UPDATE, so
 * concurrent requests in any number of processes write it once; a failure (read-only replica)
 * never fails the request.
 */
async function touchLastUsed(db: Db, id: number, lastUsedAt: Date | null): Promise<boolean> {
  if (lastUsedAt && Date.now() - lastUsedAt.getTime() < LAST_USED_INTERVAL_MS) return false;
  await markTokenUsed(db, id, LAST_USED_INTERVAL_MS / 1000).catch(() => {});
  return true;
}

const findById = (db: Db, id: number | null) => (id === null ? null : db.user.findUnique({ where: { id } }));

async function sudo(db: Db, viewer: Viewer, who: string): Promise<Viewer> {
  if (!viewer.isAdmin) throw new ForbiddenError('Must be admin to use sudo');
  viewer.requireScope(['sudo']);
  // Digits are an id (one beyond int4 names no user: 404 like GitLab, not a type error).
  const target = /^\d+$/.test(who) ? await findById(db, parseId(who)) : await db.user.findFirst({ where: { username: equalsIgnoringCase(who) } });
  if (!target) throw new NotFoundError(`User with ID or username '${who}'`);
  return new Viewer(target, viewer.token, viewer.user);
}

/** The login CI jobs send with their job token as the password. */
export const JOB_TOKEN_LOGIN = 'gitlab-ci-token';

/**
 * HTTP Basic as git and git-lfs send it. The password is a personal access token (impersonation
 * tokens included) whatever the login, `oauth2` being the usual one, or a CI job token under the
 * login `gitlab-ci-token`. Passwords of accounts are not accepted: git gets tokens only.
 * Null without Basic credentials (anonymous); a Basic header that does not authenticate is 401,
 * an expired or revoked token included (GitLab's git client lookup only finds active tokens).
 */
export async function authenticateBasic(store: AuthStore, digestKey: string, authorization: string | undefined): Promise<Viewer | null> {
  const encoded = authorization?.match(/^Basic\s+(\S*)\s*$/i)?.[1];
  if (encoded === undefined) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (!password) throw new UnauthorizedError();
  const login = decoded.slice(0, colon);
  const viewer = await authenticate(store, digestKey, login === JOB_TOKEN_LOGIN ? { jobToken: password } : { token: password });
  viewer.requireUsableCredential();
  return viewer;
}
