import { createHash } from 'node:crypto';
import qs from 'qs';
import type { Milestone, Namespace, Prisma, Release, ReleaseEvidence, ReleaseLinkType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import { BadRequestError, ConflictError, ForbiddenError, MissingError, NotFoundError, ParamError, UnprocessableError } from '../../core/errors.ts';
import { checkFilePath } from '../../git/paths.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { linkProblems, normalizeFilepath, type LinkInput, type LinkRow } from './links.ts';
import { ensureTag, removeTag, tagExists } from '../tags/service.ts';
import { projectConditions } from '../projects/store.ts';
import { groupReleasePages, projectReleasePages } from './store.ts';

/** Who creates, updates and deletes releases (GitLab's create_release, update_release, destroy_release). */
export const RELEASE_WRITE_LEVEL = AccessLevel.DEVELOPER;

export const RELEASE_SORTS = ['CREATED_DESC', 'CREATED_ASC', 'RELEASED_AT_DESC', 'RELEASED_AT_ASC'] as const;
export type ReleaseSort = (typeof RELEASE_SORTS)[number];

export type ReleaseFilter = { sort?: ReleaseSort | null; updatedBefore?: Date | null; updatedAfter?: Date | null };

/** Releases of a project the viewer can see (the project field already checked that): the list every release page reads. */
export function listReleases(ctx: Context, project: ProjectWithNamespace, filter: ReleaseFilter = {}): Listing<Release> {
  return projectReleasePages(ctx.deps.sql, project.id, filter, ctx.countLimit);
}

/** Releases of every project in the group and its subgroups that the viewer may read. */
export function listGroupReleases(ctx: Context, group: Namespace, sort?: ReleaseSort | null): Listing<Release> {
  return groupReleasePages(ctx.deps.sql, projectConditions(ctx, { namespaceId: group.id, includeSubgroups: true }), sort, ctx.countLimit);
}

export const findRelease = (ctx: Context, project: ProjectWithNamespace, tag: string): Promise<Release | null> =>
  ctx.loaders.releases.byTag.load(project.id, tag);

/** Query parameters a permalink does not carry on: GitLab's `order_by`, and credentials, never echoed into a Location. */
const NOT_CARRIED = ['order_by', 'private_token', 'access_token', 'job_token'];

/**
 * Where GitLab's `releases/permalink/latest[/<suffix>]` leads: the API path of the release with the
 * greatest released_at (upcoming ones included), by numeric project id and encoded tag, with the
 * suffix and the query kept. Null when the project has no release.
 */
export async function latestReleasePath(
  ctx: Context,
  project: ProjectWithNamespace,
  opts: { suffixPath?: string | null; query?: Record<string, unknown> | null } = {},
): Promise<string | null> {
  if (opts.suffixPath && checkFilePath(opts.suffixPath) === null) {
    throw new ParamError('suffix_path should be a valid file path', 'suffixPath should be a valid file path');
  }
  const [latest] = await listReleases(ctx, project, { sort: 'RELEASED_AT_DESC' }).fetch({ offset: 0, limit: 1 });
  if (!latest) return null;
  const kept = Object.fromEntries(Object.entries(opts.query ?? {}).filter(([key]) => !NOT_CARRIED.includes(key)));
  const search = qs.stringify(kept, { arrayFormat: 'brackets' });
  const suffix = opts.suffixPath ? `/${opts.suffixPath}` : '';
  return `/api/v4/projects/${project.id}/releases/${encodeURIComponent(latest.tag)}${suffix}${search ? `?${search}` : ''}`;
}

/** Milestones a release may carry: the project's own, and those of the group it directly belongs to. */
function milestoneOwners(project: ProjectWithNamespace): Prisma.MilestoneWhereInput[] {
  const owners: Prisma.MilestoneWhereInput[] = [{ projectId: project.id }];
  if (project.namespace.kind === 'group') owners.push({ groupId: project.namespace.id });
  return owners;
}

async function milestonesByTitle(ctx: Context, project: ProjectWithNamespace, titles: string[]): Promise<Milestone[]> {
  if (!titles.length) return [];
  const found = await ctx.db.milestone.findMany({ where: { title: { in: titles }, OR: milestoneOwners(project) } });
  const missing = titles.filter((title) => !found.some((m) => m.title === title));
  if (missing.length) throw new BadRequestError(`Milestone(s) not found: ${missing.join(', ')}`);
  return found;
}

async function milestonesById(ctx: Context, project: ProjectWithNamespace, ids: number[]): Promise<Milestone[]> {
  if (!ids.length) return [];
  const found = await ctx.db.milestone.findMany({ where: { id: { in: ids }, OR: milestoneOwners(project) } });
  const missing = ids.filter((id) => !found.some((m) => m.id === id));
  if (missing.length) throw new BadRequestError(`Milestone id(s) not found: ${missing.join(', ')}`);
  return found;
}

type MilestoneChoice = { milestones?: string[] | null; milestoneIds?: number[] | null };

/** Milestones are named by title or by id, never both (GitLab's `mutually_exclusive` with its own words). */
const milestonesOneWay = (input: MilestoneChoice) =>
  rules.mutuallyExclusive(input, { milestones: 'milestones', milestoneIds: 'milestone_ids' }, ([a, b]) => `Cannot specify ${a} and ${b} at the same time`);

/** The milestones an input names by title or by id; null when it names none (nothing to change). */
function milestonesOf(ctx: Context, project: ProjectWithNamespace, input: MilestoneChoice) {
  if (input.milestoneIds) return milestonesById(ctx, project, input.milestoneIds);
  if (input.milestones) return milestonesByTitle(ctx, project, input.milestones);
  return null;
}

export type ReleaseLinkInput = LinkInput & { name: string; url: string };

export type ReleaseCreateInput = {
  tagName: string;
  tagMessage?: string | null;
  ref?: string | null;
  name?: string | null;
  description?: string | null;
  releasedAt?: Date | null;
  milestones?: string[] | null;
  milestoneIds?: number[] | null;
  links?: ReleaseLinkInput[] | null;
};

function linkRows(links: ReleaseLinkInput[]) {
  const rows = links.map((l) => ({
    name: l.name,
    url: l.url,
    filepath: normalizeFilepath(l.directAssetPath) ?? null,
    linkType: (l.linkType ?? 'other') as ReleaseLinkType,
  }));
  const problems = [...new Set(rows.flatMap((row, i) => linkProblems(row, rows.filter((_, j) => j !== i) as LinkRow[])))];
  if (problems.length) throw new BadRequestError(`Validation failed: ${problems.map((p) => `Links ${p.charAt(0).toLowerCase()}${p.slice(1)}`).join(', ')}`);
  return rows;
}

/** What the evidence of a release records, GitLab's summary layout; its SHA-256 identifies it. */
async function evidenceSummary(tx: Prisma.TransactionClient, release: Release, project: ProjectWithNamespace) {
  const milestones = await tx.milestone.findMany({ where: { releases: { some: { releaseId: release.id } } }, orderBy: { id: 'asc' } });
  return {
    release: {
      id: release.id,
      tag_name: release.tag,
      name: release.name ?? release.tag,
      description: release.description,
      created_at: release.createdAt.toISOString(),
      project: { id: project.id, name: project.name, description: project.description, created_at: project.createdAt.toISOString() },
      milestones: milestones.map((m) => ({
        id: m.id,
        iid: m.iid,
        title: m.title,
        description: m.description,
        state: m.state,
        created_at: m.createdAt.toISOString(),
        due_date: m.dueDate?.toISOString().slice(0, 10) ?? null,
        issues: [],
      })),
    },
  };
}

async function writeEvidence(tx: Prisma.TransactionClient, release: Release, project: ProjectWithNamespace): Promise<ReleaseEvidence> {
  const summary = await evidenceSummary(tx, release, project);
  const sha = createHash('sha256').update(JSON.stringify(summary)).digest('hex');
  return tx.releaseEvidence.create({ data: { releaseId: release.id, summary, sha } });
}

const alreadyExists = () => new ConflictError('Release already exists');

/**
 * GitLab's order of checks: role, existing release (409), milestones (400), links (400), tag
 * (422 without `ref`). The row is inserted under the unique (project, tag) index, so of several
 * concurrent creations exactly one wins and the others get 409; a tag written for a creation
 * that failed otherwise is removed again.
 */
declare module '../../core/events.ts' {
  interface DomainEvents {
    /** A release was created, changed or deleted through the API (after its write committed). */
    release: { projectId: number; userId: number | null; tagName: string; name: string | null; action: 'create' | 'update' | 'delete' };
  }
}

const publishRelease = (ctx: Context, release: Release, action: 'create' | 'update' | 'delete') =>
  ctx.deps.events.publish('release', { projectId: release.projectId, userId: ctx.viewer.userId, tagName: release.tag, name: release.name, action });

export async function createRelease(ctx: Context, project: ProjectWithNamespace, input: ReleaseCreateInput): Promise<Release> {
  checkInput(milestonesOneWay(input));
  await ctx.policy.requireProjectWrite(project, RELEASE_WRITE_LEVEL);
  if (await findRelease(ctx, project, input.tagName)) throw alreadyExists();
  const milestones = (await milestonesOf(ctx, project, input)) ?? [];
  const links = linkRows(input.links ?? []);
  const tag = await ensureTag(ctx, project, { name: input.tagName, ref: input.ref, message: input.tagMessage });
  if (!tag) throw new UnprocessableError('Ref is not specified');
  try {
    const release = await ctx.db.$transaction(async (tx) => {
      const created = await tx.release.create({
        data: {
          projectId: project.id,
          tag: input.tagName,
          name: input.name ?? null,
          description: input.description ?? '',
          authorId: ctx.viewer.userId,
          sha: tag.commitId,
          releasedAt: input.releasedAt ?? new Date(),
          links: { create: links },
          milestones: { create: milestones.map((m) => ({ milestoneId: m.id })) },
        },
      });
      await writeEvidence(tx, created, project);
      return created;
    });
    ctx.loaders.releases.byTag.clear(project.id, input.tagName);
    await publishRelease(ctx, release, 'create');
    return release;
  } catch (error) {
    // The winner of a concurrent creation uses the tag, whoever wrote it; only a failed save cleans up.
    if (isUniqueViolation(error)) throw alreadyExists();
    if (tag.created) await removeTag(ctx, project, input.tagName);
    throw error;
  }
}

export type ReleaseUpdateInput = {
  name?: string | null;
  description?: string | null;
  releasedAt?: Date | null;
  milestones?: string[] | null;
  milestoneIds?: number[] | null;
};

/** An existing release for a Developer; GitLab answers 403 for a missing one too. */
async function releaseToChange(ctx: Context, project: ProjectWithNamespace, tag: string): Promise<Release> {
  await ctx.policy.requireProjectWrite(project, RELEASE_WRITE_LEVEL);
  const release = await findRelease(ctx, project, tag);
  if (!release) throw new ForbiddenError();
  return release;
}

/** Only given fields change; `milestones: []` removes all milestones. */
export async function updateRelease(ctx: Context, project: ProjectWithNamespace, tag: string, input: ReleaseUpdateInput): Promise<Release> {
  checkInput(milestonesOneWay(input));
  const release = await releaseToChange(ctx, project, tag);
  if (!(await tagExists(ctx, project, tag))) throw new MissingError('Tag does not exist');
  const given = (['name', 'description', 'releasedAt', 'milestones', 'milestoneIds'] as const).filter((k) => input[k] !== undefined && input[k] !== null);
  if (!given.length) throw new BadRequestError('params is empty');
  const milestones = await milestonesOf(ctx, project, input);
  const updated = await ctx.db.release.update({
    where: { id: release.id },
    data: {
      name: input.name ?? undefined,
      description: input.description ?? undefined,
      releasedAt: input.releasedAt ?? undefined,
      ...(milestones && { milestones: { deleteMany: {}, create: milestones.map((m) => ({ milestoneId: m.id })) } }),
    },
  });
  ctx.loaders.releases.milestones.clear(release.id);
  await publishRelease(ctx, updated, 'update');
  return updated;
}

/** Deletes the release (the git tag stays) and returns it as it was, links and milestones included. */
export async function deleteRelease(ctx: Context, project: ProjectWithNamespace, tag: string): Promise<Release> {
  const release = await releaseToChange(ctx, project, tag);
  const loaders = ctx.loaders.releases;
  // Loaded before the rows go, so the response can still show them.
  await Promise.all([loaders.links.load(release.id), loaders.milestones.load(release.id), loaders.evidences.load(release.id)]);
  await ctx.db.release.delete({ where: { id: release.id } });
  await publishRelease(ctx, release, 'delete');
  return release;
}

/** Collects a new evidence snapshot inline (no queue is needed for one JSON document). */
export async function collectEvidence(ctx: Context, project: ProjectWithNamespace, tag: string): Promise<ReleaseEvidence> {
  await ctx.policy.requireProjectWrite(project, RELEASE_WRITE_LEVEL);
  const release = await findRelease(ctx, project, tag);
  if (!release) throw new NotFoundError();
  const evidence = await ctx.db.$transaction((tx) => writeEvidence(tx, release, project));
  ctx.loaders.releases.evidences.clear(release.id);
  return evidence;
}

/**
 * Where a release's asset download path leads: the URL of the link with exactly that path, or
 * null. Following a download needs the right to read code, as on GitLab's downloads route: the
 * field that asks declares it (`assetDownloadUrl` in schema.ts).
 */
export async function assetDownloadUrl(ctx: Context, release: Release, path: string): Promise<string | null> {
  const links = await ctx.loaders.releases.links.load(release.id);
  return links.find((l) => l.filepath === normalizeFilepath(path))?.url ?? null;
}
