import { equalsIgnoringCase } from '../../core/input.ts';
import type { Namespace, Visibility } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { keysetOf } from '../../db/keyset.ts';
import {
  lockForRepositoryFacts,
  ORDER_COLUMNS,
  projectConditions,
  projectPages,
  projectSortKeys,
  readProject,
  storeRepositoryFacts,
  type ProjectKey,
  type ProjectWithLevels,
  type RepositoryFacts,
} from './store.ts';
import type { AppDeps } from '../../deps.ts';
import type { DomainEvents } from '../../core/events.ts';
import type { GitStore } from '../../git/store.ts';
import type { Listing } from '../../core/listing.ts';
import { BadRequestError, DomainError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { isValidBranchName } from '../../git/refs.ts';
import { REGULAR_FILE_MODE } from '../../git/repository.ts';
import { exceedsVisibility, pathFromName, pathProblems } from '../namespaces/paths.ts';
import { featureEnabled, flagActor } from '../../flags/index.ts';
import { languageShares, type LanguageShare } from './languages.ts';
import { avatarFile, removeAvatars, safeFileName, storeAvatar } from './avatars.ts';
import type { Upload } from '../../core/upload.ts';
import {
  EMAILS_DISABLED,
  FEATURE_FLAGS,
  featureFlagNames,
  SETTINGS,
  settingNames,
  setsAnySetting,
  settingsView,
  type Setting,
  type SettingValue,
  type SettingsView,
  type StoredSettings,
} from './settings.ts';

export type ProjectRef = { id?: number | null; fullPath?: string | null };

export const projectFullPath = (p: ProjectWithNamespace) => `${p.namespace.fullPath}/${p.path}`;

/** The file names GitLab takes for the README (`readme_url`), at the top of the default branch. */
const README = /^readme(\.[a-z0-9]+)?$/i;
/** The README a project created with `initialize_with_readme` starts with. */
const README_FILE = 'README.md';

/**
 * A project with its namespace, by id or by full path (compared case-insensitively, as GitLab
 * does), read with the signed-in viewer's levels in it and its group: the check that follows (a
 * private project's) and the answer's `permissions` then send no statement of their own
 * (GET /projects/:id as a member: one statement, not three).
 */
async function lookup(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace | null> {
  const key = projectKey(ref);
  const row = key && (await readProject(ctx, key));
  return row ? withLevels(ctx, row) : null;
}

/** Keeps the levels read with a project for the request's checks and `permissions`, and the project in the loaders. */
function withLevels(ctx: Context, row: ProjectWithLevels): ProjectWithNamespace {
  if (row.levels) {
    ctx.policy.knowLevels(row.project, row.levels);
    ctx.loaders.directProjectLevels.clear(row.project.id).prime(row.project.id, row.levels.direct ?? 0);
  }
  return remembered(ctx, row.project)!;
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
  /** The forks of this project. */
  forkedFromId?: number | null;
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
 * The projects the viewer may read, filtered: the page (with the viewer's levels in each) and the
 * count are one plain statement each over the pool, and the page's rows stay in the request's
 * project loader for the fields that read them again. The same statement text for a member of 10 projects or of 1,000
 * (test/visibility-sql.test.ts).
 */
export function listProjects(ctx: Context, filter: ProjectFilter): Listing<ProjectWithNamespace> {
  const pages = projectPages(ctx, projectConditions(ctx, filter), filter, ctx.countLimit);
  return {
    fetch: async (page) => (await pages.fetch(page)).map((row) => withLevels(ctx, row)),
    count: pages.count,
    keyset: keysetOf(projectSortKeys(filter.orderBy), async (seek) => (await pages.seek(seek)).map((row) => withLevels(ctx, row))),
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
  /** GitLab's plain-value settings by REST name (settings.ts). */
  settings?: Partial<SettingsView> | null;
  /** A new avatar (`PUT` only). */
  avatar?: Upload | null;
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

type NewProject = {
  namespace: Namespace;
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  defaultBranch: string;
  topics: string[];
  settings: object;
  forkedFromId?: number;
  emptyRepo?: boolean;
  readmePath?: string | null;
};

/**
 * The project row (with its creator's membership in a personal namespace) and then its bare
 * repository, made by `makeRepository`. A git failure removes the row again, so a project never
 * exists without its repository.
 */
async function persistProject(ctx: Context, data: NewProject, makeRepository: (project: ProjectWithNamespace) => Promise<void>) {
  const user = ctx.viewer.user!;
  const { namespace, ...columns } = data;
  const project = await ctx.db
    .$transaction(async (tx) => {
      const created = await tx.project.create({
        data: { ...columns, namespaceId: namespace.id, creatorId: user.id },
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
    await makeRepository(project);
  } catch (error) {
    await ctx.db.project.delete({ where: { id: project.id } });
    await ctx.deps.git.remove(project.id);
    throw error;
  }
  return project;
}

/** Creates the project and its bare repository (with a README commit when asked). */
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
  const settings = updatedSettings({}, input.settings ?? {});
  await assertFree(ctx, namespace.id, name, path);
  const data = {
    namespace,
    name,
    path,
    description: input.description ?? '',
    visibility,
    defaultBranch,
    topics: normalizedTopics(input.topics ?? []),
    settings,
    // The facts of the repository made below (a failure there removes the row again).
    emptyRepo: !input.initializeWithReadme,
    readmePath: input.initializeWithReadme ? README_FILE : null,
  };
  return persistProject(ctx, data, async (project) => {
    await ctx.deps.git.init(project.id, defaultBranch);
    if (!input.initializeWithReadme) return;
    const readme = `# ${name}\n\n${input.description ?? ''}\n`.replace(/\n\n\n$/, '\n');
    const author = { name: user.name, email: user.email, date: new Date() };
    // The branch must not exist yet, so the first commit never overwrites a concurrent first push.
    await (await ctx.loaders.repository.load(project.id)).writeCommit({
      branch: defaultBranch,
      parent: null,
      expectedTip: null,
      changes: [{ path: README_FILE, content: Buffer.from(readme), mode: REGULAR_FILE_MODE }],
      message: 'Initial commit',
      author,
      committer: author,
    });
  });
}

/**
 * The stored settings after an update given by any of the names (`null`/absent: unchanged),
 * checked against the table: a value outside a setting's choices or bounds is a 400 with
 * GitLab's validation body. A level given beside its boolean name wins, as GitLab applies the
 * `*_access_level` after the boolean.
 */
function updatedSettings(stored: unknown, changes: Partial<SettingsView>): StoredSettings {
  const next: StoredSettings = { ...((stored ?? {}) as StoredSettings) };
  const errors: Record<string, string[]> = {};
  const emailsDisabled = changes[EMAILS_DISABLED];
  if (typeof emailsDisabled === 'boolean' && changes.emails_enabled == null) next.emails_enabled = !emailsDisabled;
  for (const name of featureFlagNames) {
    const value = changes[name];
    if (typeof value === 'boolean') next[FEATURE_FLAGS[name]] = value ? 'enabled' : 'disabled';
  }
  for (const name of settingNames) {
    const value = changes[name];
    if (value === undefined || value === null) continue;
    const problem = problemOf(SETTINGS[name], value);
    if (problem) errors[name] = [problem];
    else next[name] = value;
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return next;
}

function problemOf(setting: Setting, value: SettingValue): string | null {
  switch (setting.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? null : 'is invalid';
    case 'choice':
      return typeof value === 'string' && setting.values.includes(value) ? null : 'is not included in the list';
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'is not a number';
      if (value < setting.min) return `must be greater than or equal to ${setting.min}`;
      return value > setting.max ? `must be less than or equal to ${setting.max}` : null;
    case 'string':
      return typeof value === 'string' && value.length <= 255 ? null : 'is too long (maximum is 255 characters)';
  }
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
  // python-gitlab's save() sends only what changed, a setting alone included (`snippets_enabled`).
  if (!setsAnySetting(input.settings) && !input.avatar) checkInput(rules.atLeastOneOf(input, UPDATABLE));
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, input.visibility && input.visibility !== project.visibility ? PROJECT_OWNER_LEVEL : PROJECT_ADMIN_LEVEL);
  validate(input, project.namespace.visibility, project.namespace.kind === 'group');
  const settings = input.settings ? updatedSettings(project.settings, input.settings) : undefined;
  const avatar = input.avatar ? checkedAvatar(input.avatar) : undefined;
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
  if (input.avatar && avatar) await storeAvatar(ctx.deps.config.dataDir, project.id, input.avatar, avatar);
  const updated = await ctx.db.project.update({
    where: { id: project.id },
    data: {
      name: input.name ?? undefined,
      path: input.path ?? undefined,
      description: input.description ?? undefined,
      visibility: input.visibility ?? undefined,
      defaultBranch: input.defaultBranch ?? undefined,
      topics: input.topics ? normalizedTopics(input.topics) : undefined,
      settings,
      avatar,
      lastActivityAt: new Date(),
    },
    include: { namespace: true },
  });
  // The README is looked up on the new default branch.
  const facts = updated.defaultBranch === project.defaultBranch ? null : await refreshRepositoryFacts(ctx.deps, project.id);
  return remembered(ctx, { ...updated, ...facts })!;
}

/** Deletes the project (Owners only); its repository is removed after the row. */
export async function deleteProject(ctx: Context, ref: ProjectRef): Promise<ProjectWithNamespace> {
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, PROJECT_OWNER_LEVEL);
  await ctx.db.project.delete({ where: { id: project.id } });
  ctx.loaders.project.clear(project.id);
  await ctx.deps.git.remove(project.id);
  await removeAvatars(ctx.deps.config.dataDir, project.id);
  return project;
}

/** GitLab's avatar limit and formats. */
const AVATAR_MAX_BYTES = 200 * 1024;
const AVATAR_FORMATS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];

/** The avatar's path-safe file name, once its size and format pass GitLab's checks. */
function checkedAvatar(upload: Upload): string {
  const fileName = safeFileName(upload.filename);
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
  if (!fileName.includes('.') || !AVATAR_FORMATS.includes(extension)) {
    throw new ValidationError({ avatar: [`file format is not supported. Please try one of the following supported formats: ${AVATAR_FORMATS.join(', ')}`] });
  }
  if (upload.size > AVATAR_MAX_BYTES) throw new ValidationError({ avatar: ['is too big (should be at most 200 KiB)'] });
  return fileName;
}

/** Where the project's avatar is served (GitLab's upload path), null without one. */
export const projectAvatarUrl = (ctx: Context, project: ProjectWithNamespace) =>
  project.avatar ? `${ctx.deps.config.externalUrl}/uploads/-/system/project/avatar/${project.id}/${project.avatar}` : null;

const AVATAR_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
};

/** The project's avatar for a viewer who may see the project, by the name its URL carries; 404 otherwise. */
export async function openAvatar(ctx: Context, projectId: number, fileName: string) {
  const project = await requireProject(ctx, { id: projectId });
  if (!project.avatar || project.avatar !== fileName) throw new NotFoundError();
  const path = avatarFile(ctx.deps.config.dataDir, project.id, project.avatar);
  const extension = project.avatar.slice(project.avatar.lastIndexOf('.') + 1).toLowerCase();
  return { path, contentType: AVATAR_TYPES[extension] ?? 'application/octet-stream' };
}

/** GitLab answers 304 Not Modified, without a body, to a star or unstar that changes nothing. */
export class NotModifiedError extends DomainError {
  constructor(message: string) {
    super('NOT_MODIFIED', 304, {}, message);
  }
}

/** Re-reads a project after a write the row does not carry back (a trigger's count, a new namespace). */
async function reread(ctx: Context, id: number): Promise<ProjectWithNamespace> {
  ctx.loaders.project.clear(id);
  return (await lookup(ctx, { id }))!;
}

/**
 * Stars or unstars the project for the viewer (anyone who may read it); a star already given, or
 * one never given, is a NotModifiedError. `star_count` follows through the table's trigger.
 */
export async function setStar(ctx: Context, ref: ProjectRef, starred: boolean): Promise<ProjectWithNamespace> {
  const user = ctx.viewer.user;
  if (!user) throw new UnauthorizedError();
  const project = await requireProject(ctx, ref);
  const key = { userId: user.id, projectId: project.id };
  const changed = starred
    ? (await ctx.db.projectStar.createMany({ data: [key], skipDuplicates: true })).count
    : (await ctx.db.projectStar.deleteMany({ where: key })).count;
  if (!changed) throw new NotModifiedError(starred ? 'The project is already starred' : 'The project is not starred');
  return reread(ctx, project.id);
}

/** Who archives and unarchives a project (GitLab's archive_project). */
export const PROJECT_ARCHIVE_LEVEL = AccessLevel.MAINTAINER;

/** Archives or unarchives the project; an archived project's content refuses writes (Policy.requireProjectWrite). */
export async function setArchived(ctx: Context, ref: ProjectRef, archived: boolean): Promise<ProjectWithNamespace> {
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, PROJECT_ARCHIVE_LEVEL);
  if (project.archived === archived) return project;
  const updated = await ctx.db.project.update({ where: { id: project.id }, data: { archived }, include: { namespace: true } });
  return remembered(ctx, updated)!;
}

/** A namespace by id or full path, for a use case that names one (a fork's or a transfer's target). */
export type NamespaceChoice = { namespaceId?: number | null; namespacePath?: string | null };

async function chosenNamespaceId(ctx: Context, choice: NamespaceChoice): Promise<number | null> {
  if (choice.namespaceId != null) return choice.namespaceId;
  if (choice.namespacePath == null) return null;
  const found = await ctx.db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(choice.namespacePath) }, select: { id: true } });
  if (!found) throw new NotFoundError('Namespace');
  return found.id;
}

/** The most a fork may show: its source's visibility, and no more than its group's. */
function forkVisibility(source: Visibility, wanted: Visibility | null | undefined, namespace: Namespace): Visibility {
  const order: Visibility[] = ['private', 'internal', 'public'];
  const limits = [source, ...(namespace.kind === 'group' ? [namespace.visibility] : [])];
  const ceiling = order[Math.min(...limits.map((v) => order.indexOf(v)))]!;
  if (wanted && exceedsVisibility(wanted, ceiling))
    throw new ValidationError({ visibility_level: [`${wanted} is not allowed since the fork source project has lower visibility.`] });
  return wanted ?? ceiling;
}

export type ForkInput = NamespaceChoice & { name?: string | null; path?: string | null; description?: string | null; visibility?: Visibility | null };

/** What GitLab answers when the fork's name or path is taken in the target namespace: 409 with the validation messages. */
class ForkConflictError extends DomainError {
  constructor(messages: Record<string, string[]>) {
    super(
      'CONFLICT',
      409,
      { message: messages },
      Object.entries(messages)
        .map(([k, v]) => `${k} ${v.join(', ')}`)
        .join('; '),
    );
  }
}

/**
 * Forks the project into a namespace the viewer may create projects in (their own by default):
 * a new project that records its source, with a copy of the source's repository (every branch
 * and tag). Forking needs the source's code (GitLab's fork_project) and its forking feature on.
 */
export async function forkProject(ctx: Context, ref: ProjectRef, input: ForkInput): Promise<ProjectWithNamespace> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const source = await requireProject(ctx, ref);
  if (!(await ctx.policy.canReadCode(source)) || settingsView(source.settings).forking_access_level === 'disabled') throw new ForbiddenError();
  const namespace = await targetNamespace(ctx, await chosenNamespaceId(ctx, input));
  const name = input.name ?? source.name;
  const path = input.path ?? source.path;
  validate({ name, path }, null, false);
  await assertFree(ctx, namespace.id, name, path).catch((error) => {
    throw error instanceof ValidationError ? new ForkConflictError(error.fields) : error;
  });
  const data = {
    namespace,
    name,
    path,
    description: input.description ?? source.description,
    visibility: forkVisibility(source.visibility, input.visibility, namespace),
    defaultBranch: source.defaultBranch,
    topics: source.topics,
    settings: source.settings as object,
    forkedFromId: source.id,
  };
  const fork = await persistProject(ctx, data, async (created) => {
    // A rollout (config/feature_flags/experiment): objects hard-linked instead of copied.
    const hardLinks = await featureEnabled(ctx.deps, 'fork_hardlinked_objects_experiment_percentage', flagActor('Project', source.id));
    await ctx.deps.git.fork(source.id, created.id, { hardLinks });
    await refreshRepositoryFacts(ctx.deps, created.id);
  });
  return reread(ctx, fork.id);
}

/** The project a fork was made from, when the viewer may read it. */
export async function forkedFrom(ctx: Context, project: ProjectWithNamespace): Promise<ProjectWithNamespace | null> {
  if (project.forkedFromId == null) return null;
  const source = await ctx.loaders.project.load(project.forkedFromId);
  return source && (await ctx.policy.canReadProject(source)) ? source : null;
}

/**
 * Moves the project to another namespace (Owners, into a namespace they may create projects in);
 * its repository stays where it is (repositories are kept by project id).
 */
export async function transferProject(ctx: Context, ref: ProjectRef, target: NamespaceChoice): Promise<ProjectWithNamespace> {
  const project = await requireProject(ctx, ref);
  await ctx.policy.requireProjectAccess(project, PROJECT_OWNER_LEVEL);
  const namespaceId = await chosenNamespaceId(ctx, target);
  if (namespaceId == null) throw new BadRequestError('namespace is missing');
  const namespace = await targetNamespace(ctx, namespaceId);
  const refuse = (problem: string) => new BadRequestError(`Failed to transfer project {:namespace=>["${problem}"]}`);
  if (namespace.id === project.namespaceId) throw refuse('Project is already in this namespace.');
  if (namespace.kind === 'group' && exceedsVisibility(project.visibility, namespace.visibility)) {
    throw refuse(`Project visibility is ${project.visibility}, higher than the target group's (${namespace.visibility})`);
  }
  await assertFree(ctx, namespace.id, project.name, project.path).catch((error) => {
    throw error instanceof ValidationError ? refuse('Project with same name or path in target namespace already exists') : error;
  });
  await ctx.db.project.update({ where: { id: project.id }, data: { namespaceId: namespace.id, lastActivityAt: new Date() } });
  return reread(ctx, project.id);
}

/** The groups a project is in (its namespace and the groups above it) that the viewer may read, nearest last; `search` matches their name or path. */
export async function projectGroups(ctx: Context, project: ProjectWithNamespace, search?: string | null): Promise<Namespace[]> {
  if (project.namespace.kind !== 'group') return [];
  const groups = (await Promise.all(project.namespace.traversalIds.map((id) => ctx.loaders.namespace.load(id)))).filter((g): g is Namespace => !!g);
  const needle = search?.toLowerCase();
  const readable = await Promise.all(groups.map((g) => ctx.policy.canReadNamespace(g)));
  return groups.filter((g, i) => readable[i] && (!needle || g.name.toLowerCase().includes(needle) || g.path.toLowerCase().includes(needle)));
}

/** Files read at most for the languages of one repository: beyond, the shares are of these. */
const LANGUAGE_FILES_MAX = 20_000;

/** The languages of the default branch's files by their share of bytes (GitLab's languages); the viewer must read code. */
export async function projectLanguages(ctx: Context, project: ProjectWithNamespace): Promise<LanguageShare[]> {
  if (!(await ctx.policy.canReadCode(project))) return [];
  const repository = await ctx.loaders.repository.load(project.id);
  const tip = repository.branchTip(project.defaultBranch);
  if (!tip) return [];
  return languageShares((await repository.fileSizes(tip)).slice(0, LANGUAGE_FILES_MAX));
}

/** Where the project's repository is kept (GitLab's project storage); administrators only. */
export function projectStorage(ctx: Context, project: ProjectWithNamespace) {
  ctx.policy.requireAdmin();
  return { projectId: project.id, diskPath: `repositories/${project.id}.git`, createdAt: project.createdAt, repositoryStorage: 'default' };
}

/**
 * The viewer's access levels (REST's `permissions`), as GitLab's: their own membership of the
 * project, and their level in its group (through it or a group above); null where none.
 */
export async function viewerAccess(ctx: Context, project: ProjectWithNamespace) {
  const [projectLevel, groupLevel] = await Promise.all([
    ctx.viewer.user ? ctx.loaders.directProjectLevels.load(project.id) : 0,
    ctx.policy.groupMembershipLevel(project.namespace),
  ]);
  const access = (level: number) => (level > 0 ? { accessLevel: level } : null);
  return { projectAccess: access(projectLevel), groupAccess: access(groupLevel) };
}

/**
 * Reads what a project answer shows of its repository (no branch yet: `empty_repo`; the README at
 * the top of the default branch) and keeps it on the project's row, so that a page of projects
 * opens no repository. Called once a ref change has landed: by every push event (API writes and
 * git pushes, `onBranchPush`) and by the writes that announce no push (a project's first commit,
 * a fork, a bundle import, a new default branch). Null when the project is gone.
 */
export function refreshRepositoryFacts(deps: Pick<AppDeps, 'db' | 'git'>, projectId: number): Promise<RepositoryFacts | null> {
  return deps.db.$transaction(async (tx) => {
    const defaultBranch = await lockForRepositoryFacts(tx, projectId);
    if (defaultBranch == null) return null;
    const facts = await readRepositoryFacts(deps.git, projectId, defaultBranch);
    await storeRepositoryFacts(tx, projectId, facts);
    return facts;
  });
}

async function readRepositoryFacts(git: GitStore, projectId: number, defaultBranch: string): Promise<RepositoryFacts> {
  // A repository missing from the storage counts as empty, as GitLab's does.
  const repository = await git.open(projectId).catch(() => null);
  if (!repository?.hasBranches()) return { emptyRepo: true, readmePath: null };
  const tip = repository.branchTip(defaultBranch);
  const readme = tip ? repository.listTree(tip, '')?.find((e) => e.type === 'blob' && README.test(e.name)) : undefined;
  return { emptyRepo: false, readmePath: readme?.name ?? null };
}

/** A branch created, moved or deleted, through the API or a git push: the row's repository facts follow. Tags change neither. */
export async function onBranchPush(event: DomainEvents['push'], deps: AppDeps): Promise<void> {
  if (event.ref.startsWith('refs/heads/')) await refreshRepositoryFacts(deps, event.projectId);
}

/** The facts kept on the row; a row older than the columns reads its repository once, and keeps them. */
async function repositoryFacts(ctx: Context, project: ProjectWithNamespace): Promise<RepositoryFacts> {
  if (project.emptyRepo != null) return { emptyRepo: project.emptyRepo, readmePath: project.readmePath };
  return (await ctx.loaders.repositoryFacts.load(project.id)) ?? { emptyRepo: true, readmePath: null };
}

/** Whether the project's repository has no branch yet (REST's `empty_repo`, shown to everyone who sees the project). */
export async function isEmptyRepository(ctx: Context, project: ProjectWithNamespace): Promise<boolean> {
  return (await repositoryFacts(ctx, project)).emptyRepo;
}

/** The web address of the README at the top of the default branch (GitLab's `readme_url`), null without one. */
export async function readmeUrl(ctx: Context, project: ProjectWithNamespace): Promise<string | null> {
  const { readmePath } = await repositoryFacts(ctx, project);
  return readmePath ? `${ctx.deps.config.externalUrl}/${projectFullPath(project)}/-/blob/${project.defaultBranch}/${readmePath}` : null;
}
