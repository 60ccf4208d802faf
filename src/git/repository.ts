import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { commitStats, countCommits, diffCommits, logCommits, mergeBase, type DiffEntry, type DiffStats, type LogQuery } from './history.ts';
import * as inspect from './inspect.ts';
import { lfsPointerOid } from './lfs.ts';
import type { NativeCommit, NativeRepository, NativeTree } from './native.ts';
import { isValidBranchName, isValidRefName } from './refs.ts';
import { runGit, streamGit, type GitIdentity } from './run.ts';
import { readCommitSignature, type CommitSignatureInfo } from './signatures.ts';
import { isValidTagName, tagTarget, type TagInfo } from './tags.ts';
import { commitChanges, deleteRef, RefMovedError, updateRef, type CommitRequest } from './writer.ts';
import { BoundedCache } from '../core/bounded-cache.ts';

export type CommitInfo = {
  id: string;
  shortId: string;
  title: string;
  message: string;
  parentIds: string[];
  authorName: string;
  authorEmail: string;
  authoredDate: Date;
  committerName: string;
  committerEmail: string;
  committedDate: Date;
};

export type EntryType = 'blob' | 'tree' | 'commit';
export type TreeEntryInfo = { oid: string; mode: number; type: EntryType; name: string; path: string };
export type BlobInfo = { size: number; sha256: string };
export type BranchTip = { name: string; sha: string };
/** Consecutive lines last changed by one commit. */
export type BlameRange = { commit: CommitInfo; lineno: number; lines: string[] };

/** Blobs up to this size are read in-process through libgit2; bigger ones are streamed by git. */
export const SMALL_BLOB_BYTES = 1024 * 1024;

/** A blob read through libgit2 this big or bigger: its handle is not kept for later requests. */
export const LARGE_READ_BYTES = 64 * 1024;

export const REGULAR_FILE_MODE = 0o100644;
export const EXECUTABLE_MODE = 0o100755;

/** git's own test for binary content (`buffer_is_binary`): a NUL byte among the first 8000. */
export const isBinary = (head: Buffer) => head.subarray(0, 8000).includes(0);

const SHA_PATTERN = /^[0-9a-f]{4,40}$/i;
const FULL_SHA = /^[0-9a-f]{40}$/;

/** A ref a user may name: HEAD, a commit SHA (full or abbreviated), or a valid branch/tag name. */
/** A ref followed by ancestry steps (`~`, `~3`, `^`, `^2`), at most 4 digits each. */
const ANCESTRY = /^([^~^]+)((?:[~^]\d{0,4})+)$/;

export const isAcceptableRef = (ref: string) => ref === 'HEAD' || SHA_PATTERN.test(ref) || isValidRefName(ref);

/** Lines as git counts them: a final newline ends the last line, it does not start another. */
export function splitLines(content: Buffer): string[] {
  if (content.length === 0) return [];
  const lines = content.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// Keyed by object ids, which name their content: shared by every repository of the process.
const entries = new BoundedCache<string, TreeEntryInfo | null>(50_000);
const lastCommits = new BoundedCache<string, string | null>(20_000);
const blobInfos = new BoundedCache<string, BlobInfo>(50_000);
/** Big blobs being hashed now: requests for the same blob at once share one pass over it. */
const hashing = new Map<string, Promise<BlobInfo>>();

/** Commits read from the object database (not from a handle's cache): tests count them. */
export const gitReadCounter = { commits: 0 };

const TYPES: Record<string, EntryType> = { Blob: 'blob', Tree: 'tree', Commit: 'commit' };

/**
 * One project's bare repository: the only way the product reads or writes git. Reads go through
 * libgit2 (es-git) in-process; writes through git plumbing and libgit2, each ref update a compare-and-swap.
 * Users' ref strings are checked before they reach libgit2 and are only resolved as revisions;
 * paths reach git on stdin or as tree lookups, never as options. One handle per project and
 * request (`ctx.loaders.repository`), over a libgit2 repository the GitStore keeps open.
 */
export class Repository {
  /**
   * Commits this handle read, by the sha asked for. A handle lives for one request
   * (`ctx.loaders.repository`), so a list whose rows share a commit (releases of one tag target)
   * reads it once, and nothing is kept past the request.
   */
  private readonly commits = new Map<string, CommitInfo | null>();

  private constructor(
    private readonly path: string,
    private readonly repo: NativeRepository,
    /** Tells the git store not to keep the libgit2 handle for later requests. */
    private readonly letGo: () => void,
    /** Waits for one of the process's slots for a streamed blob read; resolves with its release. */
    private readonly blobReadSlot: () => Promise<() => void>,
  ) {}

  /** A handle for one request over an opened libgit2 repository (GitStore keeps those). */
  static over(path: string, repo: NativeRepository, letGo: () => void, blobReadSlot: () => Promise<() => void>): Repository {
    return new Repository(path, repo, letGo, blobReadSlot);
  }

  // ------------------------------------------------------------------------------------------
  // Refs

  private tryRevparse(spec: string): string | null {
    try {
      return this.repo.revparseSingle(spec);
    } catch {
      return null;
    }
  }

  /**
   * The commit a branch, tag, SHA or HEAD points to, optionally followed by git's ancestry
   * suffixes (`main~2`, `v1.0^`, `HEAD^2`), which GitLab's compare and commit routes accept; null
   * when there is none. No ref name can hold `~` or `^`, so the suffixes are never ambiguous.
   */
  resolveCommit(ref: string): string | null {
    const ancestry = ANCESTRY.exec(ref);
    if (ancestry) return this.ancestorOf(this.resolveCommit(ancestry[1]!), ancestry[2]!);
    if (!isAcceptableRef(ref)) return null;
    const candidates = ref === 'HEAD' || SHA_PATTERN.test(ref) ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, ref];
    for (const spec of candidates) {
      const oid = this.tryRevparse(spec);
      if (!oid) continue;
      try {
        return this.repo.getObject(oid).peelToCommit().id();
      } catch {
        return null;
      }
    }
    return null;
  }

  /** The commit a branch points to; null for a missing branch or a name no branch can have. */
  branchTip(name: string): string | null {
    return isValidBranchName(name) ? this.resolveCommit(`refs/heads/${name}`) : null;
  }

  /** Branches whose name matches a glob (`*` any run of characters), sorted by name. */
  branches(pattern = '*'): BranchTip[] {
    const glob = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return [...this.repo.branches({ type: 'Local' })]
      .map((b) => b.name)
      .filter((name) => glob.test(name))
      .sort()
      .flatMap((name) => {
        const sha = this.resolveCommit(`refs/heads/${name}`);
        return sha ? [{ name, sha }] : [];
      });
  }

  /** A repository without any branch (libgit2's isEmpty also depends on HEAD's name). */
  hasBranches(): boolean {
    for (const _branch of this.repo.branches({ type: 'Local' })) return true;
    return false;
  }

  /** Points HEAD (the default branch) at a branch, which may not exist yet; the name was validated. */
  async setHead(branch: string): Promise<void> {
    await runGit(this.path, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  /** Compare-and-swap of a ref (`expected` null: it must not exist yet); RefMovedError otherwise. */
  updateRef(ref: string, value: string, expected: string | null): Promise<void> {
    return updateRef(this.path, ref, value, expected, this.repo);
  }

  /** Deletes a ref while it still points at `expected`; RefMovedError otherwise. */
  deleteRef(ref: string, expected: string): Promise<void> {
    return deleteRef(this.path, ref, expected);
  }

  // ------------------------------------------------------------------------------------------
  // Commits

  /** Walks `~n` (n first parents) and `^n` (the n-th parent) steps from a commit. */
  private ancestorOf(sha: string | null, steps: string): string | null {
    for (const [, op, digits] of steps.matchAll(/([~^])(\d*)/g)) {
      const n = digits === '' ? 1 : Number(digits);
      if (op === '~') for (let i = 0; i < n && sha; i++) sha = this.parentIds(sha)[0] ?? null;
      else if (sha && n > 0) sha = this.parentIds(sha)[n - 1] ?? null;
    }
    return sha;
  }

  /** Every parent of a commit, first parent first: the one parent walk. */
  private parentIds(sha: string): string[] {
    const parents: string[] = [];
    for (let n = 1; ; n++) {
      const parent = this.tryRevparse(`${sha}^${n}`);
      if (!parent) return parents;
      parents.push(parent);
    }
  }

  /** The commit's attributes; the same object for the same sha within one handle: do not mutate it. */
  commit(sha: string): CommitInfo | null {
    let info = this.commits.get(sha);
    if (info === undefined) {
      info = this.readCommit(sha);
      this.commits.set(sha, info);
    }
    return info;
  }

  private readCommit(sha: string): CommitInfo | null {
    gitReadCounter.commits += 1;
    let commit: NativeCommit;
    try {
      commit = this.repo.getCommit(sha);
    } catch {
      return null;
    }
    const author = commit.author();
    const committer = commit.committer();
    const message = commit.message();
    const id = commit.id();
    return {
      id,
      shortId: id.slice(0, 8),
      title: commit.summary() ?? message.split('\n')[0],
      message,
      parentIds: this.parentIds(id),
      authorName: author.name,
      authorEmail: author.email,
      authoredDate: new Date(author.timestamp * 1000),
      committerName: committer.name,
      committerEmail: committer.email,
      committedDate: new Date(committer.timestamp * 1000),
    };
  }

  /** What a commit's signature says of its kind and key; null for an unsigned commit (or no such commit). */
  signature(sha: string): CommitSignatureInfo | null {
    let extracted: { signature: string } | null;
    try {
      extracted = this.repo.extractSignature(sha);
    } catch {
      return null;
    }
    return extracted && readCommitSignature(extracted.signature);
  }

  /**
   * The newest commit reachable from `commitSha` that changed `path` (git log -1 -- path): the first
   * commit in the walk whose entry differs from every parent's. Cached per (commit, path).
   */
  lastCommitFor(commitSha: string, path: string): string | null {
    const key = `${commitSha}\0${path}`;
    if (lastCommits.has(key)) return lastCommits.get(key)!;
    const walk = this.repo.revwalk();
    walk.push(commitSha);
    for (let sha = walk.next(); sha; sha = walk.next()) {
      const oid = this.entryAt(sha, path)?.oid ?? null;
      const unchanged = this.parentIds(sha).some((parent) => (this.entryAt(parent, path)?.oid ?? null) === oid);
      if (oid !== null && !unchanged) return lastCommits.set(key, sha);
    }
    return lastCommits.set(key, null);
  }

  /** Commit ids a history query selects, one page of them (see `LogQuery`). */
  history(query: LogQuery, page: { offset: number; limit: number }): Promise<string[]> {
    return logCommits(this.path, query, page);
  }

  countHistory(query: LogQuery): Promise<number> {
    return countCommits(this.path, query);
  }

  mergeBase(a: string, b: string): Promise<string | null> {
    return mergeBase(this.path, a, b);
  }

  /** Lines added and removed by each commit against its first parent, in one git call. */
  stats(shas: string[]): Promise<Map<string, DiffStats>> {
    return commitStats(this.path, shas);
  }

  /** The file changes from `from` (null: the empty tree) to `to`. */
  diff(from: string | null, to: string): Promise<DiffEntry[]> {
    return diffCommits(this.path, from, to);
  }

  /** One commit through plumbing, landing with a compare-and-swap on its branch (see `commitChanges`). */
  writeCommit(req: CommitRequest): Promise<string> {
    return commitChanges(this.path, req, this.repo);
  }

  /** Branches and/or tags whose history holds a commit. */
  refsContaining(sha: string, kinds: inspect.RefKind[]): Promise<inspect.NamedRef[]> {
    return inspect.refsContaining(this.path, sha, kinds);
  }

  /** Branches whose tip is in the history of `sha`. */
  branchesMergedInto(sha: string): Promise<BranchTip[]> {
    return inspect.branchesMergedInto(this.path, sha);
  }

  /** The best common ancestor of several commits. */
  mergeBaseOfAll(shas: string[]): Promise<string | null> {
    return inspect.mergeBaseOfAll(this.path, shas);
  }

  contributors(sha: string): Promise<inspect.Contributor[]> {
    return inspect.contributorsOf(this.path, sha);
  }

  /**
   * A commit on `parent` whose tree is `parent`'s with the change from `base` to `theirs` applied
   * (cherry-pick: the commit's parent to the commit; revert: the other way round); TreeChangeError
   * on a conflict or when nothing would change. The branch is not moved: see `updateRef`.
   */
  async commitChange(opts: { parent: string; base: string; theirs: string; message: string; author: GitIdentity; committer: GitIdentity }): Promise<string> {
    const [base, ours, theirs] = await Promise.all([opts.base, opts.parent, opts.theirs].map((sha) => inspect.treeOf(this.path, sha)));
    const tree = await inspect.applyChange(this.path, { base: base!, ours: ours!, theirs: theirs! });
    return inspect.commitTree(this.path, { tree, parents: [opts.parent], message: opts.message, author: opts.author, committer: opts.committer });
  }

  /** The repository directory as a tar stream. */
  snapshot(): Readable {
    return inspect.tarOfDirectory(this.path);
  }

  // ------------------------------------------------------------------------------------------
  // Trees and blobs

  private lookupEntry(commitSha: string, path: string): TreeEntryInfo | null {
    try {
      const entry = this.repo.getCommit(commitSha).tree().getPath(path);
      const type = entry && TYPES[entry.type() ?? ''];
      return entry && type ? { oid: entry.id(), mode: entry.filemode(), type, name: entry.name(), path } : null;
    } catch {
      return null;
    }
  }

  /** The tree entry at `path` in a commit, cached per (commit, path). */
  entryAt(commitSha: string, path: string): TreeEntryInfo | null {
    const key = `${commitSha}\0${path}`;
    if (entries.has(key)) return entries.get(key)!;
    return entries.set(key, this.lookupEntry(commitSha, path));
  }

  /** One level of a directory: the entries of the tree at `path` ('' is the root); null when there is none. */
  listTree(commitSha: string, path: string): TreeEntryInfo[] | null {
    const tree = path === '' ? this.rootTree(commitSha) : this.treeAt(commitSha, path);
    if (!tree) return null;
    const prefix = path === '' ? '' : `${path}/`;
    return [...tree.iter()].flatMap((e) => {
      const type = TYPES[e.type() ?? ''];
      return type ? [{ oid: e.id(), mode: e.filemode(), type, name: e.name(), path: prefix + e.name() }] : [];
    });
  }

  /**
   * Every entry below `path` ('' is the root), trees included, depth first with each directory
   * before its contents (`git ls-tree -r -t`); null when there is no such directory.
   */
  walkTree(commitSha: string, path: string): TreeEntryInfo[] | null {
    const top = this.listTree(commitSha, path);
    if (!top) return null;
    const walk = (entries: TreeEntryInfo[]): TreeEntryInfo[] =>
      entries.flatMap((e) => (e.type === 'tree' ? [e, ...walk(this.listTreeObject(e.oid, e.path))] : [e]));
    return walk(top);
  }

  /** Every file of a commit's tree with its size in bytes, from one `git ls-tree` (a repository's languages). */
  async fileSizes(commitSha: string): Promise<{ path: string; bytes: number }[]> {
    const out = await runGit(this.path, ['ls-tree', '-r', '-l', '-z', commitSha]);
    const files: { path: string; bytes: number }[] = [];
    for (const record of out.split('\0')) {
      // `<mode> <type> <oid> <size>\t<path>`; submodules (commit entries) have the size `-`.
      const match = /^\d+ blob [0-9a-f]+ +(\d+)\t([\s\S]*)$/.exec(record);
      if (match) files.push({ path: match[2]!, bytes: Number(match[1]) });
    }
    return files;
  }

  private listTreeObject(oid: string, path: string): TreeEntryInfo[] {
    return [...this.repo.getTree(oid).iter()].flatMap((e) => {
      const type = TYPES[e.type() ?? ''];
      return type ? [{ oid: e.id(), mode: e.filemode(), type, name: e.name(), path: `${path}/${e.name()}` }] : [];
    });
  }

  private rootTree(commitSha: string): NativeTree | null {
    try {
      return this.repo.getCommit(commitSha).tree();
    } catch {
      return null;
    }
  }

  private treeAt(commitSha: string, path: string): NativeTree | null {
    const entry = this.entryAt(commitSha, path);
    return entry?.type === 'tree' ? this.repo.getTree(entry.oid) : null;
  }

  /** The full id of the blob an object id (full or abbreviated) names; null when it names no blob. */
  blobId(sha: string): string | null {
    if (!SHA_PATTERN.test(sha)) return null;
    const oid = this.tryRevparse(sha);
    if (!oid) return null;
    try {
      // A commit or a tree does not peel to a blob.
      this.repo.getObject(oid).peelToBlob();
      return oid;
    } catch {
      return null;
    }
  }

  /** Whole content of a blob, read through libgit2 (callers keep this to small blobs). */
  blobContent(oid: string): Buffer {
    const content = Buffer.from(this.repo.getObject(oid).peelToBlob().content());
    // The handle holds what it read until it is freed (twice a blob's size): after a big read it
    // goes when this request is done with it, not HANDLE_USES requests later.
    if (content.length >= LARGE_READ_BYTES) this.letGo();
    return content;
  }

  /**
   * `git cat-file blob <oid>` as a stream: big blobs never sit in memory. Each holds one of the
   * process's blob read slots until it closes (TooManyRequestsError when none is free in time).
   */
  async streamBlob(oid: string): Promise<Readable> {
    if (!FULL_SHA.test(oid)) throw new Error(`not an object id: ${oid}`);
    const release = await this.blobReadSlot();
    try {
      const stream = streamGit(this.path, ['cat-file', 'blob', oid]);
      stream.once('close', release);
      return stream;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Records size and SHA-256 of content already in memory, so `blobInfo` need not read it again. */
  static rememberBlob(oid: string, content: Buffer): BlobInfo {
    return blobInfos.set(oid, { size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
  }

  /** A blob's size without reading it (git reads the object header only). */
  async blobSize(oid: string): Promise<number> {
    return blobInfos.get(oid)?.size ?? Number((await runGit(this.path, ['cat-file', '-s', oid])).trim());
  }

  /**
   * Size and SHA-256 of a blob without holding it in memory: small blobs are read once through
   * libgit2, big ones hashed while git streams them. Cached per blob id.
   */
  async blobInfo(oid: string): Promise<BlobInfo> {
    const cached = blobInfos.get(oid);
    if (cached) return cached;
    const size = await this.blobSize(oid);
    if (size <= SMALL_BLOB_BYTES) return Repository.rememberBlob(oid, this.blobContent(oid));
    let pass = hashing.get(oid);
    if (!pass) {
      pass = this.hashBlob(oid, size).finally(() => hashing.delete(oid));
      hashing.set(oid, pass);
    }
    return pass;
  }

  private async hashBlob(oid: string, size: number): Promise<BlobInfo> {
    const hash = createHash('sha256');
    for await (const chunk of await this.streamBlob(oid)) hash.update(chunk as Buffer);
    return blobInfos.set(oid, { size, sha256: hash.digest('hex') });
  }

  /**
   * The first `limit` bytes of a blob (all of it when smaller), and whether that is all of it:
   * small blobs through libgit2, big ones from git's stream, which stops once `limit` bytes came.
   */
  async blobHead(oid: string, limit: number): Promise<{ bytes: Buffer; whole: boolean }> {
    const size = await this.blobSize(oid);
    if (size <= SMALL_BLOB_BYTES && size <= limit) return { bytes: this.blobContent(oid), whole: true };
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of await this.streamBlob(oid)) {
      chunks.push(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (read >= limit) break;
    }
    const bytes = Buffer.concat(chunks).subarray(0, limit);
    return { bytes, whole: bytes.length === size };
  }

  /** The LFS object id a blob points to, or null when the blob is not a Git LFS pointer. */
  async lfsOid(oid: string): Promise<string | null> {
    return lfsPointerOid((await this.blobInfo(oid)).size, () => this.blobContent(oid));
  }

  /**
   * Blame of the file `path` (whose content is `content`) at `commitSha` for lines `from`..`to`
   * (1-based, inclusive, clipped to the file), consecutive lines of one commit in one range.
   */
  blame(commitSha: string, path: string, content: Buffer, from = 1, to = Number.MAX_SAFE_INTEGER): BlameRange[] {
    const lines = splitLines(content);
    const last = Math.min(to, lines.length);
    if (from > last) return [];
    const blame = this.repo.blameFile(path, { newestCommit: commitSha, minLine: from, maxLine: last });
    const ranges: BlameRange[] = [];
    const commits = new Map<string, CommitInfo>();
    for (const hunk of blame.iter()) {
      const start = Math.max(hunk.finalStartLineNumber, from);
      const end = Math.min(hunk.finalStartLineNumber + hunk.linesInHunk - 1, last);
      if (start > end) continue;
      const text = lines.slice(start - 1, end);
      const previous = ranges[ranges.length - 1];
      if (previous?.commit.id === hunk.finalCommitId && previous.lineno + previous.lines.length === start) {
        previous.lines.push(...text);
        continue;
      }
      if (!commits.has(hunk.finalCommitId)) commits.set(hunk.finalCommitId, this.commit(hunk.finalCommitId)!);
      ranges.push({ commit: commits.get(hunk.finalCommitId)!, lineno: start, lines: text });
    }
    return ranges;
  }

  // ------------------------------------------------------------------------------------------
  // Tags

  /** A tag by name, read in-process: annotated tags carry their message and tagger date. */
  tag(name: string): TagInfo | null {
    if (!isValidTagName(name)) return null;
    const objectId = this.repo.findReference(`refs/tags/${name}`)?.target();
    if (!objectId) return null;
    const annotation = this.repo.findTag(objectId);
    let commit: NativeCommit;
    try {
      commit = this.repo.getObject(objectId).peelToCommit();
    } catch {
      return null;
    }
    // Git's creatordate: the tagger's date for annotated tags, the commit's for lightweight ones.
    const tagger = annotation?.tagger();
    return {
      name,
      objectId,
      commitId: commit.id(),
      message: annotation ? (annotation.message() ?? '').replace(/\n$/, '') : null,
      createdAt: new Date((tagger ?? commit.committer()).timestamp * 1000),
    };
  }

  /** Every tag that points (at last) to a commit, newest first, ties by name. */
  tags(): TagInfo[] {
    const all = this.repo.tagNames().flatMap((name) => this.tag(name) ?? []);
    return all.sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Creates `refs/tags/<name>` at a commit: annotated (a tag object) when a message is given,
   * lightweight otherwise. The ref must not exist yet, so an existing tag is never moved: false
   * when a concurrent writer created it first.
   */
  async createTag(opts: Parameters<typeof tagTarget>[1]): Promise<boolean> {
    const target = await tagTarget(this.path, opts);
    try {
      await this.updateRef(`refs/tags/${opts.name}`, target, null);
      return true;
    } catch (error) {
      // The loser of a race with another process sees the winner's tag (the write waited for its lock).
      if (error instanceof RefMovedError && this.tag(opts.name)) return false;
      throw error;
    }
  }

  /** Deletes a tag if it still points where the caller saw it. */
  deleteTag(tag: TagInfo): Promise<void> {
    return this.deleteRef(`refs/tags/${tag.name}`, tag.objectId);
  }
}
export type { DiffEntry, DiffStats, LogQuery } from './history.ts';
