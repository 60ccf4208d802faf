import type { RepositoryReader } from './reader.ts';
import { runGit } from './run.ts';

export type BranchTip = { name: string; sha: string };

/** Branches whose name matches a glob (`*` any run of characters), sorted by name. */
export async function listBranches(reader: RepositoryReader, pattern = '*'): Promise<BranchTip[]> {
  const out = await runGit(reader.native.path(), ['for-each-ref', '--format=%(refname:lstrip=2)%00%(objectname)', 'refs/heads/']);
  const glob = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, sha] = line.split('\0');
      return { name, sha };
    })
    .filter((b) => glob.test(b.name));
}

/** A repository without any branch (libgit2's isEmpty also depends on HEAD's name). */
export async function hasNoBranches(reader: RepositoryReader): Promise<boolean> {
  return (await runGit(reader.native.path(), ['for-each-ref', '--count=1', '--format=x', 'refs/heads/'])).trim() === '';
}
