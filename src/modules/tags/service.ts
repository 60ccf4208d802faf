import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../graphql/context.ts';
import { BadRequestError, NotFoundError } from '../../graphql/errors.ts';
import * as tags from '../../git/tags.ts';
import type { TagInfo } from '../../git/tags.ts';

export type TagOrder = { orderBy?: 'name' | 'updated' | null; sort?: 'asc' | 'desc' | null; search?: string | null };

const repoDir = (ctx: Context, project: ProjectWithNamespace) => ctx.deps.git.pathFor(project.id);

/** GitLab's `search`: `^v` matches the start, `v$` the end, anything else a substring. */
function matches(name: string, search: string) {
  if (search.startsWith('^')) return name.startsWith(search.slice(1));
  if (search.endsWith('$')) return name.endsWith(search.slice(0, -1));
  return name.includes(search);
}

export async function listTags(ctx: Context, project: ProjectWithNamespace, order: TagOrder = {}): Promise<TagInfo[]> {
  await ctx.policy.requireReadCode(project);
  const all = (await tags.listTags(repoDir(ctx, project))).filter((t) => !order.search || matches(t.name, order.search));
  if (order.orderBy === 'name') all.sort((a, b) => a.name.localeCompare(b.name));
  // for-each-ref already gives newest first; the default order is updated desc.
  const descending = (order.sort ?? 'desc') === 'desc';
  if (order.orderBy === 'name' ? descending : !descending) all.reverse();
  return all;
}

export async function findTag(ctx: Context, project: ProjectWithNamespace, name: string): Promise<TagInfo | null> {
  await ctx.policy.requireReadCode(project);
  return tags.findTag(repoDir(ctx, project), name);
}

export type TagInput = { name: string; ref: string; message?: string | null };

/** The commit `ref` names, or GitLab's 400 for a target that does not resolve. */
async function targetCommit(ctx: Context, project: ProjectWithNamespace, ref: string): Promise<string> {
  const reader = await ctx.loaders.repository.load(project.id);
  const sha = reader.resolveCommit(ref);
  if (!sha) throw new BadRequestError(`Target ${ref} is invalid`);
  return sha;
}

/**
 * Writes the tag; false when it already existed (a concurrent writer won). The tagger is the
 * viewer, so annotated tags record who made them.
 */
async function writeTag(ctx: Context, project: ProjectWithNamespace, input: TagInput): Promise<{ created: boolean; commitId: string }> {
  if (!tags.isValidTagName(input.name)) throw new BadRequestError('Tag name invalid');
  const commitId = await targetCommit(ctx, project, input.ref);
  const user = ctx.viewer.user!;
  const created = await tags.createTag(repoDir(ctx, project), {
    name: input.name,
    commitId,
    message: input.message || null,
    tagger: { name: user.name, email: user.email },
  });
  return { created, commitId };
}

export async function createTag(ctx: Context, project: ProjectWithNamespace, input: TagInput): Promise<TagInfo> {
  await ctx.policy.requireProjectAccess(project, AccessLevel.DEVELOPER);
  if (await tags.findTag(repoDir(ctx, project), input.name)) throw new BadRequestError(`Tag ${input.name} already exists`);
  const { created } = await writeTag(ctx, project, input);
  if (!created) throw new BadRequestError(`Tag ${input.name} already exists`);
  return (await tags.findTag(repoDir(ctx, project), input.name))!;
}

/**
 * The commit of an existing tag, or of the tag created from `ref` for a new release. The caller
 * checked permissions; a tag created meanwhile by someone else is reused.
 */
export async function ensureTag(ctx: Context, project: ProjectWithNamespace, input: { name: string; ref?: string | null; message?: string | null }) {
  const existing = await tags.findTag(repoDir(ctx, project), input.name);
  if (existing) return { commitId: existing.commitId, created: false };
  if (!input.ref) return null;
  const { created, commitId } = await writeTag(ctx, project, { name: input.name, ref: input.ref, message: input.message });
  return { commitId, created };
}

/** Whether the tag is still in the repository (a release outlives its deleted tag). */
export async function tagExists(ctx: Context, project: ProjectWithNamespace, name: string): Promise<boolean> {
  return (await tags.findTag(repoDir(ctx, project), name)) !== null;
}

/** Removes a tag written for a release whose row could not be saved. */
export async function removeTag(ctx: Context, project: ProjectWithNamespace, name: string) {
  const tag = await tags.findTag(repoDir(ctx, project), name);
  if (tag) await tags.deleteTag(repoDir(ctx, project), tag);
}

/** Deletes the tag; its release, if any, is kept (GitLab does the same). */
export async function deleteTag(ctx: Context, project: ProjectWithNamespace, name: string): Promise<TagInfo> {
  await ctx.policy.requireProjectAccess(project, AccessLevel.DEVELOPER);
  const tag = await tags.findTag(repoDir(ctx, project), name);
  if (!tag) throw new NotFoundError('Tag');
  await tags.deleteTag(repoDir(ctx, project), tag);
  return tag;
}
