import type { Release, ReleaseLink, ReleaseLinkType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { FullMessagesError, NotFoundError, RecordNotFoundError } from '../../graphql/errors.ts';
import { releaseLoaders } from '../releases/loaders.ts';
import { findRelease } from '../releases/service.ts';
import { linkProblems, normalizeFilepath, type LinkInput } from './validation.ts';

export type LinkWithRelease = { link: ReleaseLink; release: Release };

/** The release of a tag; GitLab's links API answers `404 Not found` (RecordNotFound) without one. */
export async function releaseOfTag(ctx: Context, project: ProjectWithNamespace, tag: string): Promise<Release> {
  const release = await findRelease(ctx, project, tag);
  if (!release) throw new RecordNotFoundError(`Release with tag "${tag}" was not found`);
  return release;
}

export async function findLink(ctx: Context, release: Release, id: number): Promise<ReleaseLink | null> {
  return (await releaseLoaders(ctx).links.load(release.id)).find((l) => l.id === id) ?? null;
}

/** A link by id within a project's release, or (GraphQL, by id only) wherever it is visible. */
export async function locateLink(ctx: Context, id: number, scope?: { project: ProjectWithNamespace; tag: string }): Promise<LinkWithRelease & { project: ProjectWithNamespace }> {
  if (scope) {
    const release = await releaseOfTag(ctx, scope.project, scope.tag);
    const link = await findLink(ctx, release, id);
    if (!link) throw new RecordNotFoundError();
    return { link, release, project: scope.project };
  }
  const link = await ctx.db.releaseLink.findUnique({ where: { id }, include: { release: true } });
  const project = link && ((await ctx.loaders.project.load(link.release.projectId)) as ProjectWithNamespace);
  if (!link || !project || !(await ctx.policy.canReadProject(project))) throw new NotFoundError('Link');
  const { release, ...row } = link;
  return { link: row, release, project };
}

function check(row: { id?: number; name: string; url: string; filepath: string | null }, siblings: ReleaseLink[]) {
  const problems = linkProblems(row, siblings);
  if (problems.length) throw new FullMessagesError(problems);
}

const taken = (error: unknown) => {
  if (isUniqueViolation(error)) throw new FullMessagesError(['Link has already been taken']);
  throw error;
};

export async function createLink(ctx: Context, project: ProjectWithNamespace, tag: string, input: LinkInput & { name: string; url: string }): Promise<LinkWithRelease> {
  await ctx.policy.requireProjectAccess(project, AccessLevel.DEVELOPER);
  const release = await releaseOfTag(ctx, project, tag);
  const row = { name: input.name, url: input.url, filepath: normalizeFilepath(input.directAssetPath) ?? null, linkType: (input.linkType ?? 'other') as ReleaseLinkType };
  check(row, await releaseLoaders(ctx).links.load(release.id));
  const link = await ctx.db.releaseLink.create({ data: { ...row, releaseId: release.id } }).catch(taken);
  releaseLoaders(ctx).links.clear(release.id);
  return { link, release };
}

export async function updateLink(ctx: Context, located: LinkWithRelease & { project: ProjectWithNamespace }, input: LinkInput): Promise<LinkWithRelease> {
  await ctx.policy.requireProjectAccess(located.project, AccessLevel.DEVELOPER);
  const { link, release } = located;
  const row = {
    id: link.id,
    name: input.name ?? link.name,
    url: input.url ?? link.url,
    filepath: input.directAssetPath === undefined ? link.filepath : (normalizeFilepath(input.directAssetPath) ?? null),
    linkType: (input.linkType ?? link.linkType) as ReleaseLinkType,
  };
  check(row, await releaseLoaders(ctx).links.load(release.id));
  const { id, ...data } = row;
  const updated = await ctx.db.releaseLink.update({ where: { id }, data }).catch(taken);
  releaseLoaders(ctx).links.clear(release.id);
  return { link: updated, release };
}

export async function deleteLink(ctx: Context, located: LinkWithRelease & { project: ProjectWithNamespace }): Promise<LinkWithRelease> {
  await ctx.policy.requireProjectAccess(located.project, AccessLevel.DEVELOPER);
  await ctx.db.releaseLink.delete({ where: { id: located.link.id } });
  releaseLoaders(ctx).links.clear(located.release.id);
  return { link: located.link, release: located.release };
}
