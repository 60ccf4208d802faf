import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../graphql/context.ts';
import { createArchive, type ArchiveFormat } from '../../git/archive.ts';
import { findCommit } from '../commits/service.ts';

export type ArchiveInfo = { projectId: number; sha: string; format: ArchiveFormat; prefix: string; fileName: string };

/**
 * What an archive of `ref` (default: the default branch) would hold, for viewers who may read the
 * code; null when the ref names no commit. Named like GitLab's: `<project>-<ref>-<sha>`.
 */
export async function describeArchive(ctx: Context, project: ProjectWithNamespace, ref: string | null | undefined, format: ArchiveFormat): Promise<ArchiveInfo | null> {
  const wanted = ref || project.defaultBranch;
  const commit = await findCommit(ctx, project, wanted);
  if (!commit) return null;
  const prefix = `${project.path}-${wanted.replace(/\//g, '-')}-${commit.id}`;
  return { projectId: project.id, sha: commit.id, format, prefix, fileName: `${prefix}.${format}` };
}

/** The archive's bytes, from `git archive` (described, and so authorized, through GraphQL first). */
export const archiveContents = (ctx: Context, archive: Pick<ArchiveInfo, 'projectId' | 'sha' | 'format' | 'prefix'>) =>
  createArchive(ctx.deps.git.pathFor(archive.projectId), { commitId: archive.sha, format: archive.format, prefix: archive.prefix });
