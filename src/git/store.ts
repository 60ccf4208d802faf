import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BoundedCache } from '../core/bounded-cache.ts';
import { RepositoryUnavailableError, TooManyRequestsError } from '../core/errors.ts';
import { ArchiveStore } from './archive.ts';
import { RepositoryBusyError, RepositoryLimiter } from './limiter.ts';
import { native, type NativeRepository } from './native.ts';
import { Repository } from './repository.ts';
import { runGit } from './run.ts';
import { removeCrashReports } from './writer.ts';

const REPOSITORY_FOLDERS = ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags', 'hooks', 'info'];

/** libgit2 handles kept open, most recently used first (each may hold its pack files open). */
const OPEN_HANDLES = 16;

/**
 * Requests one kept handle serves before it is let go. es-git frees what was read through a handle
 * (commits, trees, blobs) only with the handle itself: 40,000 reads of a commit and its tree through
 * one handle grew RSS by 41 MB, garbage collected or not. Letting a handle go after this many
 * requests bounds that, and still spares all but one open in this many.
 */
export const HANDLE_USES = 32;

type KeptHandle = { repo: Promise<NativeRepository>; uses: number };

/** How long a large blob read may wait for a slot before it is refused (429). */
const BLOB_READ_WAIT_MS = 10_000;
/** The limiter's key for the one bound every repository of this process shares. */
const EVERY_REPOSITORY = 0;
const BLOB_READ_RETRY_AFTER_SECONDS = 10;

/**
 * What `git init --bare --shared=0600` writes, except that force pushes stay allowed
 * (`--shared` turns receive.denyNonFastForwards on): refusing them is branch protection's call.
 */
const REPOSITORY_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
\tsharedrepository = 0600
[receive]
\tdenyNonFastforwards = false
`;

export class GitBundleError extends Error {
  constructor(
    message: string,
    readonly cause: unknown,
  ) {
    super(message);
  }
}

/** Bare repositories under DATA_DIR/repositories, addressed by project id (paths can be renamed). */
export class GitStore {
  /** Built archives, cached per commit under DATA_DIR/archives, with capped concurrent builds. */
  readonly archives: ArchiveStore;
  /**
   * Streamed reads of large blobs, bounded for the whole process: each is a git process and a
   * full pass over the blob (raw bodies, file contents, their SHA-256).
   */
  readonly blobReads: RepositoryLimiter;

  constructor(
    readonly root: string,
    archives: { dir?: string; maxConcurrent: number; maxQueued: number } = { maxConcurrent: 4, maxQueued: 16 },
    blobReads: { maxConcurrent: number; maxQueued: number } = { maxConcurrent: 4, maxQueued: 16 },
  ) {
    this.archives = new ArchiveStore(archives.dir ?? path.join(path.dirname(root), 'archives'), archives);
    this.blobReads = new RepositoryLimiter(blobReads.maxConcurrent, blobReads.maxQueued, BLOB_READ_WAIT_MS);
  }

  pathFor(projectId: number) {
    return path.join(this.root, `${projectId}.git`);
  }

  /**
   * libgit2's handles, kept from one request to the next: opening one reads the repository's
   * config and layout, a tenth of a small raw read (bench/RESULTS.md, "Figures behind the code"). A kept handle still sees
   * what other processes write: libgit2 reads refs from disk at every lookup and rescans the
   * object database when an object is missing. A repository that does not open is not kept.
   */
  private readonly handles = new BoundedCache<number, KeptHandle>(OPEN_HANDLES);
  /** libgit2 opens so far (tests: a kept handle is reused, and let go). */
  opens = 0;
  /** Repositories handed out so far, kept handle or not (tests: a list reads no repository per item). */
  handedOut = 0;

  /** A Repository for one request (its commit cache lives as long), over the project's kept handle. */
  async open(projectId: number): Promise<Repository> {
    this.handedOut += 1;
    let kept = this.handles.get(projectId);
    if (!kept) {
      this.opens += 1;
      const opening = { repo: native.openRepository(this.pathFor(projectId), { bare: true }), uses: 0 };
      kept = this.handles.set(projectId, opening);
      opening.repo.catch(() => this.letGo(projectId, opening));
    }
    const handle = kept;
    if (++handle.uses >= HANDLE_USES) this.letGo(projectId, handle);
    const repo = await handle.repo.catch(async (error: unknown) => {
      throw (await this.holds(projectId)) ? error : new RepositoryUnavailableError();
    });
    return Repository.over(
      this.pathFor(projectId),
      repo,
      () => this.letGo(projectId, handle),
      () => this.blobReadSlot(),
    );
  }

  /** A slot for one streamed blob read; 429 when the bound and its queue are full. */
  private async blobReadSlot(): Promise<() => void> {
    try {
      return await this.blobReads.acquire(EVERY_REPOSITORY);
    } catch (error) {
      if (error instanceof RepositoryBusyError) throw new TooManyRequestsError(BLOB_READ_RETRY_AFTER_SECONDS);
      throw error;
    }
  }

  /** The project's repository directory, for a git process to run in; RepositoryUnavailableError when the storage lacks it. */
  async heldPath(projectId: number): Promise<string> {
    if (!(await this.holds(projectId))) throw new RepositoryUnavailableError();
    return this.pathFor(projectId);
  }

  /**
   * Whether the storage holds the project's repository: its HEAD and object database are there
   * (two stats; nothing is read).
   */
  async holds(projectId: number): Promise<boolean> {
    const dir = this.pathFor(projectId);
    try {
      const [head, objects] = await Promise.all([fs.stat(path.join(dir, 'HEAD')), fs.stat(path.join(dir, 'objects'))]);
      return head.isFile() && objects.isDirectory();
    } catch {
      return false;
    }
  }

  /** Stops keeping a handle (requests holding it finish with it), unless a newer one replaced it. */
  private letGo(projectId: number, handle: KeptHandle) {
    if (this.handles.get(projectId) === handle) this.handles.delete(projectId);
  }

  /**
   * A new bare repository, written as git's repository layout (gitrepository-layout(5)) instead of
   * by a `git init` process: a spawn blocks the main thread of the process that forks, longer as
   * the process grows (bench/RESULTS.md, "Figures behind the code").
   * Only the server's user may read it (directories 0700, files 0600, whatever the umask), and
   * `core.sharedRepository=0600` keeps the git processes that write into it later doing the same.
   * It is built beside its place and renamed in, so a crash never leaves half a repository; an
   * existing repository is kept, as `git init` keeps it.
   */
  async init(projectId: number, defaultBranch: string): Promise<void> {
    const dir = this.pathFor(projectId);
    await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
    const staging = `${dir}.init-${randomBytes(6).toString('hex')}`;
    try {
      for (const folder of REPOSITORY_FOLDERS) await fs.mkdir(path.join(staging, folder), { recursive: true, mode: 0o700 });
      await fs.writeFile(path.join(staging, 'config'), REPOSITORY_CONFIG, { mode: 0o600 });
      await fs.writeFile(path.join(staging, 'HEAD'), `ref: refs/heads/${defaultBranch}\n`, { mode: 0o600 });
      await fs.rename(staging, dir);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
    }
  }

  /**
   * The repository of a new fork: every branch and tag of the source's, its HEAD's branch as the
   * default, built beside its place and renamed in as `init` does. `hardLinks` links the source's
   * object files instead of copying them (git's local clone), which spares the space; off, the
   * objects are copied through git's transport (`--no-local`), so the fork shares no inode.
   */
  async fork(sourceId: number, forkId: number, opts: { hardLinks: boolean }): Promise<void> {
    const dir = this.pathFor(forkId);
    const staging = `${dir}.fork-${randomBytes(6).toString('hex')}`;
    try {
      await runGit(this.root, ['clone', '--bare', '--quiet', opts.hardLinks ? '--local' : '--no-local', '--', this.pathFor(sourceId), staging]);
      // The clone's config names its source as `origin`; a fork's repository stands on its own.
      await fs.writeFile(path.join(staging, 'config'), REPOSITORY_CONFIG, { mode: 0o600 });
      await fs.rename(staging, dir);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  /** Removes the fast-import crash reports a crash of the server left inside repositories. */
  async removeLeftoverTemporaryFiles(): Promise<number> {
    const repositories = await fs.readdir(this.root).catch(() => [] as string[]);
    const removed = await Promise.all(repositories.filter((n) => n.endsWith('.git')).map((n) => removeCrashReports(path.join(this.root, n))));
    return removed.reduce((sum, n) => sum + n, 0);
  }

  /**
   * Writes every branch and tag of the project into a git bundle at `target` (a relation export);
   * false, with nothing written, when the repository has no refs (git refuses an empty bundle).
   */
  async createBundle(projectId: number, target: string): Promise<boolean> {
    const dir = this.pathFor(projectId);
    const refs = await runGit(dir, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads', 'refs/tags']);
    if (!refs.trim()) return false;
    await runGit(dir, ['bundle', 'create', '--quiet', target, '--branches', '--tags']);
    return true;
  }

  /**
   * Fetches the branches and tags of a bundle into the project's repository without forcing: a ref
   * that already points elsewhere fails the import (GitBundleError) instead of losing commits; a
   * ref already at the bundle's commit is left alone, so importing a bundle twice changes nothing.
   */
  async fetchBundle(projectId: number, bundle: string): Promise<void> {
    const dir = this.pathFor(projectId);
    try {
      await runGit(dir, ['bundle', 'verify', '--quiet', bundle]);
    } catch (error) {
      throw new GitBundleError('The file is not a valid git bundle', error);
    }
    try {
      await runGit(dir, ['fetch', '--quiet', '--no-write-fetch-head', bundle, 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*']);
    } catch (error) {
      throw new GitBundleError('The bundle conflicts with branches or tags of the repository', error);
    }
  }

  async remove(projectId: number): Promise<void> {
    this.handles.delete(projectId);
    await fs.rm(this.pathFor(projectId), { recursive: true, force: true });
    await this.archives.remove(projectId);
  }

  /** Writable storage check for the readiness probe. */
  async isWritable(): Promise<boolean> {
    try {
      await fs.mkdir(this.root, { recursive: true });
      await fs.access(this.root, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
}
