import fs from 'node:fs/promises';
import path from 'node:path';
import { ArchiveStore } from './archive.ts';
import { Repository } from './repository.ts';
import { runGit } from './run.ts';
import { removeCrashReports } from './writer.ts';

export class GitBundleError extends Error {
  constructor(message: string, readonly cause: unknown) {
    super(message);
  }
}

/** Bare repositories under DATA_DIR/repositories, addressed by project id (paths can be renamed). */
export class GitStore {
  /** Built archives, cached per commit under DATA_DIR/archives, with capped concurrent builds. */
  readonly archives: ArchiveStore;

  constructor(
    readonly root: string,
    archives: { dir?: string; maxConcurrent: number; maxQueued: number } = { maxConcurrent: 4, maxQueued: 16 },
  ) {
    this.archives = new ArchiveStore(archives.dir ?? path.join(path.dirname(root), 'archives'), archives);
  }

  pathFor(projectId: number) {
    return path.join(this.root, `${projectId}.git`);
  }

  /** The project's repository handle (one per request: see `ctx.loaders.repository`). */
  open(projectId: number): Promise<Repository> {
    return Repository.open(this.pathFor(projectId));
  }

  /**
   * A bare repository only the server's user may read: `--shared=0600` makes git create its
   * directories 0700 and its files 0600 (objects 0400) whatever the process umask.
   */
  async init(projectId: number, defaultBranch: string): Promise<void> {
    const dir = this.pathFor(projectId);
    await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
    await runGit(this.root, ['init', '--bare', '--quiet', '--shared=0600', `--initial-branch=${defaultBranch}`, '--', dir]);
    await allowForcePushes(dir);
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

/**
 * `--shared` also turns on receive.denyNonFastForwards; force pushes are for branch protection to
 * refuse. The line is edited in the config file init just wrote, which saves a `git config` process
 * per new project.
 */
async function allowForcePushes(dir: string): Promise<void> {
  const file = path.join(dir, 'config');
  const config = await fs.readFile(file, 'utf8');
  const edited = config.replace(/^(\s*denyNonFastforwards\s*=\s*)true\s*$/im, '$1false');
  if (edited === config) throw new Error(`git init wrote no receive.denyNonFastForwards to ${file}`);
  await fs.writeFile(file, edited);
}
