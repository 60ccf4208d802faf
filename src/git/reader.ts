import { native, type NativeCommit, type NativeRepository } from './native.ts';
import { isValidRefName } from './refs.ts';

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

const SHA_PATTERN = /^[0-9a-f]{4,40}$/i;

/** A ref a user may name: HEAD, a commit SHA (full or abbreviated), or a valid branch/tag name. */
export const isAcceptableRef = (ref: string) => ref === 'HEAD' || SHA_PATTERN.test(ref) || isValidRefName(ref);

/**
 * Read access to one bare repository through libgit2 (es-git): no process per read. Users' ref
 * strings are checked before they reach libgit2 and are only ever resolved as revisions.
 */
export class RepositoryReader {
  private constructor(private readonly repo: NativeRepository) {}

  static async open(path: string): Promise<RepositoryReader> {
    return new RepositoryReader(await native.openRepository(path, { bare: true }));
  }

  get native() {
    return this.repo;
  }

  private tryRevparse(spec: string): string | null {
    try {
      return this.repo.revparseSingle(spec);
    } catch {
      return null;
    }
  }

  /** The commit a branch, tag, SHA or HEAD points to; null when there is none. */
  resolveCommit(ref: string): string | null {
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

  private parentIds(sha: string): string[] {
    const parents: string[] = [];
    for (let n = 1; ; n++) {
      const parent = this.tryRevparse(`${sha}^${n}`);
      if (!parent) return parents;
      parents.push(parent);
    }
  }

  commit(sha: string): CommitInfo | null {
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
}
