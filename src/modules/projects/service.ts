import { equalsIgnoringCase } from '../../core/input.ts';
import type { Visibility } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { ORDER_COLUMNS, projectConditions, projectPages, readProject, type ProjectKey } from './store.ts';
import type { Listing } from '../../core/listing.ts';
import { BadRequestError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { isValidBranchName } from '../../git/refs.ts';
import { REGULAR_FILE_MODE } from '../../git/repository.ts';
import { exceedsVisibility, pathFromName, pathProblems } from '../namespaces/paths.ts';

export type ProjectRef = { id?: number | null; fullPath?: string | null };

export const projectFullPath = (p: ProjectWithNamespace) => `${p.namespace.fullPath}/${p.path}`;

/**
 * A project with its namespace, by id or by full path (compared case-insensitively, as GitLab
 * does), read with the viewer's level in it where the policy reads levels from memberships: the
 * check that follows (a private project's) then sends no statement of its own (GET /projects/:id
 * as a member: one statement, not two).
 */
async function lookup(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace | null> {
  const key = projectKey(ref);
  const row = key && (await readProject(ctx, key));
  if (!row) return null;
  if (row.viewerLevel !== undefined) ctx.policy.knowProjectLevel(row.project.id, row.viewerLevel);
  return remembered(ctx, row.project);
}

function projectKey(ref: ProjectRef): ProjectKey | null {
  if (ref.id != null) return { id: ref.id };
  const slash = ref.fullPath?.lastIndexOf('/') ?? -1;
  if (!ref.fullPath || slash < 1) return null;
  return { namespacePath: ref.fullPath.slice(0, slash), path: ref.fullPath.slice(slash + 1) };
}

/**
 * The request's loaders keep the project and namespace rows it has read: the fields below a
 * project (a release list's project facts, a group milestone's path) load them by id, which
 * otherwise read both rows again (2 of the 12 statements of a page of releases).
 */
function remembered(ctx: Context, project: ProjectWithNamespace | null) {
  if (project) {
    ctx.loaders.project.clear(project.id).prime(project.id, project);
    ctx.loaders.namespace.clear(project.namespaceId).prime(project.namespaceId, project.namespace);
  }
  return project;
}

/**
 * A project by full path whatever the viewer: for callers that authorise by a key of the project
 * (alert endpoints), not by a user.
 */
export const projectByFullPath = (ctx: Context, fullPath: string) => lookup(ctx, { fullPath });

/** A project the viewer may read, by id or full path; null otherwise (REST answers 404). */
export async function findProject(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace | null> {
  const project = await lookup(ctx, ref);
  if (!project) return null;
  return (await ctx.policy.canReadProject(project)) ? project : null;
}

export async function requireProject(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace> {
  const project = await findProject(ctx, ref);
  if (!project) throw new NotFoundError('Project');
  return project;
}

/**
 * A project by id whose code the viewer may read: for bytes served after the operation that found
 * them (raw files, archives), which check the viewer again so that no caller reaches content by id.
 */
export async function requireCodeOfProject(ctx: Context, projectId: number): Promise<ProjectWithNamespace> {
  const project = await ctx.loaders.project.load(projectId);
  if (!project) throw new NotFoundError('Project');
  await ctx.policy.requireReadCode(project);
  return project;
}

export type ProjectFilter = {
  ids?: number[] | null;
  search?: string | null;
  /** `search` also matches the namespace's full path. */
  searchNamespaces?: boolean | null;
  membership?: boolean | null;
  owned?: boolean | null;
  visibility?: Visibility | null;
  orderBy?: 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | null;
  sort?: 'asc' | 'desc' | null;
  namespaceId?: number | null;
  includeSubgroups?: boolean | null;
};

type ProjectOrder = NonNullable<ProjectFilter['orderBy']>;

// GitLab's names for the same orders (`sort: "latest_activity_desc"`).
const SORT_ALIASES: Record<string, ProjectOrder> = { created: 'created_at', updated: 'updated_at', latest_activity: 'last_activity_at' };

/**
 * GitLab's GraphQL `sort: String` (`<field>_<direction>`, e.g. `id_desc`, `name_asc`) as an order;
 * anything else is GitLab's default, `id_desc`, as GitLab's finder falls back to it.
 */
export function projectSort(sort: string | null | undefined): { orderBy: ProjectOrder; sort: 'asc' | 'desc' } {
  const match = /^([a-z_]+)_(asc|desc)$/.exec(sort ?? '');
  const field = match && (SORT_ALIASES[match[1]!] ?? (match[1]! in ORDER_COLUMNS ? (match[1] as ProjectOrder) : null));
  return field ? { orderBy: field, sort: match[2] as 'asc' | 'desc' } : { orderBy: 'id', sort: 'desc' };
}

/**
 * The projects the viewer may read, filtered: the page and the count are one plain statement each
 * over the pool, and the page's rows stay in the request's project loader for the fields that read
 * them again. The same statement text for a member of 10 projects or of 1,000
 * (test/visibility-sql.test.ts).
 */
export function listProjects(ctx: Context, filter: ProjectFilter): Listing<ProjectWithNamespace> {
  const pages = projectPages(ctx.deps.sql, projectConditions(ctx, filter), filter, ctx.countLimit);
  return {
    fetch: async (page) => {
      const projects = await pages.fetch(page);
      for (const project of projects) remembered(ctx, project);
      return projects;
    },
    count: pages.count,
  };
}

export type ProjectInput = {
  name?: string | null;
  path?: string | null;
  namespaceId?: number | null;
  description?: string | null;
  visibility?: Visibility | null;
  defaultBranch?: string | null;
  initializeWithReadme?: boolean | null;
  topics?: string[] | null;
};

const TOPIC_MAX = 255;

/**
 * Topics as GitLab keeps them: trimmed, blanks dropped, the first spelling of names that differ
 * only in case kept, in the order given.
 */
function normalizedTopics(topics: string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const topic of topics.map((t) => t.trim()).filter(Boolean)) {
    if (seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    kept.push(topic);
  }
  return kept;
}

async function targetNamespace(ctx: Context, namespaceId: number | null | undefined) {
  const user = ctx.viewer.user!;
  if (namespaceId == null) return ctx.db.namespace.findUniqueOrThrow({ where: { ownerId: user.id } });
  const namespace = await ctx.loaders.namespace.load(namespaceId);
  if (!namespace || !(await ctx.policy.canReadNamespace(namespace))) throw new NotFoundError('Namespace');
  if (namespace.kind === 'group') await ctx.policy.requireGroupAccess(namespace, AccessLevel.MAINTAINER);
  else if ((await ctx.policy.groupAccessLevel(namespace)) < AccessLevel.OWNER) throw new NotFoundError('Namespace');
  return namespace;
}

function validate(input: ProjectInput, namespaceVisibility: Visibility | null, isGroup: boolean) {
  const errors: Record<string, string[]> = {};
  if (input.name != null && input.name.trim() === '') errors.name = ["can't be blank"];
  if (input.path != null) {
    const problems = pathProblems(input.path);
    if (problems.length) errors.path = problems;
  }
  if (input.defaultBranch != null && !isValidBranchName(input.defaultBranch)) errors.default_branch = ['is invalid'];
  if (input.topics?.some((t) => t.trim().length > TOPIC_MAX)) errors.topics = [`is too long (maximum is ${TOPIC_MAX} characters)`];
  if (input.visibility && namespaceVisibility && isGroup && exceedsVisibility(input.visibility, namespaceVisibility)) {
    errors.visibility_level = [`${input.visibility} is not allowed in a ${namespaceVisibility} group.`];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

async function assertFree(ctx: Context, namespaceId: number, name: string, path: string, exceptId?: number) {
  const clash = await ctx.db.project.findMany({
    where: {
      namespaceId,
      ...(exceptId && { NOT: { id: exceptId } }),
      OR: [{ path: equalsIgnoringCase(path) }, { name: equalsIgnoringCase(name) }],
    },
    select: { name: true, path: true },
  });
  const errors: Record<string, string[]> = {};
  if (clash.some((c) => c.name.toLowerCase() === name.toLowerCase())) errors.name = ['has already been taken'];
  if (clash.some((c) => c.path.toLowerCase() === path.toLowerCase())) errors.path = ['has already been taken'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/**
 * Creates the project row and its bare repository (with a README commit when asked). A git
 * failure removes the row again, so a project never exists without its repository.
 */
export async function createProject(ctx: Context, input: ProjectInput): Promise<ProjectWithNamespace> {
  const user = ctx.viewer.user;
  if (!user) throw new UnauthorizedError();
  checkInput(rules.atLeastOneOf(input, { name: 'name', path: 'path' }));
  const namespace = await targetNamespace(ctx, input.namespaceId);
  const name = (input.name ?? input.path)!;
  const path = input.path ?? pathFromName(name);
  const visibility = input.visibility ?? 'private';
  const defaultBranch = input.defaultBranch ?? 'main';
  validate({ ...input, name, path, visibility, defaultBranch }, namespace.visibility, namespace.kind === 'group');
  await assertFree(ctx, namespace.id, name, path);

  const project = await ctx.db
    .$transaction(async (tx) => {
      const created = await tx.project.create({
        data: {
          name,
          path,
          namespaceId: namespace.id,
          description: input.description ?? '',
          visibility,
          defaultBranch,
          creatorId: user.id,
          topics: normalizedTopics(input.topics ?? []),
        },
        include: { namespace: true },
      });
      if (namespace.kind === 'user') {
        await tx.member.create({ data: { userId: user.id, projectId: created.id, accessLevel: AccessLevel.OWNER, createdById: user.id } });
      }
      return created;
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ValidationError({ path: ['has already been taken'] });
      throw error;
    });

  try {
    await ctx.deps.git.init(project.id, defaultBranch);
    if (input.initializeWithReadme) {
      const readme = `# ${name}\n\n${input.description ?? ''}\n`.replace(/\n\n\n$/, '\n');
      const author = { name: user.name, email: user.email, date: new Date() };
      // The branch must not exist yet, so the first commit never overwrites a concurrent first push.
      await (await ctx.loaders.repository.load(project.id)).writeCommit({
        branch: defaultBranch,
        parent: null,
        expectedTip: null,
        changes: [{ path: 'README.md', content: Buffer.from(readme), mode: REGULAR_FILE_MODE }],
        message: 'Initial commit',
        author,
        committer: author,
      });
    }
  } catch (error) {
    await ctx.db.project.delete({ where: { id: project.id } });
    await ctx.deps.git.remove(project.id);
    throw error;
  }
  return project;
}

const UPDATABLE = {
  name: 'name',
  path: 'path',
  description: 'description',
  visibility: 'visibility',
  defaultBranch: 'default_branch',
  topics: 'topics',
} as const;

/** Who edits a project's settings (GitLab's admin_project, rename_project). */
export const PROJECT_ADMIN_LEVEL = AccessLevel.MAINTAINER;
/** Who changes its visibility and deletes it (change_visibility_level, remove_project). */
export const PROJECT_OWNER_LEVEL = AccessLevel.OWNER;

/** Maintainers edit settings; only Owners change visibility. */
export async function updateProject(ctx: Context, ref: ProjectRef, input: ProjectInput): Promise<ProjectWithNamespace> {
  checkInput(rules.atLeastOneOf(input, UPDATABLE));
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, input.visibility && input.visibility !== project.visibility ? PROJECT_OWNER_LEVEL : PROJECT_ADMIN_LEVEL);
  validate(input, project.namespace.visibility, project.namespace.kind === 'group');
  if (input.name != null || input.path != null) {
    await assertFree(ctx, project.namespaceId, input.name ?? project.name, input.path ?? project.path, project.id);
  }
  if (input.defaultBranch != null && input.defaultBranch !== project.defaultBranch) {
    const repository = await ctx.loaders.repository.load(project.id);
    // An empty repository may name any default branch; its first push creates it.
    if (repository.hasBranches() && !repository.branchTip(input.defaultBranch)) {
      throw new BadRequestError(`Could not change HEAD: branch '${input.defaultBranch}' does not exist`);
    }
    await repository.setHead(input.defaultBranch);
  }
  const updated = await ctx.db.project.update({
    where: { id: project.id },
    data: {
      name: input.name ?? undefined,
      path: input.path ?? undefined,
      description: input.description ?? undefined,
      visibility: input.visibility ?? undefined,
      defaultBranch: input.defaultBranch ?? undefined,
      topics: input.topics ? normalizedTopics(input.topics) : undefined,
      lastActivityAt: new Date(),
    },
    include: { namespace: true },
  });
  return remembered(ctx, updated)!;
}

/** Deletes the project (Owners only); its repository is removed after the row. */
export async function deleteProject(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace> {
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, PROJECT_OWNER_LEVEL);
  await ctx.db.project.delete({ where: { id: project.id } });
  ctx.loaders.project.clear(project.id);
  await ctx.deps.git.remove(project.id);
  return project;
}
