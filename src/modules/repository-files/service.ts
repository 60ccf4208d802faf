import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, badRequestBecause, NotFoundError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { lfsObject } from '../../git/lfs.ts';
import {
  EXECUTABLE_MODE,
  isBinary,
  Repository,
  SMALL_BLOB_BYTES,
  type BlameRange,
  type BlobInfo,
  type CommitInfo,
  type TreeEntryInfo,
} from '../../git/repository.ts';
import { readableRepository, requireFilePath } from '../commits/service.ts';
import { requireCodeOfProject } from '../projects/service.ts';

export { requireFilePath };

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

export type TreeOptions = { recursive?: boolean | null; refType?: 'heads' | 'tags' | null };

const TYPE_ORDER = { tree: 0, blob: 1, commit: 1 } as const;

/**
 * A directory at a ref, one level or (`recursive`) everything below it, directories first as
 * Gitaly sorts them (`TREES_FIRST`), otherwise in git's order; null when the ref or the directory
 * does not exist. `refType` reads `ref` as a branch or a tag only.
 */
export async function findTree(ctx: Context, project: ProjectWithNamespace, path: string, ref: string, opts: TreeOptions = {}): Promise<TreeAt | null> {
  const dir = path.replace(/\/+$/, '').replace(/^\/+/, '');
  if (dir !== '') requireFilePath(dir, 'path');
  const qualified = opts.refType ? `refs/${opts.refType}/${ref}` : ref;
  const at = await resolve(ctx, project, qualified);
  const entries = at && (opts.recursive ? at.repository.walkTree(at.commitSha, dir) : at.repository.listTree(at.commitSha, dir));
  if (!at || !entries) return null;
  const sorted = entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => TYPE_ORDER[a.e.type] - TYPE_ORDER[b.e.type] || a.i - b.i)
    .map(({ e }) => e);
  return { project, ...at, ref, path: dir, entries: sorted };
}

/**
 * The entries after the one whose id is `pageToken` (REST's keyset pagination of trees, where
 * the token is the last entry's id); a token no entry has is GitLab's 400.
 */
export function entriesAfter(entries: TreeEntryInfo[], pageToken: string | null | undefined): TreeEntryInfo[] {
  if (!pageToken) return entries;
  const index = entries.findIndex((e) => e.oid === pageToken);
  if (index < 0) throw badRequestBecause(`could not find starting OID: ${pageToken}`);
  return entries.slice(index + 1);
}

/**
 * GitLab's `Gitlab::Git::Blob::MAX_DATA_DISPLAY_SIZE`: the most of a blob that is loaded for
 * display (GraphQL's content fields, blame). Bigger files are read through raw, which streams.
 */
export const BLOB_DISPLAY_BYTES = 10 * 1024 * 1024;

/**
 * The content of a file as GraphQL returns it: all of it, or its first BLOB_DISPLAY_BYTES as
 * GitLab loads a blob for display; a whole read records its size and SHA-256.
 */
export async function blobBytes(blob: BlobAt): Promise<Buffer> {
  const { bytes, whole } = await blob.repository.blobHead(blob.entry.oid, BLOB_DISPLAY_BYTES);
  if (whole) Repository.rememberBlob(blob.entry.oid, bytes);
  return bytes;
}

/** The content as text, or null for binary files (git's own test, as raw reads type them). */
export async function blobText(blob: BlobAt): Promise<string | null> {
  const bytes = await blobBytes(blob);
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

/**
 * Blame of lines `fromLine`..`toLine` (1-based, inclusive, both or neither, clipped to the file).
 * Blame holds the whole file and its lines at once: a file past BLOB_DISPLAY_BYTES is refused.
 */
export async function blameBlob(blob: BlobAt, range: LineRange): Promise<BlameRange[]> {
  checkInput(
    rules.allOrNoneOf(range, RANGE_NAMES),
    rules.values(range, RANGE_NAMES, (line: number) => line > 0),
  );
  const { fromLine, toLine } = range;
  if (fromLine != null && toLine != null && fromLine > toLine) {
    throw new BadRequestError('fromLine must be less than or equal to toLine', 'BAD_REQUEST', {
      message: 'range[start] must be less than or equal to range[end]',
    });
  }
  if ((await blob.repository.blobSize(blob.entry.oid)) > BLOB_DISPLAY_BYTES) {
    throw badRequestBecause(`The file is over the blame size limit of ${BLOB_DISPLAY_BYTES} bytes; read it through the raw file endpoint`);
  }
  return blob.repository.blame(blob.commitSha, blob.path, await blobBytes(blob), fromLine ?? undefined, toLine ?? undefined);
}

// ---------------------------------------------------------------------------------------------
// Raw bodies

/** A file as the read operation found it, named by ids only. */
export type RawSource = { projectId: number; oid: string; size: number; lfsOid: string | null };

/** The bytes of a raw read, with the type to serve them as. */
export type RawFile = { size: number; contentType: string; body: Buffer | Readable };

const contentTypeOf = (head: Buffer) => (isBinary(head) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

/**
 * A stream typed by its first chunk, as workhorse decides; the chunk is served again. A body
 * given up before its end (the client left) ends its source too: git exits and frees its slot.
 */
async function typedStream(stream: Readable): Promise<{ contentType: string; body: Readable }> {
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head: Buffer = first.done ? Buffer.alloc(0) : first.value;
  async function* replay() {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value as Buffer;
  }
  const body = Readable.from(replay(), { objectMode: false });
  body.once('close', () => stream.destroy());
  return { contentType: contentTypeOf(head), body };
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
  if (source.size > SMALL_BLOB_BYTES) return { size: source.size, ...(await typedStream(await repository.streamBlob(source.oid))) };
  const body = repository.blobContent(source.oid);
  return { size: body.length, contentType: contentTypeOf(body), body };
}
