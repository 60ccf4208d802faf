import fs from 'node:fs/promises';
import path from 'node:path';
import { ArchiveStore } from './archive.ts';
import { Repository } from './repository.ts';
import { runGit } from './run.ts';
import { TEMPORARY_INDEX_PREFIX } from './writer.ts';

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
    // `--shared` also turns on receive.denyNonFastForwards; force pushes are for branch protection to refuse.
    await runGit(dir, ['config', 'receive.denyNonFastForwards', 'false']);
  }

  /**
   * Removes the temporary index files a crash left inside repositories (commits build their tree
   * in `<repository>/forgegate-index-*`, under DATA_DIR, never in the system temp dir).
   */
  async removeLeftoverTemporaryFiles(): Promise<number> {
    const repositories = await fs.readdir(this.root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of repositories.filter((n) => n.endsWith('.git'))) {
      const dir = path.join(this.root, name);
      const leftovers = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(TEMPORARY_INDEX_PREFIX));
      await Promise.all(leftovers.map((n) => fs.rm(path.join(dir, n), { force: true })));
      removed += leftovers.length;
    }
    return removed;
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
