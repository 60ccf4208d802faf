import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { GIT_READ_SCOPES, GIT_WRITE_SCOPES } from '../../auth/scopes.ts';
import { isLfsOid, lfsObject, LfsObjectMismatchError, storeLfsObject } from '../../git/lfs.ts';
import { isValidBranchName } from '../../git/refs.ts';
import type { GitService, ProposedRefUpdate, RefUpdate } from '../../git/smart-http.ts';
import { isValidTagName } from '../../git/tags.ts';
import { ZERO_OID } from '../../git/writer.ts';
import type { Context } from '../../core/context.ts';
import { DomainError, UnauthorizedError } from '../../core/errors.ts';
import { findProject, projectFullPath } from '../projects/service.ts';

/**
 * Who may fetch and push over HTTP, and which ref updates a push may make: GitLab's git access
 * checks (Gitlab::GitAccess, Checks::BranchCheck / TagCheck) in the order GitLab runs them,
 * answered from the policy. Git prints the message of a refusal to its user.
 */

/** A refusal git shows its user; the body is the plain-text message. */
export class GitAccessError extends DomainError {
  constructor(status: 400 | 403 | 404, message: string) {
    super(status === 404 ? 'NOT_FOUND' : status === 403 ? 'FORBIDDEN' : 'BAD_REQUEST', status, { message }, message);
  }
}

/** A refusal of the LFS API: JSON `{message, documentation_url}` in Git LFS's media type. */
export class LfsError extends DomainError {
  constructor(ctx: Context, status: 403 | 404 | 422, message: string) {
    super(
      status === 404 ? 'NOT_FOUND' : status === 403 ? 'FORBIDDEN' : 'UNPROCESSABLE',
      status,
      { message, documentation_url: `${ctx.deps.config.externalUrl}/help` },
      message,
    );
  }
}

const DENIED = {
  projectNotFound: "The project you were looking for could not be found or you don't have permission to view it.",
  download: 'You are not allowed to download code from this project.',
  tokenDownload: 'You are not allowed to download code.',
  tokenUpload: 'You are not allowed to upload code.',
  pushCode: 'You are not allowed to push code to this project.',
  archived: "You can't push code to an archived project.",
  command: "The command you're trying to execute is not allowed.",
};

const isPush = (service: GitService) => service === 'receive-pack';

/**
 * The credential allows the command at all: the token's scopes (read_repository, write_repository,
 * api, read_api to fetch), or a CI job token, which fetches and never pushes.
 */
function requireCredentialAllows(ctx: Context, service: GitService) {
  const { viewer } = ctx;
  const allowed = viewer.job ? !isPush(service) : viewer.hasScope(isPush(service) ? GIT_WRITE_SCOPES : GIT_READ_SCOPES);
  if (!allowed) throw new GitAccessError(403, isPush(service) ? DENIED.tokenUpload : DENIED.tokenDownload);
}

/**
 * The project behind `<full_path>.git` when the viewer may run `service` on it. Anonymous
 * requests may only fetch public code; anything else asks for credentials (401), since git only
 * sends them after a challenge. A signed-in viewer who cannot see the project gets 404.
 * `service` null is a request git does not make (dumb HTTP).
 */
export async function authorizeGit(ctx: Context, fullPath: string, service: GitService | null): Promise<ProjectWithNamespace> {
  if (!ctx.viewer.user) {
    const project = service === 'upload-pack' ? await findProject(ctx, { fullPath }) : null;
    if (project && (await ctx.policy.canReadCode(project))) return project;
    throw new UnauthorizedError();
  }
  if (!service) throw new GitAccessError(403, DENIED.command);
  requireCredentialAllows(ctx, service);
  const project = await findProject(ctx, { fullPath });
  if (!project) throw new GitAccessError(404, DENIED.projectNotFound);
  if (!isPush(service)) {
    if (!(await ctx.policy.canReadCode(project))) throw new GitAccessError(403, DENIED.download);
    return project;
  }
  if (project.archived) throw new GitAccessError(403, DENIED.archived);
  if ((await ctx.policy.projectAccessLevel(project)) < AccessLevel.DEVELOPER) throw new GitAccessError(403, DENIED.pushCode);
  return project;
}

// ---------------------------------------------------------------------------------------------
// Ref updates of a push. The viewer may push (authorizeGit ran); these are the per-ref rules.

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
const HEX_BRANCH = /^[0-9a-f]{40}(?:-\/|\/|$)/i;
const SHA_LIKE_TAG = /^[0-9a-f]{40}/i;

const isDeletion = (update: RefUpdate) => update.newSha === ZERO_OID;
const isCreation = (update: RefUpdate) => update.oldSha === ZERO_OID;

async function branchRefusal(ctx: Context, project: ProjectWithNamespace, name: string, update: ProposedRefUpdate): Promise<string | null> {
  if (isDeletion(update) && ctx.policy.isProtectedBranch(project, name)) return 'The default branch of a project cannot be deleted.';
  if (isDeletion(update)) return null;
  if (HEX_BRANCH.test(name)) return 'You cannot create a branch with a 40-character hexadecimal branch name.';
  if (!isValidBranchName(name)) return `You cannot create a branch named ${name}.`;
  if (!ctx.policy.isProtectedBranch(project, name)) return null;
  // Nobody force-pushes to a protected branch, Maintainers included (GitLab's default protection).
  if (update.forced) return 'You are not allowed to force push code to a protected branch on this project.';
  if (await ctx.policy.canPushToBranch(project, name)) return null;
  return isCreation(update)
    ? 'You are not allowed to create protected branches on this project.'
    : 'You are not allowed to push code to protected branches on this project.';
}

async function tagRefusal(ctx: Context, project: ProjectWithNamespace, name: string, update: ProposedRefUpdate): Promise<string | null> {
  // Moving or deleting an existing tag is GitLab's admin_tag: Maintainers.
  if (!isCreation(update) && (await ctx.policy.projectAccessLevel(project)) < AccessLevel.MAINTAINER) {
    return 'You are not allowed to change existing tags on this project.';
  }
  if (isDeletion(update)) return null;
  if (isCreation(update) && ctx.policy.isProtectedBranch(project, name)) return 'You cannot use default branch name to create a tag';
  if (!isValidTagName(name)) return 'You cannot create a tag with a prohibited pattern.';
  if (SHA_LIKE_TAG.test(name)) return 'You cannot create a tag with a SHA-1 or SHA-256 tag name.';
  return null;
}

/**
 * The verdict on a push's ref updates: null lands them all, a message refuses the whole push
 * (git shows it as `remote: GitLab: <message>`). Only branches and tags can be pushed.
 */
export async function reviewPush(ctx: Context, project: ProjectWithNamespace, updates: ProposedRefUpdate[]): Promise<string | null> {
  for (const update of updates) {
    const refusal = update.ref.startsWith(BRANCH_PREFIX)
      ? await branchRefusal(ctx, project, update.ref.slice(BRANCH_PREFIX.length), update)
      : update.ref.startsWith(TAG_PREFIX)
        ? await tagRefusal(ctx, project, update.ref.slice(TAG_PREFIX.length), update)
        : `You can only push branches and tags, not ${update.ref}.`;
    if (refusal) return refusal;
  }
  return null;
}

/** Announces the refs a git push moved, one push event per ref, as API writes announce theirs. */
export async function announcePush(ctx: Context, project: ProjectWithNamespace, updates: RefUpdate[]): Promise<void> {
  for (const update of updates) {
    await ctx.deps.events.publish('push', {
      projectId: project.id,
      userId: ctx.viewer.userId,
      ref: update.ref,
      before: update.oldSha,
      after: update.newSha,
      via: 'git',
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Git LFS: batch API and basic transfer, objects in the store the raw files API reads.

export type LfsOperation = 'download' | 'upload';
export type LfsObjectRef = { oid: string; size: number };

async function lfsAllowed(ctx: Context, project: ProjectWithNamespace, operation: LfsOperation): Promise<boolean> {
  const { viewer } = ctx;
  if (operation === 'download') return (viewer.job !== null || viewer.hasScope(GIT_READ_SCOPES)) && ctx.policy.canReadCode(project);
  if (viewer.job || !viewer.hasScope(GIT_WRITE_SCOPES) || project.archived) return false;
  return (await ctx.policy.projectAccessLevel(project)) >= AccessLevel.DEVELOPER;
}

/**
 * The project when the viewer may download (read code) or upload (push code) LFS objects.
 * Anonymous: public downloads only, else 401 like git. Signed in: 403 on a project they can
 * see, 404 otherwise.
 */
export async function authorizeLfs(ctx: Context, fullPath: string, operation: LfsOperation): Promise<ProjectWithNamespace> {
  const project = await findProject(ctx, { fullPath });
  if (!ctx.viewer.user) {
    if (operation === 'download' && project && (await ctx.policy.canReadCode(project))) return project;
    throw new UnauthorizedError();
  }
  if (project && (await lfsAllowed(ctx, project, operation))) return project;
  if (project) throw new LfsError(ctx, 403, 'Access forbidden. Check your access level.');
  throw new LfsError(ctx, 404, 'Not found.');
}

/** The operation of a batch request, checked before any authorization depends on it. */
export function lfsOperation(ctx: Context, body: unknown): LfsOperation {
  const operation = (body as { operation?: unknown } | null)?.operation;
  if (operation === 'download' || operation === 'upload') return operation;
  throw new LfsError(ctx, 422, 'operation must be download or upload');
}

const MAX_BATCH_OBJECTS = 1000;

function batchObjects(ctx: Context, body: unknown): unknown[] {
  const objects = (body as { objects?: unknown } | null)?.objects;
  if (!Array.isArray(objects) || objects.length === 0) throw new LfsError(ctx, 404, 'Not found.');
  if (objects.length > MAX_BATCH_OBJECTS) throw new LfsError(ctx, 422, `A batch holds at most ${MAX_BATCH_OBJECTS} objects`);
  return objects;
}

const validObject = (o: unknown): o is LfsObjectRef => {
  const { oid, size } = (o ?? {}) as Record<string, unknown>;
  return typeof oid === 'string' && isLfsOid(oid) && Number.isSafeInteger(size) && (size as number) >= 0;
};

/**
 * The batch answer (basic transfer): where to download each stored object, or where to upload
 * each missing one. Actions carry the request's own Authorization header, so git-lfs sends the
 * same credential to the transfer URLs.
 */
export async function lfsBatch(ctx: Context, project: ProjectWithNamespace, operation: LfsOperation, body: unknown, authorization?: string) {
  const base = `${ctx.deps.config.externalUrl}/${projectFullPath(project)}.git/gitlab-lfs/objects`;
  const header = authorization ? { Authorization: authorization } : {};
  const publicCode = project.visibility === 'public';
  const objects = await Promise.all(
    batchObjects(ctx, body).map(async (object) => {
      if (!validObject(object))
        return { ...(object as object), error: { code: 422, message: 'Invalid object: oid must be a SHA-256 in hex and size a non-negative integer' } };
      const { oid, size } = object;
      const stored = await lfsObject(ctx.deps.config.dataDir, project.id, oid);
      if (operation === 'upload') {
        return stored
          ? { oid, size }
          : { oid, size, actions: { upload: { href: `${base}/${oid}/${size}`, header: { ...header, 'Content-Type': 'application/octet-stream' } } } };
      }
      if (!stored) return { oid, size, error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" } };
      return { oid, size, ...(publicCode && { authenticated: true }), actions: { download: { href: `${base}/${oid}`, header } } };
    }),
  );
  return { transfer: 'basic', objects };
}

/** A stored object, streamed (the viewer was authorized to download). */
export async function lfsDownload(ctx: Context, project: ProjectWithNamespace, oid: string): Promise<{ size: number; stream: Readable }> {
  const object = await lfsObject(ctx.deps.config.dataDir, project.id, oid);
  if (!object) throw new LfsError(ctx, 404, 'Not found.');
  return { size: object.size, stream: createReadStream(object.path) };
}

/** Stores an uploaded object once its bytes match its id and size (the viewer may upload). */
export async function lfsUpload(ctx: Context, project: ProjectWithNamespace, object: LfsObjectRef, body: Readable): Promise<void> {
  try {
    await storeLfsObject(ctx.deps.config.dataDir, project.id, object, body);
  } catch (error) {
    if (error instanceof LfsObjectMismatchError) throw new GitAccessError(400, 'SHA256 or size mismatch');
    throw error;
  }
}
