import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import {
  blobContent,
  entryAt,
  EXECUTABLE_MODE,
  lastCommitFor,
  listTree,
  SMALL_BLOB_BYTES,
  streamBlob,
  type TreeEntryInfo,
} from '../../git/blobs.ts';
import { blameRanges, type BlameRange } from '../../git/blame.ts';
import { hasNoBranches } from '../../git/branches.ts';
import { lfsObject } from '../../git/lfs.ts';
import { checkFilePath, isStorablePath } from '../../git/paths.ts';
import type { CommitInfo, RepositoryReader } from '../../git/reader.ts';
import { isValidBranchName } from '../../git/refs.ts';
import { commitChanges, EmptyCommitError, RefMovedError, type IndexChange } from '../../git/writer.ts';
import type { Context } from '../../graphql/context.ts';
import { BadRequestError, DomainError, NotFoundError, ParamError, UnauthorizedError } from '../../graphql/errors.ts';

const REGULAR_MODE = 0o100644;

/** A file at a path in the commit a ref resolved to: what RepositoryBlob resolves from. */
export type BlobAt = {
  project: ProjectWithNamespace;
  reader: RepositoryReader;
  ref: string;
  commitSha: string;
  path: string;
  entry: TreeEntryInfo;
};

export type TreeAt = Omit<BlobAt, 'entry'> & { entries: TreeEntryInfo[] };

/** GitLab answers a refused push with its own text as the whole message, not "403 Forbidden - …". */
export class PushForbiddenError extends DomainError {
  constructor() {
    const text = 'You are not allowed to push into this branch';
    super('FORBIDDEN', 403, { message: text }, text);
  }
}

/** Decoded once by the router, validated once here, before any git call. */
export function requireFilePath(path: string): string {
  const checked = checkFilePath(path);
  if (checked === null) throw new ParamError('file_path should be a valid file path');
  return checked;
}

async function readableRepository(ctx: Context, project: ProjectWithNamespace) {
  await ctx.policy.requireReadCode(project);
  return ctx.loaders.repository.load(project.id);
}

/** Refs resolved by a request's reader: one request sees one commit per ref, resolved once. */
const resolvedRefs = new WeakMap<RepositoryReader, Map<string, string | null>>();

async function resolve(ctx: Context, project: ProjectWithNamespace, ref: string) {
  const reader = await readableRepository(ctx, project);
  let refs = resolvedRefs.get(reader);
  if (!refs) resolvedRefs.set(reader, (refs = new Map()));
  if (!refs.has(ref)) refs.set(ref, reader.resolveCommit(ref));
  const commitSha = refs.get(ref);
  return commitSha ? { reader, commitSha } : null;
}

/** The files (blobs) at `paths`; missing paths and paths that are directories are left out. */
export async function findBlobs(ctx: Context, project: ProjectWithNamespace, paths: string[], ref: string): Promise<BlobAt[]> {
  const checked = paths.map(requireFilePath);
  const at = await resolve(ctx, project, ref);
  if (!at) return [];
  return checked.flatMap((path) => {
    const entry = entryAt(at.reader, at.commitSha, path);
    return entry?.type === 'blob' ? [{ project, ...at, ref, path, entry }] : [];
  });
}

/** One directory level at a ref; null when the ref or the directory does not exist. */
export async function findTree(ctx: Context, project: ProjectWithNamespace, path: string, ref: string): Promise<TreeAt | null> {
  const dir = path.replace(/\/+$/, '');
  if (dir !== '') requireFilePath(dir);
  const at = await resolve(ctx, project, ref);
  const entries = at && listTree(at.reader, at.commitSha, dir);
  return at && entries ? { project, ...at, ref, path: dir, entries } : null;
}

export const blobBytes = (blob: BlobAt) => blobContent(blob.reader, blob.entry.oid);
export const isExecutable = (mode: number) => mode === EXECUTABLE_MODE;

export function lastCommitOf(blob: BlobAt): CommitInfo | null {
  const sha = lastCommitFor(blob.reader, blob.commitSha, blob.path);
  return sha ? blob.reader.commit(sha) : null;
}

/** Blame of lines `from`..`to` (1-based, inclusive, clipped to the file). */
export function blameBlob(blob: BlobAt, range: { from?: number | null; to?: number | null }): BlameRange[] {
  const { from, to } = range;
  if ((from == null) !== (to == null)) throw new BadRequestError('range[start] and range[end] must be given together');
  if (from != null && to != null) {
    if (from < 1 || to < 1) throw new BadRequestError('range[start] and range[end] must be positive');
    if (from > to) throw new BadRequestError('range[start] must be less than or equal to range[end]');
  }
  return blameRanges(blob.reader, blob.commitSha, blob.path, blobBytes(blob), from ?? undefined, to ?? undefined);
}

// ---------------------------------------------------------------------------------------------
// Writes

export type FileAction = {
  action: 'create' | 'update' | 'delete';
  filePath: string;
  content?: string | null;
  encoding?: 'text' | 'base64' | null;
  executeFilemode?: boolean | null;
  lastCommitId?: string | null;
};

export type CommitInput = {
  branch: string;
  startBranch?: string | null;
  message: string;
  actions: FileAction[];
  authorName?: string | null;
  authorEmail?: string | null;
};

const notOnBranch = () => new BadRequestError('You can only create or edit files when you are on a branch');

/** Where the commit starts and what the branch must still point at when it lands. */
async function commitBase(reader: RepositoryReader, input: CommitInput) {
  const tip = reader.resolveCommit(`refs/heads/${input.branch}`);
  const start = input.startBranch ?? input.branch;
  if (start !== input.branch) {
    const startSha = isValidBranchName(start) ? reader.resolveCommit(`refs/heads/${start}`) : null;
    if (!startSha) throw notOnBranch();
    if (tip) throw new BadRequestError(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
    return { parent: startSha, expectedTip: null };
  }
  if (tip) return { parent: tip, expectedTip: tip };
  if (await hasNoBranches(reader)) return { parent: null, expectedTip: null };
  throw notOnBranch();
}

function decodeContent(action: FileAction): Buffer {
  if (action.encoding === 'base64') return Buffer.from(action.content ?? '', 'base64');
  return Buffer.from(action.content ?? '', 'utf8');
}

/** The index change an action makes, after GitLab's (Gitaly's) checks against the parent tree. */
function toChange(reader: RepositoryReader, parent: string | null, action: FileAction): IndexChange {
  const path = requireFilePath(action.filePath);
  if (!isStorablePath(path)) throw new BadRequestError('Path cannot include directory traversal');
  const existing = parent ? entryAt(reader, parent, path) : null;
  if (action.action === 'create') {
    if (existing?.type === 'tree') throw new BadRequestError('A directory with this name already exists');
    if (existing || (parent && blobAbove(reader, parent, path))) throw new BadRequestError('A file with this name already exists');
  } else if (existing?.type !== 'blob') {
    throw new BadRequestError("A file with this name doesn't exist");
  }
  if (action.lastCommitId && parent && lastCommitFor(reader, parent, path) !== action.lastCommitId) {
    throw new BadRequestError(
      action.action === 'delete'
        ? 'You are attempting to delete a file that has been previously updated.'
        : 'You are attempting to update a file that has changed since you started editing it.',
    );
  }
  if (action.action === 'delete') return { path, remove: true };
  const mode = action.executeFilemode == null ? (existing?.mode ?? REGULAR_MODE) : action.executeFilemode ? EXECUTABLE_MODE : REGULAR_MODE;
  return { path, content: decodeContent(action), mode };
}

/** A file where a parent directory of `path` would have to be. */
function blobAbove(reader: RepositoryReader, commit: string, path: string) {
  const parts = path.split('/');
  return parts.slice(1).some((_, i) => entryAt(reader, commit, parts.slice(0, i + 1).join('/'))?.type === 'blob');
}

async function requirePush(ctx: Context, project: ProjectWithNamespace, branch: string) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  await ctx.policy.requireProjectAccess(project, AccessLevel.DEVELOPER);
  // The default branch is protected as GitLab protects it by default: Maintainers push.
  const protectedBranch = branch === (project.defaultBranch ?? 'main');
  if (protectedBranch && (await ctx.policy.projectAccessLevel(project)) < AccessLevel.MAINTAINER) throw new PushForbiddenError();
}

/** One commit with every action of `input`, on `branch`; never overwrites a concurrent push. */
export async function createCommit(ctx: Context, project: ProjectWithNamespace, input: CommitInput): Promise<CommitInfo> {
  await requirePush(ctx, project, input.branch);
  if (input.actions.length === 0) throw new BadRequestError('You must provide at least one action');
  if (!isValidBranchName(input.branch)) {
    throw new BadRequestError(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
  }
  const reader = await ctx.loaders.repository.load(project.id);
  const base = await commitBase(reader, input);
  const changes = input.actions.map((action) => toChange(reader, base.parent, action));
  const user = ctx.viewer.user!;
  const date = new Date();
  const committer = { name: user.name, email: user.email, date };
  const author = { name: input.authorName || user.name, email: input.authorEmail || user.email, date };
  try {
    const sha = await commitChanges(reader.native.path(), { branch: input.branch, ...base, changes, message: input.message, author, committer });
    return reader.commit(sha)!;
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError(`Could not update refs/heads/${input.branch}. Please refresh and try again.`);
    if (error instanceof EmptyCommitError) throw new BadRequestError('No changes were made: the new content is the same as the current content');
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Raw bodies. The operation that found the blob has checked the viewer's right to read it.

/** Small blobs as one buffer from libgit2, bigger ones as a stream from git. */
/**
 * Raw bodies are streamed after the read operation, outside GraphQL; they check the viewer again
 * so that no caller can reach content by blob or LFS id alone.
 */
async function requireCodeOf(ctx: Context, projectId: number) {
  const project = await ctx.loaders.project.load(projectId);
  if (!project) throw new NotFoundError('Project');
  await ctx.policy.requireReadCode(project);
}

export async function rawBlob(ctx: Context, projectId: number, oid: string, size: number): Promise<Buffer | Readable> {
  await requireCodeOf(ctx, projectId);
  const reader = await ctx.loaders.repository.load(projectId);
  return size <= SMALL_BLOB_BYTES ? blobContent(reader, oid) : streamBlob(reader, oid);
}

/** The project's stored LFS object for a pointer, streamed; null when the store lacks it. */
export async function rawLfsObject(ctx: Context, projectId: number, lfsOid: string) {
  await requireCodeOf(ctx, projectId);
  const object = await lfsObject(ctx.deps.config.dataDir, projectId, lfsOid);
  return object && { size: object.size, stream: createReadStream(object.path) };
}
