import type { Db } from '../db/client.ts';
import { ForbiddenError, InsufficientScopeError, NotFoundError, UnauthorizedError } from '../graphql/errors.ts';
import { tokenDigest } from './tokens.ts';
import { Viewer } from './viewer.ts';

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

const today = () => new Date(new Date().toISOString().slice(0, 10));

const expired = () =>
  new UnauthorizedError({
    error: 'invalid_token',
    error_description: 'Token is expired. You can either do re-authorization or token refresh.',
  });

/** A job token acts as its user, bound to its project; it cannot be combined with another credential. */
async function authenticateJob(db: Db, digestKey: string, credentials: Credentials): Promise<Viewer> {
  if (credentials.token || credentials.sudo) throw new UnauthorizedError();
  const job = await db.jobToken.findUnique({ where: { digest: tokenDigest(digestKey, credentials.jobToken!) }, include: { user: true } });
  if (!job) throw new UnauthorizedError();
  if (job.expiresAt < new Date()) throw expired();
  if (job.user.state === 'blocked') throw new ForbiddenError('Your account has been blocked.');
  return new Viewer(job.user, null, null, { projectId: job.projectId });
}

export async function authenticate(db: Db, digestKey: string, credentials: Credentials): Promise<Viewer> {
  if (credentials.jobToken) return authenticateJob(db, digestKey, credentials);
  if (!credentials.token) {
    if (credentials.sudo) throw new UnauthorizedError();
    return Viewer.anonymous();
  }
  const token = await db.personalAccessToken.findUnique({
    where: { digest: tokenDigest(digestKey, credentials.token) },
    include: { user: true },
  });
  if (!token) throw new UnauthorizedError();
  if (token.revoked) {
    throw new UnauthorizedError({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
  }
  if (token.expiresAt && token.expiresAt < today()) throw expired();
  if (token.user.state === 'blocked') throw new ForbiddenError('Your account has been blocked.');
  void touchLastUsed(db, token.id, token.lastUsedAt);
  const { user, ...tokenRow } = token;
  const viewer = new Viewer(user, tokenRow);
  return credentials.sudo ? sudo(db, viewer, credentials.sudo) : viewer;
}

async function touchLastUsed(db: Db, id: number, lastUsedAt: Date | null) {
  if (lastUsedAt && Date.now() - lastUsedAt.getTime() < LAST_USED_INTERVAL_MS) return;
  await db.personalAccessToken.update({ where: { id }, data: { lastUsedAt: new Date() } }).catch(() => {});
}

async function sudo(db: Db, viewer: Viewer, who: string): Promise<Viewer> {
  if (!viewer.isAdmin) throw new ForbiddenError('Must be admin to use sudo');
  if (!viewer.token?.scopes.includes('sudo')) throw new InsufficientScopeError(['sudo']);
  const target = /^\d+$/.test(who)
    ? await db.user.findUnique({ where: { id: Number(who) } })
    : await db.user.findFirst({ where: { username: { equals: who, mode: 'insensitive' } } });
  if (!target) throw new NotFoundError(`User with ID or username '${who}'`);
  return new Viewer(target, viewer.token, viewer.user);
}
