import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { ParamError, TooManyRequestsError } from '../../core/errors.ts';
import { ArchiveQueueFullError, type ArchiveFormat, type ArchiveStream } from '../../git/archive.ts';
import { checkFilePath } from '../../git/paths.ts';
import { findCommit } from '../commits/service.ts';
import { requireCodeOfProject } from '../projects/service.ts';

export type ArchiveInfo = { projectId: number; sha: string; format: ArchiveFormat; prefix: string; fileName: string; path: string | null };

/** Seconds a client is asked to wait when every archive build slot and queue place is taken. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * What an archive of `ref` (default: the default branch) would hold, for viewers who may read the
 * code; null when the ref names no commit or `path` nothing in it. Named like GitLab's:
 * `<project>-<ref>-<sha>[-<path with dashes>]`.
 */
export async function describeArchive(
  ctx: Context,
  project: ProjectWithNamespace,
  ref: string | null | undefined,
  format: ArchiveFormat,
  path?: string | null,
): Promise<ArchiveInfo | null> {
  const wanted = ref || project.defaultBranch;
  const commit = await findCommit(ctx, project, wanted);
  if (!commit) return null;
  const subdir = path ? path.replace(/^\/+|\/+$/g, '') : '';
  if (subdir) {
    if (checkFilePath(subdir) === null) throw new ParamError('path should be a valid file path');
    if (!(await ctx.loaders.repository.load(project.id)).entryAt(commit.id, subdir)) return null;
  }
  const prefix = [project.path, wanted.replace(/\//g, '-'), commit.id, ...(subdir ? [subdir.replace(/\//g, '-')] : [])].join('-');
  return { projectId: project.id, sha: commit.id, format, prefix, fileName: `${prefix}.${format}`, path: subdir || null };
}

/**
 * The archive's bytes as a stream, from the cache or from `git archive` as it runs. They are read
 * after the operation that described the archive, so the viewer is checked again: no caller
 * reaches code by project id and SHA alone. 429 when too many archives are being built.
 */
export async function openArchive(ctx: Context, archive: Pick<ArchiveInfo, 'projectId' | 'sha' | 'format' | 'prefix' | 'path'>): Promise<ArchiveStream> {
  const { git } = ctx.deps;
  const project = await requireCodeOfProject(ctx, archive.projectId);
  try {
    return await git.archives.open(project.id, git.pathFor(project.id), {
      commitId: archive.sha,
      format: archive.format,
      prefix: archive.prefix,
      path: archive.path,
    });
  } catch (error) {
    if (error instanceof ArchiveQueueFullError) throw new TooManyRequestsError(BUSY_RETRY_AFTER_SECONDS);
    throw error;
  }
}
