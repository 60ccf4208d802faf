import type { Release, ReleaseLinkType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { FullMessagesError, NotFoundError, RecordNotFoundError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import type { LinkRow } from '../releases/loaders.ts';
import { findRelease } from '../releases/service.ts';
import { linkProblems, normalizeFilepath, type LinkInput } from '../releases/links.ts';

export type LinkWithRelease = { link: LinkRow; release: Release };

/** The release of a tag; GitLab's links API answers `404 Not found` (RecordNotFound) without one. */
export async function releaseOfTag(ctx: Context, project: ProjectWithNamespace, tag: string): Promise<Release> {
  const release = await findRelease(ctx, project, tag);
  if (!release) throw new RecordNotFoundError(`Release with tag "${tag}" was not found`);
  return release;
}

export async function findLink(ctx: Context, release: Release, id: number): Promise<LinkRow | null> {
  return (await ctx.loaders.releases.links.load(release.id)).find((l) => l.id === id) ?? null;
}

/** A link by id, within a project's release (REST's path) or, by id only, wherever it is visible. */
export type LinkTarget = { id: number; scope?: { project: ProjectWithNamespace; tag: string } };

async function locateLink(ctx: Context, { id, scope }: LinkTarget): Promise<LinkWithRelease & { project: ProjectWithNamespace }> {
  if (scope) {
    const release = await releaseOfTag(ctx, scope.project, scope.tag);
    const link = await findLink(ctx, release, id);
    if (!link) throw new RecordNotFoundError();
    return { link, release, project: scope.project };
  }
  const link = await ctx.db.releaseLink.findUnique({ where: { id }, include: { release: true } });
  const project = link && (await ctx.loaders.project.load(link.release.projectId));
  if (!link || !project || !(await ctx.policy.canReadProject(project))) throw new NotFoundError('Link');
  const { release, ...row } = link;
  return { link: row, release, project };
}

function check(row: { id?: number; name: string; url: string; filepath: string | null }, siblings: LinkRow[]) {
  const problems = linkProblems(row, siblings);
  if (problems.length) throw new FullMessagesError(problems);
}

const taken = (error: unknown) => {
  if (isUniqueViolation(error)) throw new FullMessagesError(['Link has already been taken']);
  throw error;
};

export async function createLink(
  ctx: Context,
  project: ProjectWithNamespace,
  tag: string,
  input: LinkInput & { name: string; url: string },
): Promise<LinkWithRelease> {
  await ctx.policy.requireProjectWrite(project, AccessLevel.DEVELOPER);
  const release = await releaseOfTag(ctx, project, tag);
  const row = {
    name: input.name,
    url: input.url,
    filepath: normalizeFilepath(input.directAssetPath) ?? null,
    linkType: (input.linkType ?? 'other') as ReleaseLinkType,
  };
  check(row, await ctx.loaders.releases.links.load(release.id));
  const link = await ctx.db.releaseLink.create({ data: { ...row, releaseId: release.id } }).catch(taken);
  ctx.loaders.releases.links.clear(release.id);
  return { link, release };
}

/** Only given fields change; a name or a URL must be among them (GitLab's `at_least_one_of`). */
export async function updateLink(ctx: Context, target: LinkTarget, input: LinkInput): Promise<LinkWithRelease> {
  checkInput(rules.atLeastOneOf(input, { name: 'name', url: 'url' }));
  const { link, release, project } = await locateLink(ctx, target);
  await ctx.policy.requireProjectWrite(project, AccessLevel.DEVELOPER);
  const row = {
    id: link.id,
    name: input.name ?? link.name,
    url: input.url ?? link.url,
    filepath: input.directAssetPath === undefined ? link.filepath : (normalizeFilepath(input.directAssetPath) ?? null),
    linkType: (input.linkType ?? link.linkType) as ReleaseLinkType,
  };
  check(row, await ctx.loaders.releases.links.load(release.id));
  const { id, ...data } = row;
  const updated = await ctx.db.releaseLink.update({ where: { id }, data }).catch(taken);
  ctx.loaders.releases.links.clear(release.id);
  return { link: updated, release };
}

export async function deleteLink(ctx: Context, target: LinkTarget): Promise<LinkWithRelease> {
  const located = await locateLink(ctx, target);
  await ctx.policy.requireProjectWrite(located.project, AccessLevel.DEVELOPER);
  await ctx.db.releaseLink.delete({ where: { id: located.link.id } });
  ctx.loaders.releases.links.clear(located.release.id);
  return { link: located.link, release: located.release };
}
