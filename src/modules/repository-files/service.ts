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
  /** How `ref` was read: as a branch or a tag only, or (null) as git resolves it. */
  refType?: RefType | null;
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

/** GitLab's `RefType`: read a ref as a branch (`heads`) or a tag (`tags`) only. */
export type RefType = 'heads' | 'tags';

/** The ref as git resolves it: qualified when a ref type is given (GitLab's `ExtractsRef.fully_qualified_ref`). */
const qualifiedRef = (ref: string, refType?: RefType | null) => (refType ? `refs/${refType}/${ref}` : ref);

/** The files (blobs) at `paths`; missing paths and paths that are directories are left out. */
export async function findBlobs(ctx: Context, project: ProjectWithNamespace, paths: string[], ref: string, refType?: RefType | null): Promise<BlobAt[]> {
  const checked = paths.map((path) => requireFilePath(path, 'paths'));
  const at = await resolve(ctx, project, qualifiedRef(ref, refType));
  if (!at) return [];
  return checked.flatMap((path) => {
    const entry = at.repository.entryAt(at.commitSha, path);
    return entry?.type === 'blob' ? [{ project, ...at, ref, refType, path, entry }] : [];
  });
}

export type TreeOptions = { recursive?: boolean | null; refType?: RefType | null };

const TYPE_ORDER = { tree: 0, blob: 1, commit: 1 } as const;

/**
 * A directory at a ref, one level or (`recursive`) everything below it, directories first as
 * Gitaly sorts them (`TREES_FIRST`), otherwise in git's order; null when the ref or the directory
 * does not exist. `refType` reads `ref` as a branch or a tag only.
 */
export async function findTree(ctx: Context, project: ProjectWithNamespace, path: string, ref: string, opts: TreeOptions = {}): Promise<TreeAt | null> {
  const dir = path.replace(/\/+$/, '').replace(/^\/+/, '');
  if (dir !== '') requireFilePath(dir, 'path');
  const at = await resolve(ctx, project, qualifiedRef(ref, opts.refType));
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

/**
 * The newest commit that changed `path`, a file or a directory ('' is the root: the commit
 * itself), at a ref (GitLab's `Repository.lastCommit`); null when the ref or the path does not exist.
 */
export async function lastCommitAt(
  ctx: Context,
  project: ProjectWithNamespace,
  path: string,
  ref: string,
  refType?: RefType | null,
): Promise<CommitInfo | null> {
  const clean = path.replace(/\/+$/, '').replace(/^\/+/, '');
  if (clean !== '') requireFilePath(clean, 'path');
  const at = await resolve(ctx, project, qualifiedRef(ref, refType));
  if (!at || (clean !== '' && !at.repository.entryAt(at.commitSha, clean))) return null;
  const sha = clean === '' ? at.commitSha : at.repository.lastCommitFor(at.commitSha, clean);
  return sha ? at.repository.commit(sha) : null;
}

/** The newest commit that changed a tree's directory (the commit itself for the root). */
export function lastCommitOfTree(tree: TreeAt): CommitInfo | null {
  const sha = tree.path === '' ? tree.commitSha : tree.repository.lastCommitFor(tree.commitSha, tree.path);
  return sha ? tree.repository.commit(sha) : null;
}

/** One page of a tree (GitLab's `paginatedTree`): `first` entries after the entry whose id is `after`. */
export type TreePage = { tree: TreeAt; hasNextPage: boolean; hasPreviousPage: boolean };

export function pageOfTree(tree: TreeAt, after: string | null | undefined, first: number): TreePage {
  const rest = entriesAfter(tree.entries, after);
  const entries = rest.slice(0, first);
  return { tree: { ...tree, entries }, hasNextPage: rest.length > entries.length, hasPreviousPage: rest.length < tree.entries.length };
}

/** GitLab's `rawSize`: the size of the file's content, which for a Git LFS pointer is the object's it names. */
export async function rawSizeOf(blob: BlobAt): Promise<number> {
  const { size } = await blobInfo(blob);
  if ((await lfsOidOf(blob)) === null) return size;
  const declared = /^size (\d+)$/m.exec(blob.repository.blobContent(blob.entry.oid).toString('utf8'));
  return declared ? Number(declared[1]) : size;
}

export function lastCommitOf(blob: BlobAt): CommitInfo | null {
  const sha = blob.repository.lastCommitFor(blob.commitSha, blob.path);
  return sha ? blob.repository.commit(sha) : null;
}

// ---------------------------------------------------------------------------------------------
// What the blob viewer reads

/**
 * GitLab's text viewer limits (`BlobViewer::Text`): past 1 MiB a file is collapsed (loaded on
 * request), past 10 MiB it is too large to show at all.
 */
const COLLAPSE_BYTES = 1024 * 1024;
const TOO_LARGE_BYTES = BLOB_DISPLAY_BYTES;

export type BlobViewer = {
  type: 'simple' | 'rich' | 'auxiliary';
  fileType: string;
  tooLarge: boolean;
  collapsed: boolean;
  renderError: string | null;
  loadAsync: boolean;
  loadingPartialName: string;
};

const extensionOf = (path: string) => {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
};

const baseNameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The rich viewers forgegate's files get, by extension (GitLab's `BlobViewer::Markup`, `Image`, …). */
const RICH_VIEWERS: Record<string, string> = {
  md: 'markup',
  markdown: 'markup',
  adoc: 'markup',
  rst: 'markup',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  ico: 'image',
  svg: 'svg',
  pdf: 'pdf',
  csv: 'csv',
  ipynb: 'notebook',
};

/** Files GitLab's FileDetector names by their path, else null. */
const SPECIAL_FILES: [RegExp, string][] = [
  [/^readme(\.|$)/i, 'readme'],
  [/^(changelog|changes|history|news)(\.|$)/i, 'changelog'],
  [/^(licen[cs]e|copying)(\.|$)/i, 'license'],
  [/^contributing(\.|$)/i, 'contributing'],
  [/^\.gitlab-ci\.yml$/, 'gitlab_ci'],
  [/^\.gitignore$/, 'gitignore'],
  [/^\.gitattributes$/, 'gitattributes'],
  [/^package\.json$/, 'package_json'],
  [/^Gemfile$/, 'gemfile'],
  [/^go\.mod$/, 'go_mod'],
  [/^CODEOWNERS$/, 'codeowners'],
];

/** GitLab's `fileType` of a blob: what its path says it is (README, licence, CI file…), else its viewer's. */
export function fileTypeOf(path: string): string | null {
  const name = baseNameOf(path);
  return SPECIAL_FILES.find(([pattern]) => pattern.test(name))?.[1] ?? null;
}

/** Highlighting languages by extension, as GitLab's blob viewer names them (Rouge/highlight.js names). */
const LANGUAGES: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  jsx: 'javascript',
  rb: 'ruby',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'shell',
  bash: 'shell',
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  xml: 'xml',
  html: 'html',
  css: 'css',
  scss: 'scss',
  sql: 'sql',
  graphql: 'graphql',
  txt: 'plaintext',
};

export function languageOf(path: string): string | null {
  return LANGUAGES[extensionOf(path)] ?? (baseNameOf(path) === 'Dockerfile' ? 'dockerfile' : null);
}

/**
 * The viewers GitLab picks for a blob: the simple one is text, or `download` for binary and
 * LFS content, `empty` for an empty file; a rich one where the extension has one.
 */
export async function blobViewers(blob: BlobAt): Promise<{ simple: BlobViewer; rich: BlobViewer | null }> {
  const { size } = await blobInfo(blob);
  const external = (await lfsOidOf(blob)) !== null;
  const binary = !external && size > 0 && isBinary((await blob.repository.blobHead(blob.entry.oid, 8000)).bytes);
  const tooLarge = size > TOO_LARGE_BYTES;
  const viewer = (type: BlobViewer['type'], fileType: string, limits: boolean): BlobViewer => ({
    type,
    fileType,
    tooLarge: limits && tooLarge,
    collapsed: limits && size > COLLAPSE_BYTES,
    renderError: limits && tooLarge ? 'too_large' : null,
    loadAsync: fileType !== 'download' && fileType !== 'empty',
    loadingPartialName: 'loading',
  });
  const simpleType = size === 0 ? 'empty' : binary || external ? 'download' : 'text';
  const richType = RICH_VIEWERS[extensionOf(blob.path)];
  return {
    simple: viewer('simple', simpleType, simpleType === 'text'),
    rich: richType && size > 0 ? viewer('rich', richType, true) : null,
  };
}

/**
 * Whether the viewer may change the blob where it is (GitLab's `can_modify_blob?` and
 * `can_current_user_push_to_branch?`): the ref is a branch of a project that is not archived,
 * and the viewer may push to it (Developers, Maintainers on the protected default branch).
 */
export async function canPushToBlobBranch(ctx: Context, blob: BlobAt): Promise<boolean> {
  if (blob.project.archived || !ctx.viewer.user) return false;
  if (blob.refType === 'tags' || !blob.repository.branchTip(blob.ref)) return false;
  return ctx.policy.canPushToBranch(blob.project, blob.ref);
}

// ---------------------------------------------------------------------------------------------
// Submodules

/** `submodule.<name>.path` / `.url` pairs of a `.gitmodules` file (git's config format), by path. */
function parseGitmodules(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  const urls = new Map<string, string>();
  let section: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[submodule\s+"(.+)"\]$/.exec(line);
    if (header) section = header[1]!;
    else if (line.startsWith('[')) section = null;
    const pair = section && /^(path|url)\s*=\s*(.+)$/.exec(line);
    if (pair) (pair[1] === 'path' ? paths : urls).set(section!, pair[2]!.trim());
  }
  const byPath = new Map<string, string>();
  for (const [name, path] of paths) if (urls.has(name)) byPath.set(path, urls.get(name)!);
  return byPath;
}

/**
 * A submodule's URL as a web address (GitLab's SubmoduleHelper): `.git` dropped, scp-like
 * `git@host:path` read as https, a relative URL read against the project's own address; null
 * for anything else (a local path, an unknown scheme).
 */
function submoduleWebUrl(url: string, projectUrl: string): string | null {
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(url);
  let web: string;
  if (scp) web = `https://${scp[1]}/${scp[2]}`;
  else if (/^(https?|ssh|git):\/\//.test(url)) web = url.replace(/^(ssh|git):\/\/([^@/]+@)?/, 'https://');
  else if (url.startsWith('../') || url.startsWith('./')) web = new URL(url, `${projectUrl}/`).href;
  else return null;
  return web.replace(/\.git$/, '').replace(/\/$/, '');
}

/** GitHub's tree URLs lack GitLab's `/-/`. */
const submoduleTreeUrl = (web: string, sha: string) => (/^https:\/\/github\.com\//.test(web) ? `${web}/tree/${sha}` : `${web}/-/tree/${sha}`);

/**
 * Where a submodule of a tree points (`.gitmodules` at the tree's commit): its web URL and the
 * URL of the commit it is pinned at; nulls when the file does not name it.
 */
export function submoduleUrls(
  repository: Repository,
  commitSha: string,
  entry: TreeEntryInfo,
  projectUrl: string,
): { webUrl: string | null; treeUrl: string | null } {
  const file = repository.entryAt(commitSha, '.gitmodules');
  const url = file?.type === 'blob' ? parseGitmodules(repository.blobContent(file.oid).toString('utf8')).get(entry.path) : undefined;
  const webUrl = url ? submoduleWebUrl(url, projectUrl) : null;
  return { webUrl, treeUrl: webUrl && submoduleTreeUrl(webUrl, entry.oid) };
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
