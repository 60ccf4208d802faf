import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { announceRefChange } from '../../core/events.ts';
import { BadRequestError, DomainError, NotFoundError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { lfsObject } from '../../git/lfs.ts';
import { checkFilePath, isStorablePath } from '../../git/paths.ts';
import { isValidBranchName } from '../../git/refs.ts';
import {
  EXECUTABLE_MODE,
  isBinary,
  REGULAR_FILE_MODE,
  Repository,
  SMALL_BLOB_BYTES,
  type BlameRange,
  type BlobInfo,
  type CommitInfo,
  type TreeEntryInfo,
} from '../../git/repository.ts';
import { EmptyCommitError, RefMovedError, type IndexChange } from '../../git/writer.ts';
import { readableRepository } from '../commits/service.ts';
import { requireCodeOfProject } from '../projects/service.ts';

/** A file at a path in the commit a ref resolved to: what RepositoryBlob resolves from. */
export type BlobAt = {
  project: ProjectWithNamespace;
  repository: Repository;
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

/** Decoded once by the router, validated once here, before any git call; `field` is GraphQL's name for it. */
export function requireFilePath(path: string, field = 'filePath'): string {
  const checked = checkFilePath(path);
  if (checked === null) throw new ParamError('file_path should be a valid file path', `${field} should be a valid file path`);
  return checked;
}

/** The commit a ref names for a viewer who may read the code, resolved once per request (see loaders.ts). */
async function resolve(ctx: Context, project: ProjectWithNamespace, ref: string) {
  const repository = await readableRepository(ctx, project);
  const commitSha = await ctx.loaders.repositoryFiles.commitOfRef.load(project.id, ref);
  return commitSha ? { repository, commitSha } : null;
}

/** The files (blobs) at `paths`; missing paths and paths that are directories are left out. */
export async function findBlobs(ctx: Context, project: ProjectWithNamespace, paths: string[], ref: string): Promise<BlobAt[]> {
  const checked = paths.map((path) => requireFilePath(path, 'paths'));
  const at = await resolve(ctx, project, ref);
  if (!at) return [];
  return checked.flatMap((path) => {
    const entry = at.repository.entryAt(at.commitSha, path);
    return entry?.type === 'blob' ? [{ project, ...at, ref, path, entry }] : [];
  });
}

/** One directory level at a ref; null when the ref or the directory does not exist. */
export async function findTree(ctx: Context, project: ProjectWithNamespace, path: string, ref: string): Promise<TreeAt | null> {
  const dir = path.replace(/\/+$/, '');
  if (dir !== '') requireFilePath(dir, 'path');
  const at = await resolve(ctx, project, ref);
  const entries = at && at.repository.listTree(at.commitSha, dir);
  return at && entries ? { project, ...at, ref, path: dir, entries } : null;
}

/** The whole content of a file; its size and SHA-256 are recorded from the same read. */
export function blobBytes(blob: BlobAt): Buffer {
  const bytes = blob.repository.blobContent(blob.entry.oid);
  Repository.rememberBlob(blob.entry.oid, bytes);
  return bytes;
}

/** The content as text, or null for binary files (git's own test, as raw reads type them). */
export function blobText(blob: BlobAt): string | null {
  const bytes = blobBytes(blob);
  return isBinary(bytes) ? null : bytes.toString('utf8');
}

export const blobInfo = (blob: BlobAt): Promise<BlobInfo> => blob.repository.blobInfo(blob.entry.oid);
export const lfsOidOf = (blob: BlobAt): Promise<string | null> => blob.repository.lfsOid(blob.entry.oid);
export const isExecutable = (mode: number) => mode === EXECUTABLE_MODE;

export function lastCommitOf(blob: BlobAt): CommitInfo | null {
  const sha = blob.repository.lastCommitFor(blob.commitSha, blob.path);
  return sha ? blob.repository.commit(sha) : null;
}

export type LineRange = { fromLine?: number | null; toLine?: number | null };

/** REST's `range[start]`/`range[end]`, GraphQL's `fromLine`/`toLine`. */
const RANGE_NAMES = { fromLine: 'range[start]', toLine: 'range[end]' };

/** Blame of lines `fromLine`..`toLine` (1-based, inclusive, both or neither, clipped to the file). */
export function blameBlob(blob: BlobAt, range: LineRange): BlameRange[] {
  checkInput(rules.allOrNoneOf(range, RANGE_NAMES), rules.values(range, RANGE_NAMES, (line: number) => line > 0));
  const { fromLine, toLine } = range;
  if (fromLine != null && toLine != null && fromLine > toLine) {
    throw new BadRequestError('fromLine must be less than or equal to toLine', 'BAD_REQUEST', { message: 'range[start] must be less than or equal to range[end]' });
  }
  return blob.repository.blame(blob.commitSha, blob.path, blobBytes(blob), fromLine ?? undefined, toLine ?? undefined);
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
function commitBase(repository: Repository, input: CommitInput) {
  const tip = repository.branchTip(input.branch);
  const start = input.startBranch ?? input.branch;
  if (start !== input.branch) {
    const startSha = repository.branchTip(start);
    if (!startSha) throw notOnBranch();
    if (tip) throw new BadRequestError(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
    return { parent: startSha, expectedTip: null };
  }
  if (tip) return { parent: tip, expectedTip: tip };
  if (!repository.hasBranches()) return { parent: null, expectedTip: null };
  throw notOnBranch();
}

function decodeContent(action: FileAction): Buffer {
  if (action.encoding === 'base64') return Buffer.from(action.content ?? '', 'base64');
  return Buffer.from(action.content ?? '', 'utf8');
}

/** The index change an action makes, after GitLab's (Gitaly's) checks against the parent tree. */
function toChange(repository: Repository, parent: string | null, action: FileAction): IndexChange {
  const path = requireFilePath(action.filePath);
  if (!isStorablePath(path)) throw new BadRequestError('Path cannot include directory traversal');
  const existing = parent ? repository.entryAt(parent, path) : null;
  if (action.action === 'create') {
    if (existing?.type === 'tree') throw new BadRequestError('A directory with this name already exists');
    if (existing || (parent && blobAbove(repository, parent, path))) throw new BadRequestError('A file with this name already exists');
  } else if (existing?.type !== 'blob') {
    throw new BadRequestError("A file with this name doesn't exist");
  }
  if (action.lastCommitId && parent && repository.lastCommitFor(parent, path) !== action.lastCommitId) {
    throw new BadRequestError(
      action.action === 'delete'
        ? 'You are attempting to delete a file that has been previously updated.'
        : 'You are attempting to update a file that has changed since you started editing it.',
    );
  }
  if (action.action === 'delete') return { path, remove: true };
  const mode = action.executeFilemode == null ? (existing?.mode ?? REGULAR_FILE_MODE) : action.executeFilemode ? EXECUTABLE_MODE : REGULAR_FILE_MODE;
  return { path, content: decodeContent(action), mode };
}

/** A file where a parent directory of `path` would have to be. */
function blobAbove(repository: Repository, commit: string, path: string) {
  const parts = path.split('/');
  return parts.slice(1).some((_, i) => repository.entryAt(commit, parts.slice(0, i + 1).join('/'))?.type === 'blob');
}

async function requirePush(ctx: Context, project: ProjectWithNamespace, branch: string) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  await ctx.policy.requireProjectAccess(project, AccessLevel.DEVELOPER);
  if (!(await ctx.policy.canPushToBranch(project, branch))) throw new PushForbiddenError();
}

/** One commit with every action of `input`, on `branch`; never overwrites a concurrent push. */
export async function createCommit(ctx: Context, project: ProjectWithNamespace, input: CommitInput): Promise<CommitInfo> {
  await requirePush(ctx, project, input.branch);
  if (input.actions.length === 0) throw new BadRequestError('You must provide at least one action');
  if (!isValidBranchName(input.branch)) {
    throw new BadRequestError(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
  }
  const repository = await ctx.loaders.repository.load(project.id);
  const base = commitBase(repository, input);
  const changes = input.actions.map((action) => toChange(repository, base.parent, action));
  const user = ctx.viewer.user!;
  const date = new Date();
  const committer = { name: user.name, email: user.email, date };
  const author = { name: input.authorName || user.name, email: input.authorEmail || user.email, date };
  let sha: string;
  try {
    sha = await repository.writeCommit({ branch: input.branch, ...base, changes, message: input.message, author, committer });
    // Refs this request resolved before the write may have moved.
    ctx.loaders.repositoryFiles.commitOfRef.clear();
  } catch (error) {
    if (error instanceof RefMovedError) throw new BadRequestError(`Could not update refs/heads/${input.branch}. Please refresh and try again.`);
    if (error instanceof EmptyCommitError) throw new BadRequestError('No changes were made: the new content is the same as the current content');
    throw error;
  }
  // An API commit is a push of one branch, announced like a git push.
  await announceRefChange(ctx.deps, { projectId: project.id, userId: user.id, ref: `refs/heads/${input.branch}`, before: base.expectedTip, after: sha });
  return repository.commit(sha)!;
}

// ---------------------------------------------------------------------------------------------
// Raw bodies

/** A file as the read operation found it, named by ids only. */
export type RawSource = { projectId: number; oid: string; size: number; lfsOid: string | null };

/** The bytes of a raw read, with the type to serve them as. */
export type RawFile = { size: number; contentType: string; body: Buffer | Readable };

const contentTypeOf = (head: Buffer) => (isBinary(head) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

/** A stream typed by its first chunk, as workhorse decides; the chunk is served again. */
async function typedStream(stream: Readable): Promise<{ contentType: string; body: Readable }> {
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head: Buffer = first.done ? Buffer.alloc(0) : first.value;
  async function* replay() {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value as Buffer;
  }
  return { contentType: contentTypeOf(head), body: Readable.from(replay(), { objectMode: false }) };
}

/**
 * What the raw route serves: with `lfs`, the Git LFS object a pointer names (404 when the store
 * lacks it); otherwise, and for files that are no pointer, the blob itself — small blobs as one
 * buffer from libgit2, bigger ones streamed by git. Raw bodies are read after the operation that
 * found the file, outside GraphQL, so the viewer is checked again: no caller reaches content by
 * blob or LFS id alone.
 */
export async function rawFile(ctx: Context, source: RawSource, opts: { lfs: boolean }): Promise<RawFile> {
  const project = await requireCodeOfProject(ctx, source.projectId);
  if (opts.lfs && source.lfsOid) {
    const object = await lfsObject(ctx.deps.config.dataDir, project.id, source.lfsOid);
    if (!object) throw new NotFoundError();
    return { size: object.size, ...(await typedStream(createReadStream(object.path))) };
  }
  const repository = await ctx.loaders.repository.load(project.id);
  if (source.size > SMALL_BLOB_BYTES) return { size: source.size, ...(await typedStream(repository.streamBlob(source.oid))) };
  const body = repository.blobContent(source.oid);
  return { size: body.length, contentType: contentTypeOf(body), body };
}
