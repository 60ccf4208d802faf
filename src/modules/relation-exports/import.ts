import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { EpicState, MilestoneState, Namespace, Prisma, RelationImport, ReleaseLinkType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, ForbiddenError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { findUnstorableText, isStorableDate, MAX_ID, MAX_YEAR, MIN_YEAR } from '../../core/input.ts';
import { nextIids, reserveIid } from '../../core/store.ts';
import { readSettings, type ApplicationSettings } from '../../core/settings.ts';
import { SpooledUpload, type Upload } from '../../core/upload.ts';
import { isValidTagName } from '../../git/tags.ts';
import { GitBundleError } from '../../git/store.ts';
import { normalizeColor } from '../labels/service.ts';
import { linkProblems, normalizeFilepath, type LinkRow } from '../releases/links.ts';
import { ContributorMapper, type SourceContributor } from '../import-source-users/service.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';
import { refreshRepositoryFacts } from '../projects/service.ts';
import { readNdjsonGzip, RelationFileError, type NdjsonLimits } from './files.ts';
import { emojiNamed } from '../epics/award-emoji.ts';
import {
  epicParentGroupId,
  epicParentIid,
  labelPriority,
  labelTitle,
  linkedLabelTitles,
  recordAuthor,
  releaseMilestoneTitles,
  releaseTag,
} from './gitlab-format.ts';
import { ownDates } from '../epics/service.ts';
import type { GROUP_RELATIONS, ProjectRelation } from './relations.ts';

/** The relations a file of which imports into a project (members come with a group migration). */
const IMPORTABLE = ['self', 'labels', 'milestones', 'releases', 'repository_bundle', 'project_members'] as const satisfies readonly ProjectRelation[];
type Relation = (typeof IMPORTABLE)[number];
const isRelation = (value: string): value is Relation => (IMPORTABLE as readonly string[]).includes(value);

/** Objects created per transaction while importing, and their bytes in the file: bound memory and lock time. */
const CHUNK = 200;
const CHUNK_BYTES = 8 * 1024 * 1024;

export type RelationImportResult = RelationImport & { projectPath: string };

const str = (value: unknown): string | null => (typeof value === 'string' ? value : value == null ? null : String(value));
const date = (value: unknown): Date | null => {
  if (typeof value !== 'string') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
};

const MIB = 1024 * 1024;
const fileLimits = (settings: ApplicationSettings): NdjsonLimits => ({
  decompressedBytes: settings.maxDecompressedArchiveSize * MIB,
  rowBytes: settings.maxImportNdjsonRowSize * MIB,
  rows: settings.maxImportNdjsonRows,
});

/**
 * `POST /projects/import-relation`: reads one relation file (as an export wrote it) into a project
 * the viewer maintains. Records are matched by their natural key (label name, milestone title,
 * release tag), so importing a file twice creates nothing the second time. Every contributor named
 * by a record goes through the ContributorMapper (an existing member, or a placeholder user).
 * The instance setting that allows relation exports allows imports too; while it is off, GitLab's
 * import API answers 403 to everyone. A file is read within the instance's limits.
 */
export async function importRelation(ctx: Context, input: ParentInput, relationName: string, file: Upload): Promise<RelationImportResult> {
  const settings = await readSettings(ctx.db);
  if (!settings.bulkImportEnabled) throw new ForbiddenError();
  if (!isRelation(relationName)) throw new ParamError('relation does not have a valid value');
  const relation: Relation = relationName;
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const project = await resolveProject(ctx, input);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  const record = await ctx.db.relationImport.create({ data: { projectId: project.id, userId: ctx.viewer.user.id, relation } });
  const finish = (data: Prisma.RelationImportUpdateInput) => ctx.db.relationImport.update({ where: { id: record.id }, data });
  let count: number;
  try {
    count =
      relation === 'repository_bundle' ? await importBundle(ctx, project, file) : await importProjectNdjson(ctx, project, relation, file, fileLimits(settings));
  } catch (error) {
    const known = error instanceof RelationFileError || error instanceof GitBundleError;
    await finish({ status: 'failed', error: (error as Error).message.slice(0, 255) });
    if (known) throw new BadRequestError(`The relation file could not be imported: ${(error as Error).message}`);
    throw error;
  }
  const done = await finish({ status: 'finished', objectsCount: count });
  return { ...done, projectPath: `${project.namespace.fullPath}/${project.path}` };
}

async function importBundle(ctx: Context, project: ProjectWithNamespace, file: Upload): Promise<number> {
  if (file.size === 0) return 0;
  // git reads a bundle from a file: a REST upload already is one; a GraphQL one is spooled first.
  let bundle = file instanceof SpooledUpload ? file.path : null;
  const spooled = bundle ? null : path.join(ctx.deps.config.dataDir, 'tmp', `bundle-${randomUUID()}`);
  try {
    if (spooled) {
      await fsp.mkdir(path.dirname(spooled), { recursive: true, mode: 0o700 });
      await pipeline(file.stream(), fs.createWriteStream(spooled, { mode: 0o600 }));
      bundle = spooled;
    }
    await ctx.deps.git.fetchBundle(project.id, bundle!);
    // The bundle's branches land without a push event.
    await refreshRepositoryFacts(ctx.deps, project.id);
    return 1;
  } finally {
    if (spooled) await fsp.rm(spooled, { force: true });
  }
}

type Row = Record<string, unknown>;

type NdjsonRelation = Exclude<Relation, 'repository_bundle'>;
/** The relations of a group a file of which imports (GitLab's group tree, `self` aside: the group is created from the source's API). */
export type GroupFileRelation = Exclude<(typeof GROUP_RELATIONS)[number], 'self'>;
type FileRelation = NdjsonRelation | GroupFileRelation;

function importProjectNdjson(ctx: Context, project: ProjectWithNamespace, relation: NdjsonRelation, file: Upload, limits: NdjsonLimits): Promise<number> {
  const mapper = new ContributorMapper(ctx, project);
  return importNdjson(file, limits, relation, (rows) => IMPORTERS[relation](ctx, project, rows, mapper));
}

/** An imported epic's parent as its record names it: by iid, in the source group `parentGroupId` (null: the epic's own). */
export type EpicParentRef = { childIid: number; parentIid: number; parentGroupId: number | null };

/**
 * One relation file of a group (a direct transfer's group pipelines): members, labels, milestones,
 * epics. As a project's, records are matched by their natural key (a label's title, a
 * milestone's, an epic's iid, kept from the source), so a re-run after a crash creates nothing
 * twice. Epics' parents are returned, not linked: a parent may come in a later batch or live in
 * another group of the migration, so the caller links them once both exist.
 */
export async function importGroupRelation(
  ctx: Context,
  group: Namespace,
  relation: GroupFileRelation,
  file: Upload,
): Promise<{ count: number; epicParents: EpicParentRef[] }> {
  const limits = fileLimits(await readSettings(ctx.db));
  const mapper = new ContributorMapper(ctx, { namespace: group });
  const owner = { groupId: group.id };
  const epicParents: EpicParentRef[] = [];
  const read = (importChunk: (rows: Row[]) => Promise<void>) => importNdjson(file, limits, relation, importChunk);
  let count: number;
  switch (relation) {
    case 'members':
      count = await read((rows) =>
        importMembers(rows, mapper, (data) => ctx.db.member.createMany({ data: data.map((m) => ({ ...m, namespaceId: group.id })), skipDuplicates: true })),
      );
      break;
    case 'labels':
      count = await read((rows) => importLabels(ctx, owner, rows));
      break;
    case 'milestones':
      count = await read((rows) => importMilestones(ctx, owner, rows));
      break;
    case 'epics':
      count = await read((rows) => importEpics(ctx, group, rows, mapper, epicParents));
      break;
  }
  return { count, epicParents };
}

/** Reads a relation file in chunks, each handed to `importChunk`: the number of records. */
async function importNdjson(file: Upload, limits: NdjsonLimits, relation: FileRelation, importChunk: (rows: Row[]) => Promise<void>): Promise<number> {
  let chunk: Row[] = [];
  let chunkBytes = 0;
  let count = 0;
  const flush = async () => {
    if (chunk.length) await importChunk(chunk);
    count += chunk.length;
    chunk = [];
    chunkBytes = 0;
  };
  for await (const { line, bytes, record } of readNdjsonGzip(file.stream(), limits)) {
    const problem = unstorable(relation, record);
    if (problem) throw new RelationFileError(`Line ${line}: ${problem}`);
    chunk.push(record);
    chunkBytes += bytes;
    if (chunk.length >= CHUNK || chunkBytes >= CHUNK_BYTES) await flush();
  }
  await flush();
  return count;
}

/** Date fields of each relation: PostgreSQL stores years 1 to 9999 only. */
const DATES: Partial<Record<FileRelation, string[]>> = {
  milestones: ['start_date', 'due_date'],
  releases: ['released_at', 'created_at'],
  epics: ['start_date_fixed', 'due_date_fixed', 'created_at', 'closed_at'],
};

/**
 * Why no column could hold a record, or null. These are not the product's rules (a record that
 * breaks those is left out, below) but values the database refuses whatever the rules: a NUL byte
 * or an unpaired surrogate in any text, a date outside the years PostgreSQL stores, a priority past its integer column. The
 * import stops at such a line and names it, as the product's own forms answer 400 to the same bytes.
 */
function unstorable(relation: FileRelation, record: Row): string | null {
  const text = findUnstorableText(record);
  if (text) return `${text.name} ${text.problem}`;
  for (const field of DATES[relation] ?? []) {
    const value = date(record[field]);
    if (value && !isStorableDate(value)) return `${field} must be between the years ${MIN_YEAR} and ${MAX_YEAR}`;
  }
  const priority = relation === 'labels' ? labelPriority(record) : null;
  if (typeof priority === 'number' && !(Number.isInteger(priority) && Math.abs(priority) <= MAX_ID)) return 'priority must be an integer';
  return null;
}

/** A record's contributor, its fields as text: the mapper stores them as the source user's. */
function contributor(value: unknown): SourceContributor | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const row = value as Row;
  const id = typeof row.id === 'number' || typeof row.id === 'string' ? String(row.id) : null;
  return id === null ? null : { id, username: str(row.username), name: str(row.name), email: str(row.email), source_hostname: str(row.source_hostname) };
}

type Importer = (ctx: Context, project: ProjectWithNamespace, rows: Row[], mapper: ContributorMapper) => Promise<void>;

const LINK_TYPES: ReleaseLinkType[] = ['other', 'runbook', 'image', 'package'];
const FULL_SHA = /^[0-9a-f]{40}$/;
const MAX_TEXT = 255;

/**
 * A file is the importer's word, not the product's: records are held to the rules the product's
 * own forms apply (label colours, tag names, commit SHAs, link URLs and paths), and a record or
 * link that breaks them is left out rather than stored.
 */
function validLinks(rows: Row[]): (LinkRow & { linkType: ReleaseLinkType })[] {
  const kept: (LinkRow & { linkType: ReleaseLinkType })[] = [];
  for (const l of rows) {
    const link = { name: str(l.name) ?? '', url: str(l.url) ?? '', filepath: normalizeFilepath(str(l.filepath)) ?? null };
    if (link.name.length > MAX_TEXT || linkProblems(link, kept).length) continue;
    kept.push({ ...link, linkType: LINK_TYPES.includes(l.link_type as ReleaseLinkType) ? (l.link_type as ReleaseLinkType) : 'other' });
  }
  return kept;
}
const MILESTONE_STATES: MilestoneState[] = ['active', 'closed'];

/** Roles a membership may hold (GitLab's Gitlab::Access); anything else in a file is left out. */
const ROLES = new Set<number>([AccessLevel.GUEST, AccessLevel.REPORTER, AccessLevel.DEVELOPER, AccessLevel.MAINTAINER, AccessLevel.OWNER]);

/**
 * Memberships of the project's or group's source members, each member mapped as any contributor
 * (a placeholder until reassigned, whose membership the reassignment then moves).
 */
async function importMembers(
  rows: Row[],
  mapper: ContributorMapper,
  create: (data: { userId: number; accessLevel: number; expiresAt: Date | null }[]) => Promise<unknown>,
) {
  const data: { userId: number; accessLevel: number; expiresAt: Date | null }[] = [];
  for (const r of rows) {
    const accessLevel = Number(r.access_level);
    if (!ROLES.has(accessLevel)) continue;
    const userId = await mapper.userIdFor(contributor(r.user));
    if (userId !== null) data.push({ userId, accessLevel, expiresAt: date(r.expires_at) });
  }
  if (data.length) await create(data);
}

/** What labels and milestones belong to: a project or a group. */
type Owner = { projectId: number } | { groupId: number };
const iidScope = (kind: string, owner: Owner): [string, number] =>
  'projectId' in owner ? [`${kind}:project`, owner.projectId] : [`${kind}:group`, owner.groupId];

/** A project's or a group's labels, by title; a title already there is left as it is. */
async function importLabels(ctx: Context, owner: Owner, rows: Row[]) {
  const data = rows.flatMap((r) => {
    const name = labelTitle(r);
    if (!name?.trim() || name.length > MAX_TEXT) return [];
    // A priority is a project's (GitLab's `priorities`): a group label has none.
    const priority = 'projectId' in owner ? labelPriority(r) : null;
    return [
      {
        ...owner,
        name,
        color: normalizeColor(str(r.color) ?? '') ?? '#6699CC',
        description: str(r.description),
        priority: typeof priority === 'number' ? priority : null,
      },
    ];
  });
  if (data.length) await ctx.db.label.createMany({ data, skipDuplicates: true });
}

/** A project's or a group's milestones, by title, each with the owner's next iid. */
async function importMilestones(ctx: Context, owner: Owner, rows: Row[]) {
  const titles = rows.map((r) => str(r.title)).filter((t): t is string => Boolean(t));
  const existing = new Set((await ctx.db.milestone.findMany({ where: { ...owner, title: { in: titles } }, select: { title: true } })).map((m) => m.title));
  const [scope, ownerId] = iidScope('milestones', owner);
  const fresh = rows.filter((r) => {
    const title = str(r.title);
    if (!title?.trim() || title.length > MAX_TEXT || existing.has(title)) return false;
    existing.add(title);
    return true;
  });
  if (!fresh.length) return;
  // The chunk's iids in one statement and its milestones in another, not two statements a milestone.
  await ctx.db.$transaction(async (tx) => {
    const first = await nextIids(tx, scope, ownerId, fresh.length);
    await tx.milestone.createMany({
      data: fresh.map((r, index) => ({
        ...owner,
        iid: first + index,
        title: str(r.title)!,
        description: str(r.description) ?? '',
        state: MILESTONE_STATES.includes(r.state as MilestoneState) ? (r.state as MilestoneState) : 'active',
        startDate: date(r.start_date),
        dueDate: date(r.due_date),
      })),
    });
  });
}

const EPIC_STATES: EpicState[] = ['opened', 'closed'];
const DEFAULT_EPIC_COLOR = '#1068BF';
const INT_MAX = 2 ** 31 - 1;
/** A positive integer a column holds (an iid, a position), or null. */
const intOrNull = (value: unknown, min: number): number | null =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= INT_MAX ? (value as number) : null;

/**
 * Epics of a group, keeping the source's iids (as GitLab's importer does, so references and the
 * parent links still name them): a record whose iid the group has is skipped, one without an iid
 * left out. Labels are linked by title (the group's or an ancestor's, the nearest first), authors
 * and award emoji users mapped as any contributor. Each record's parent goes to `parents`, for
 * the caller to link; a chunk is one transaction, so an epic never exists without its labels.
 */
async function importEpics(ctx: Context, group: Namespace, rows: Row[], mapper: ContributorMapper, parents: EpicParentRef[]) {
  const records = rows.flatMap((r) => {
    const iid = intOrNull(r.iid, 1);
    const title = str(r.title);
    return iid !== null && title?.trim() && title.length <= MAX_TEXT ? [{ r, iid, title }] : [];
  });
  for (const { r, iid } of records) {
    const parentIid = intOrNull(epicParentIid(r), 1);
    if (parentIid !== null) parents.push({ childIid: iid, parentIid, parentGroupId: intOrNull(epicParentGroupId(r), 1) });
  }
  const taken = await ctx.db.epic.findMany({ where: { groupId: group.id, iid: { in: records.map((e) => e.iid) } }, select: { iid: true } });
  const seen = new Set(taken.map((e) => e.iid));
  const fresh = records.filter(({ iid }) => !seen.has(iid) && Boolean(seen.add(iid)));
  if (!fresh.length) return;
  const labels = await labelIdsByTitle(
    ctx,
    group,
    fresh.flatMap(({ r }) => linkedLabelTitles(r)),
  );
  // Contributors first (placeholders are created in transactions of their own), then the records.
  const authors: (number | null)[] = [];
  const awards: { name: string; userId: number }[][] = [];
  for (const { r } of fresh) {
    authors.push(await mapper.userIdFor(contributor(recordAuthor(r))));
    awards.push(await epicAwards(r, mapper));
  }
  // A chunk is three statements, not one per epic and its labels: 200 epics' creates one by one
  // outlasted the transaction's 5 s on a loaded machine (bench/RESULTS.md, the migration bench).
  await ctx.db.$transaction(async (tx) => {
    await reserveIid(tx, 'epics:group', group.id, Math.max(...fresh.map((e) => e.iid)));
    const created = await tx.epic.createManyAndReturn({
      data: fresh.map(({ r, iid, title }, index) => {
        const state = EPIC_STATES.includes(r.state as EpicState) ? (r.state as EpicState) : 'opened';
        const createdAt = date(r.created_at) ?? new Date();
        const fixed = {
          startDateIsFixed: r.start_date_is_fixed === true,
          startDateFixed: date(r.start_date_fixed),
          dueDateIsFixed: r.due_date_is_fixed === true,
          dueDateFixed: date(r.due_date_fixed),
        };
        return {
          groupId: group.id,
          iid,
          title,
          description: str(r.description),
          state,
          closedAt: state === 'closed' ? (date(r.closed_at) ?? createdAt) : null,
          confidential: r.confidential === true,
          color: normalizeColor(str(r.color) ?? '') ?? DEFAULT_EPIC_COLOR,
          ...fixed,
          // Childless until the parents are linked (`linkEpicParents` then recomputes the parents).
          ...ownDates(fixed),
          relativePosition: intOrNull(r.relative_position, -INT_MAX),
          authorId: authors[index],
          createdAt,
        };
      }),
      select: { id: true, iid: true },
    });
    const idOf = new Map(created.map((e) => [e.iid, e.id]));
    const epicLabels = fresh.flatMap(({ r, iid }) =>
      [...new Set(linkedLabelTitles(r).flatMap((t) => labels.get(t) ?? []))].map((labelId) => ({ epicId: idOf.get(iid)!, labelId })),
    );
    if (epicLabels.length) await tx.epicLabel.createMany({ data: epicLabels });
    const emoji = fresh.flatMap(({ iid }, index) => awards[index]!.map((a) => ({ ...a, epicId: idOf.get(iid)! })));
    if (emoji.length) await tx.awardEmoji.createMany({ data: emoji });
  });
}

/** Group labels by title, among the group's and its ancestors' (the nearest group's winning). */
async function labelIdsByTitle(ctx: Context, group: Namespace, titles: string[]): Promise<Map<string, number>> {
  if (!titles.length) return new Map();
  const found = await ctx.db.label.findMany({ where: { groupId: { in: group.traversalIds }, name: { in: [...new Set(titles)] } } });
  const depth = (groupId: number | null) => group.traversalIds.indexOf(groupId!);
  found.sort((a, b) => depth(a.groupId) - depth(b.groupId));
  return new Map(found.map((l) => [l.name, l.id]));
}

/** An epic record's award emoji: known names, once per user and name. */
async function epicAwards(r: Row, mapper: ContributorMapper): Promise<{ name: string; userId: number }[]> {
  const kept = new Map<string, { name: string; userId: number }>();
  for (const a of Array.isArray(r.award_emoji) ? (r.award_emoji as Row[]) : []) {
    const name = a && typeof a === 'object' ? str(a.name) : null;
    if (!name || !(await emojiNamed(name))) continue;
    const userId = await mapper.userIdFor(contributor(a.user ?? (a.user_id == null ? null : { id: a.user_id })));
    if (userId !== null) kept.set(`${userId}:${name}`, { name, userId });
  }
  return [...kept.values()];
}

const IMPORTERS: Record<NdjsonRelation, Importer> = {
  self: async (ctx, project, rows) => {
    const attributes = rows[0];
    const description = str(attributes.description);
    if (description !== null) await ctx.db.project.update({ where: { id: project.id }, data: { description } });
  },

  project_members: (ctx, project, rows, mapper) =>
    importMembers(rows, mapper, (data) => ctx.db.member.createMany({ data: data.map((m) => ({ ...m, projectId: project.id })), skipDuplicates: true })),

  labels: (ctx, project, rows) => importLabels(ctx, { projectId: project.id }, rows),

  milestones: (ctx, project, rows) => importMilestones(ctx, { projectId: project.id }, rows),

  releases: async (ctx, project, rows, mapper) => {
    const tags = rows.map(releaseTag).filter((t): t is string => Boolean(t));
    const existing = new Set((await ctx.db.release.findMany({ where: { projectId: project.id, tag: { in: tags } }, select: { tag: true } })).map((r) => r.tag));
    const fresh = rows.filter((r) => {
      const tag = releaseTag(r);
      if (!tag || !isValidTagName(tag) || existing.has(tag)) return false;
      existing.add(tag);
      return true;
    });
    // Contributors first (placeholders are created in transactions of their own), then the records.
    const authors: (number | null)[] = [];
    for (const r of fresh) authors.push(await mapper.userIdFor(contributor(recordAuthor(r))));
    const milestoneTitles = [...new Set(fresh.flatMap(releaseMilestoneTitles))];
    const milestones = new Map(
      (await ctx.db.milestone.findMany({ where: { projectId: project.id, title: { in: milestoneTitles } }, select: { id: true, title: true } })).map((m) => [
        m.title,
        m.id,
      ]),
    );
    // A chunk is three statements, as the epics' (importEpics), not one per release and its links.
    await ctx.db.$transaction(async (tx) => {
      const created = await tx.release.createManyAndReturn({
        data: fresh.map((r, index) => ({
          projectId: project.id,
          tag: releaseTag(r)!,
          name: str(r.name),
          description: str(r.description) ?? '',
          sha: FULL_SHA.test(str(r.sha) ?? '') ? str(r.sha) : null,
          authorId: authors[index],
          releasedAt: date(r.released_at) ?? new Date(),
          createdAt: date(r.created_at) ?? new Date(),
        })),
        select: { id: true, tag: true },
      });
      const idOf = new Map(created.map((c) => [c.tag, c.id]));
      const links = fresh.flatMap((r) =>
        validLinks(Array.isArray(r.links) ? (r.links as Row[]) : []).map((l) => ({ ...l, releaseId: idOf.get(releaseTag(r)!)! })),
      );
      if (links.length) await tx.releaseLink.createMany({ data: links, skipDuplicates: true });
      const linked = fresh.flatMap((r) =>
        [...new Set(releaseMilestoneTitles(r))]
          .filter((t) => milestones.has(t))
          .map((t) => ({ releaseId: idOf.get(releaseTag(r)!)!, milestoneId: milestones.get(t)! })),
      );
      if (linked.length) await tx.releaseMilestone.createMany({ data: linked });
    });
  },
};
