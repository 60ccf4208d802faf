import fs from 'node:fs/promises';
import path from 'node:path';
import { RepositoryReader } from './reader.ts';
import { gitEnv, runGit, type GitIdentity } from './run.ts';

const ZERO_OID = '0000000000000000000000000000000000000000';

/** Bare repositories under DATA_DIR/repositories, addressed by project id (paths can be renamed). */
export class GitStore {
  constructor(readonly root: string) {}

  pathFor(projectId: number) {
    return path.join(this.root, `${projectId}.git`);
  }

  /** A libgit2 handle on the project's repository (opened per request; opening costs ~10 ms). */
  reader(projectId: number): Promise<RepositoryReader> {
    return RepositoryReader.open(this.pathFor(projectId));
  }

  async init(projectId: number, defaultBranch: string): Promise<void> {
    const dir = this.pathFor(projectId);
    await fs.mkdir(this.root, { recursive: true });
    await runGit(this.root, ['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`, '--', dir]);
  }

  async remove(projectId: number): Promise<void> {
    await fs.rm(this.pathFor(projectId), { recursive: true, force: true });
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

  /**
   * Creates the first commit of an empty branch holding `files` at the top level. The ref update
   * expects the branch not to exist, so it cannot overwrite a concurrent first push.
   */
  async createInitialCommit(
    projectId: number,
    opts: { branch: string; files: { name: string; content: string }[]; message: string; author: GitIdentity },
  ): Promise<string> {
    const dir = this.pathFor(projectId);
    const identity = { ...opts.author, date: opts.author.date ?? new Date() };
    const entries: string[] = [];
    for (const file of opts.files) {
      const blob = (await runGit(dir, ['hash-object', '-w', '--stdin'], { input: file.content })).trim();
      entries.push(`100644 blob ${blob}\t${file.name}`);
    }
    const tree = (await runGit(dir, ['mktree'], { input: entries.join('\n') + '\n' })).trim();
    const commit = (
      await runGit(dir, ['commit-tree', tree], {
        input: opts.message,
        env: gitEnv({ author: identity, committer: identity }),
      })
    ).trim();
    await runGit(dir, ['update-ref', `refs/heads/${opts.branch}`, commit, ZERO_OID]);
    return commit;
  }

  async branchNames(projectId: number): Promise<string[]> {
    const out = await runGit(this.pathFor(projectId), ['for-each-ref', '--format=%(refname:lstrip=2)', 'refs/heads/']);
    return out.split('\n').filter(Boolean);
  }

  /** Points HEAD (the default branch) at a branch; the name was validated by the caller. */
  async setHead(projectId: number, branch: string): Promise<void> {
    await runGit(this.pathFor(projectId), ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }
}
