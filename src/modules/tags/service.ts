import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { announceRefChange } from '../../core/events.ts';
import { BadRequestError, NotFoundError } from '../../core/errors.ts';
import type { Repository } from '../../git/repository.ts';
import { isValidTagName, type TagInfo } from '../../git/tags.ts';
import { readableRepository } from '../commits/service.ts';

export type TagOrder = { orderBy?: 'name' | 'updated' | null; sort?: 'asc' | 'desc' | null; search?: string | null };

/** The repository for a use case that already checked its own permission (a writer, or a release). */
const repositoryOf = (ctx: Context, project: ProjectWithNamespace) => ctx.loaders.repository.load(project.id);

/** GitLab's `search`: `^v` matches the start, `v$` the end, anything else a substring. */
function matches(name: string, search: string) {
  if (search.startsWith('^')) return name.startsWith(search.slice(1));
  if (search.endsWith('$')) return name.endsWith(search.slice(0, -1));
  return name.includes(search);
}

export async function listTags(ctx: Context, project: ProjectWithNamespace, order: TagOrder = {}): Promise<TagInfo[]> {
  const all = (await readableRepository(ctx, project)).tags().filter((t) => !order.search || matches(t.name, order.search));
  if (order.orderBy === 'name') all.sort((a, b) => a.name.localeCompare(b.name));
  // The repository lists newest first; the default order is updated desc.
  const descending = (order.sort ?? 'desc') === 'desc';
  if (order.orderBy === 'name' ? descending : !descending) all.reverse();
  return all;
}

export async function findTag(ctx: Context, project: ProjectWithNamespace, name: string): Promise<TagInfo | null> {
  return (await readableRepository(ctx, project)).tag(name);
}

export type TagInput = { name: string; ref: string; message?: string | null };

/**
 * Writes the tag at the commit `ref` names (GitLab's 400 when it names none); false when it
 * already existed (a concurrent writer won). The tagger is the viewer, so annotated tags record
 * who made them.
 */
async function writeTag(ctx: Context, project: ProjectWithNamespace, repository: Repository, input: TagInput): Promise<{ created: boolean; commitId: string }> {
  if (!isValidTagName(input.name)) throw new BadRequestError('Tag name invalid');
  const commitId = repository.resolveCommit(input.ref);
  if (!commitId) throw new BadRequestError(`Target ${input.ref} is invalid`);
  const user = ctx.viewer.user!;
  const created = await repository.createTag({ name: input.name, commitId, message: input.message || null, tagger: { name: user.name, email: user.email } });
  if (created)
    await announceRefChange(ctx.deps, {
      projectId: project.id,
      userId: user.id,
      ref: `refs/tags/${input.name}`,
      after: repository.tag(input.name)?.objectId ?? commitId,
    });
  return { created, commitId };
}

export async function createTag(ctx: Context, project: ProjectWithNamespace, input: TagInput): Promise<TagInfo> {
  await ctx.policy.requireProjectWrite(project, AccessLevel.DEVELOPER);
  const repository = await repositoryOf(ctx, project);
  if (repository.tag(input.name)) throw new BadRequestError(`Tag ${input.name} already exists`);
  const { created } = await writeTag(ctx, project, repository, input);
  if (!created) throw new BadRequestError(`Tag ${input.name} already exists`);
  return repository.tag(input.name)!;
}

/**
 * The commit of an existing tag, or of the tag created from `ref` for a new release. The caller
 * checked permissions; a tag created meanwhile by someone else is reused.
 */
export async function ensureTag(ctx: Context, project: ProjectWithNamespace, input: { name: string; ref?: string | null; message?: string | null }) {
  const repository = await repositoryOf(ctx, project);
  const existing = repository.tag(input.name);
  if (existing) return { commitId: existing.commitId, created: false };
  if (!input.ref) return null;
  return writeTag(ctx, project, repository, { name: input.name, ref: input.ref, message: input.message });
}

/** Whether the tag is still in the repository (a release outlives its deleted tag). */
export async function tagExists(ctx: Context, project: ProjectWithNamespace, name: string): Promise<boolean> {
  return (await repositoryOf(ctx, project)).tag(name) !== null;
}

/** Removes a tag written for a release whose row could not be saved. */
export async function removeTag(ctx: Context, project: ProjectWithNamespace, name: string) {
  const repository = await repositoryOf(ctx, project);
  const tag = repository.tag(name);
  if (!tag) return;
  await repository.deleteTag(tag);
  await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/tags/${name}`, before: tag.objectId });
}

/** Deletes the tag; its release, if any, is kept (GitLab does the same). */
export async function deleteTag(ctx: Context, project: ProjectWithNamespace, name: string): Promise<TagInfo> {
  await ctx.policy.requireProjectWrite(project, AccessLevel.DEVELOPER);
  const repository = await repositoryOf(ctx, project);
  const tag = repository.tag(name);
  if (!tag) throw new NotFoundError('Tag');
  await repository.deleteTag(tag);
  await announceRefChange(ctx.deps, { projectId: project.id, userId: ctx.viewer.userId, ref: `refs/tags/${name}`, before: tag.objectId });
  return tag;
}
