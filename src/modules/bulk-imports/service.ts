// Direct transfer, destination side (GitLab's BulkImports): a user names a source instance, a
// token and the groups and projects to pull; one job per entity then runs its relations in
// GitLab's stage order, each asking the source to export it, waiting for the export, downloading
// it and importing it with the relation importers. Every step records its outcome in the
// database first, so a job that dies (or a source that goes away) resumes where it stopped.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BulkImport, BulkImportEntity, BulkImportTracker, Namespace } from '../../generated/prisma/client.ts';
import { Viewer } from '../../auth/viewer.ts';
import { createContext, type Context } from '../../core/context.ts';
import { ForbiddenError, NotFoundError, ParamError, UnauthorizedError, UnprocessableError } from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';
import { readSettings } from '../../core/settings.ts';
import { SpooledUpload } from '../../core/upload.ts';
import type { AppDeps } from '../../deps.ts';
import type { JobContext } from '../../jobs/definitions.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isTransientDatabaseError } from '../../db/errors.ts';
import { createGroup } from '../groups/service.ts';
import { namespaceByFullPath } from '../namespaces/service.ts';
import { createProject, projectByFullPath } from '../projects/service.ts';
import { importGroupRelation, importRelation, type GroupFileRelation } from '../relation-exports/import.ts';
import { keepEpicParents, linkEpicParents } from './epic-links.ts';
import { encodedPath, SourceClient, SourceRefusedError, SourceUnavailableError } from './source.ts';

export const ENTITY_QUEUE = 'bulk-import-entity';

/** GitLab's statuses of imports, entities and trackers. */
export const Status = { CREATED: 0, STARTED: 1, FINISHED: 2, TIMEOUT: 3, FAILED: -1, CANCELED: -2 } as const;
export const STATUS_NAMES: Record<number, string> = { 0: 'created', 1: 'started', 2: 'finished', 3: 'timeout', [-1]: 'failed', [-2]: 'canceled' };
const TERMINAL: number[] = [Status.FINISHED, Status.TIMEOUT, Status.FAILED, Status.CANCELED];

export type EntityType = 'group_entity' | 'project_entity';

/**
 * The relations of each entity in GitLab's stage order (lib/bulk_imports/groups/stage.rb,
 * projects/stage.rb): the destination is created first (stage 0), then what hangs off it. The
 * pseudo-relations `subgroups` and `projects` add child entities rather than importing a file.
 */
const PIPELINES: Record<EntityType, { relation: string; stage: number }[]> = {
  group_entity: [
    { relation: 'subgroups', stage: 1 },
    { relation: 'members', stage: 1 },
    { relation: 'labels', stage: 1 },
    { relation: 'milestones', stage: 1 },
    // After the labels they link to (GitLab's EE epics pipeline, stage 2).
    { relation: 'epics', stage: 2 },
    { relation: 'projects', stage: 2 },
  ],
  project_entity: [
    { relation: 'repository_bundle', stage: 1 },
    { relation: 'labels', stage: 2 },
    { relation: 'milestones', stage: 2 },
    { relation: 'project_members', stage: 2 },
    { relation: 'releases', stage: 3 },
  ],
};
const MEMBER_RELATIONS = new Set(['members', 'project_members']);
const DISCOVERY = new Set(['subgroups', 'projects']);

// ------------------------------------------------------------------------------------------------
// The token, encrypted at rest

/** AES-256-GCM under a key derived from the instance's secret: the token is never stored readable. */
const tokenKey = (deps: AppDeps) => Buffer.from(hkdfSync('sha256', deps.secrets.tokenDigestKey, 'forgegate', 'bulk-import-access-token', 32));

export function encryptToken(deps: AppDeps, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', tokenKey(deps), iv);
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function decryptToken(deps: AppDeps, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', tokenKey(deps), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

// ------------------------------------------------------------------------------------------------
// Creating a migration

export type EntityInput = {
  sourceType: string;
  sourceFullPath: string;
  destinationSlug?: string | null;
  destinationName?: string | null;
  destinationNamespace: string;
  migrateProjects?: boolean | null;
  migrateMemberships?: boolean | null;
};
export type BulkImportInput = { url: string; accessToken: string; entities: EntityInput[] };

/** GitLab's messages (app/services/bulk_imports/create_service.rb). */
export const SCOPE_ERROR = "Import aborted as the provided personal access token does not have the required 'api' scope or is no longer valid.";
export const URL_ERROR = 'Invalid source URL. Enter only the base URL of the source GitLab instance.';
const MIN_SOURCE_MAJOR = 14;
const SETTING_ERROR =
  'Migration by direct transfer disabled on source or destination instance. Ask an administrator to enable it on both instances and try again.';
const notFoundError = (fullPath: string) => new UnprocessableError(`Import failed. '${fullPath}' not found.`);
const notAuthorizedError = (fullPath: string) => new UnprocessableError(`Import failed. You don't have permission to export '${fullPath}'.`);

const SLUG = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

function checkEntities(entities: EntityInput[]) {
  if (!entities.length) throw new ParamError('entities is empty');
  entities.forEach((e, i) => {
    if (e.sourceType !== 'group_entity' && e.sourceType !== 'project_entity') throw new ParamError(`entities[${i}][source_type] does not have a valid value`);
    if (!e.sourceFullPath.trim()) throw new ParamError(`entities[${i}][source_full_path] is empty`);
    const slug = e.destinationSlug ?? e.destinationName;
    if (!slug) throw new ParamError(`entities[${i}][destination_slug] is missing`);
    if (!SLUG.test(slug)) {
      throw new ParamError(
        `entities[${i}][destination_slug] cannot start with a non-alphanumeric character except for periods or underscores, can contain only alphanumeric characters, periods, and underscores, cannot end with a period or forward slash, and has no leading or trailing forward slashes`,
      );
    }
  });
}

/** The source must answer its version with this token, be recent enough, and the token must carry `api`. */
async function probeSource(client: SourceClient): Promise<string> {
  let version: { version?: string };
  let token: { scopes?: string[]; active?: boolean };
  try {
    version = await client.json('/version');
    token = await client.json('/personal_access_tokens/self');
  } catch (error) {
    if (error instanceof SourceRefusedError && (error.status === 401 || error.status === 403)) throw new UnprocessableError(SCOPE_ERROR);
    throw new UnprocessableError(URL_ERROR);
  }
  const major = Number(String(version.version ?? '').split('.')[0]);
  if (!Number.isFinite(major) || major < MIN_SOURCE_MAJOR) {
    throw new UnprocessableError(`Unsupported GitLab version. Minimum supported version is ${MIN_SOURCE_MAJOR}.`);
  }
  if (!token.scopes?.includes('api') || token.active === false) throw new UnprocessableError(SCOPE_ERROR);
  return String(version.version);
}

/**
 * GitLab's "bulk import enabled" probe (CreateService#validate_source_full_path! and
 * #validate_setting_enabled!): the first entity must exist on the source, and its export status
 * must answer; a source with direct transfer off answers 404 there, one that will not let this
 * token export answers 403.
 */
async function probeExportable(client: SourceClient, entity: EntityInput) {
  const kind = entity.sourceType === 'group_entity' ? 'groups' : 'projects';
  let source: { id?: unknown };
  try {
    source = await client.json(`/${kind}/${encodedPath(entity.sourceFullPath)}`);
  } catch (error) {
    if (error instanceof SourceRefusedError && error.status === 404) throw notFoundError(entity.sourceFullPath);
    throw notAuthorizedError(entity.sourceFullPath);
  }
  if (typeof source.id !== 'number') throw notFoundError(entity.sourceFullPath);
  try {
    await client.send('GET', `/${kind}/${source.id}/export_relations/status`);
  } catch (error) {
    if (error instanceof SourceRefusedError && error.status === 404) throw new UnprocessableError(SETTING_ERROR);
    if (error instanceof SourceRefusedError && error.status === 403) throw notAuthorizedError(entity.sourceFullPath);
    throw new UnprocessableError(URL_ERROR);
  }
}

/** Where an entity lands: a group the user may create in (or the top level for a group), free of anything by that path. */
async function checkDestination(ctx: Context, entity: EntityInput) {
  const slug = (entity.destinationSlug ?? entity.destinationName)!;
  const namespace = entity.destinationNamespace.trim();
  const fullPath = namespace ? `${namespace}/${slug}` : slug;
  const invalid = () => new UnprocessableError(`Import failed. Destination '${namespace}' is invalid, or you don't have permission.`);
  if (namespace) {
    const parent = await namespaceByFullPath(ctx, namespace);
    if (!parent) throw invalid();
    if (parent.kind === 'group') {
      const level = await ctx.policy.groupAccessLevel(parent);
      if (level < (entity.sourceType === 'group_entity' ? AccessLevel.OWNER : AccessLevel.MAINTAINER)) throw invalid();
    } else if (entity.sourceType === 'group_entity' || parent.ownerId !== ctx.viewer.user!.id) throw invalid();
  } else if (entity.sourceType === 'project_entity') throw invalid();
  // Both read through the paths' indexes, case-insensitively (a project by its namespace and path, as GET /projects/:id).
  const taken = (await namespaceByFullPath(ctx, fullPath)) ?? (await projectByFullPath(ctx, fullPath));
  if (taken) throw new UnprocessableError(`Import failed. '${fullPath}' already exists. Change the destination and try again.`);
}

/** `POST /bulk_imports`: checks everything it can before anything is stored, then queues one job per entity. */
export async function createBulkImport(ctx: Context, input: BulkImportInput): Promise<BulkImport> {
  const user = ctx.viewer.user;
  if (!user) throw new UnauthorizedError();
  if (!(await readSettings(ctx.db)).bulkImportEnabled) throw new ForbiddenError();
  checkEntities(input.entities);
  let base: URL;
  try {
    base = new URL(input.url);
  } catch {
    throw new UnprocessableError(URL_ERROR);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UnprocessableError(URL_ERROR);
  const sourceUrl = base.toString().replace(/\/+$/, '');
  const client = new SourceClient(ctx.db, sourceUrl, input.accessToken);
  const sourceVersion = await probeSource(client);
  await probeExportable(client, input.entities[0]);
  for (const entity of input.entities) await checkDestination(ctx, entity);
  return ctx.db.$transaction(async (tx) => {
    const bulkImport = await tx.bulkImport.create({
      data: { userId: user.id, sourceUrl, sourceVersion, accessTokenEncrypted: encryptToken(ctx.deps, input.accessToken) },
    });
    for (const e of input.entities) {
      const slug = (e.destinationSlug ?? e.destinationName)!;
      const entity = await tx.bulkImportEntity.create({
        data: {
          bulkImportId: bulkImport.id,
          sourceType: e.sourceType,
          sourceFullPath: e.sourceFullPath,
          destinationSlug: slug,
          destinationName: slug,
          destinationNamespace: e.destinationNamespace.trim(),
          migrateProjects: e.migrateProjects ?? true,
          migrateMemberships: e.migrateMemberships ?? true,
        },
      });
      await ctx.deps.jobs.send(ENTITY_QUEUE, { entityId: entity.id }, { tx });
    }
    return bulkImport;
  });
}

// ------------------------------------------------------------------------------------------------
// Reading and canceling

const requireUser = (ctx: Context) => {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  return ctx.viewer.user;
};

export function listBulkImports(ctx: Context, status?: string | null): Listing<BulkImport> {
  const user = requireUser(ctx);
  const code = statusCode(status);
  const where = { userId: user.id, ...(code === undefined ? {} : { status: code }) };
  return {
    fetch: ({ offset, limit }) => ctx.db.bulkImport.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.bulkImport.count({ where, take: ctx.countLimit }),
  };
}

function statusCode(status: string | null | undefined): number | undefined {
  if (status == null) return undefined;
  const found = Object.entries(STATUS_NAMES).find(([, name]) => name === status);
  if (!found) throw new ParamError('status does not have a valid value');
  return Number(found[0]);
}

/** The user's own migration, else GitLab's 404. */
export async function findBulkImport(ctx: Context, id: number): Promise<BulkImport> {
  const user = requireUser(ctx);
  const row = await ctx.db.bulkImport.findFirst({ where: { id, userId: user.id } });
  if (!row) throw new NotFoundError('Bulk import');
  return row;
}

/** Entities of the viewer's migrations, or of one of them (404 when it is not the viewer's). */
export async function listEntities(ctx: Context, bulkImportId: number | null, status?: string | null): Promise<Listing<BulkImportEntity>> {
  const user = requireUser(ctx);
  if (bulkImportId !== null) await findBulkImport(ctx, bulkImportId);
  const code = statusCode(status);
  const where = {
    bulkImport: { userId: user.id },
    ...(bulkImportId === null ? {} : { bulkImportId }),
    ...(code === undefined ? {} : { status: code }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.bulkImportEntity.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.bulkImportEntity.count({ where, take: ctx.countLimit }),
  };
}

export async function findEntity(ctx: Context, bulkImportId: number, entityId: number): Promise<BulkImportEntity> {
  await findBulkImport(ctx, bulkImportId);
  const entity = await ctx.db.bulkImportEntity.findFirst({ where: { id: entityId, bulkImportId } });
  if (!entity) throw new NotFoundError('Entity');
  return entity;
}

/** `POST /bulk_imports/:id/cancel`: the migration and its unfinished entities stop; their jobs see it and end. */
export async function cancelBulkImport(ctx: Context, id: number): Promise<BulkImport> {
  await findBulkImport(ctx, id);
  return ctx.db.$transaction(async (tx) => {
    await tx.bulkImportEntity.updateMany({ where: { bulkImportId: id, status: { notIn: TERMINAL } }, data: { status: Status.CANCELED } });
    return tx.bulkImport.update({ where: { id }, data: { status: Status.CANCELED } });
  });
}

// ------------------------------------------------------------------------------------------------
// The work: one job per entity

type EntityJob = { entityId: number };

/** The export on the source is not written yet: the job comes back later (not a failure). */
class NotReadyYet extends Error {}

const POLL_SECONDS = 1;

type Run = {
  ctx: Context;
  client: SourceClient;
  entity: BulkImportEntity;
  bulkImport: BulkImport;
  job: JobContext;
  /** The relation running, which a failure names. */
  relation: string;
};

/** The user canceled the migration: the job ends without importing more (not a failure). */
class Canceled extends Error {}

const OPEN = [Status.CREATED, Status.STARTED];

export async function runEntity(data: EntityJob, job: JobContext): Promise<void> {
  const { db } = job.deps;
  const entity = await db.bulkImportEntity.findUnique({ where: { id: data.entityId }, include: { bulkImport: true } });
  if (!entity || TERMINAL.includes(entity.status)) return;
  if (entity.bulkImport.status === Status.CANCELED) {
    // A child found just before the cancel: it ends canceled too, never started.
    await db.bulkImportEntity.updateMany({ where: { id: entity.id, status: { in: OPEN } }, data: { status: Status.CANCELED } });
    return;
  }
  const user = await db.user.findUnique({ where: { id: entity.bulkImport.userId } });
  if (!user) return;
  const run: Run = {
    ctx: createContext(job.deps, new Viewer(user, null)),
    client: new SourceClient(db, entity.bulkImport.sourceUrl, decryptToken(job.deps, entity.bulkImport.accessTokenEncrypted)),
    entity,
    bulkImport: entity.bulkImport,
    job,
    relation: 'entity',
  };
  // A cancel that came in since the read above wins: never back to started.
  const started = await db.bulkImportEntity.updateMany({ where: { id: entity.id, status: { in: OPEN } }, data: { status: Status.STARTED } });
  if (!started.count) return;
  if (entity.bulkImport.status === Status.CREATED) await db.bulkImport.update({ where: { id: entity.bulkImportId }, data: { status: Status.STARTED } });
  try {
    await runPipelines(run);
  } catch (error) {
    if (error instanceof Canceled) return;
    if (error instanceof NotReadyYet) {
      await job.deps.jobs.send(ENTITY_QUEUE, data, { startAfter: POLL_SECONDS });
      return;
    }
    // The source away or this database busy: the queue retries with backoff (every step is
    // resumable); the last attempt gives up and says why.
    const transient = error instanceof SourceUnavailableError || isTransientDatabaseError(error);
    if (transient && job.attempt <= job.retryLimit) throw error;
    await failEntity(run, error as Error);
  }
}

/** GitLab records the exception's class: ours for the source's answers, the domain error's otherwise. */
const exceptionClass = (error: Error) => (error instanceof SourceUnavailableError || error instanceof SourceRefusedError ? error.name : error.constructor.name);

async function failEntity(run: Run, error: Error) {
  const { db } = run.ctx;
  await db.$transaction([
    db.bulkImportFailure.create({
      data: {
        entityId: run.entity.id,
        relation: run.relation,
        pipelineStep: 'run',
        exceptionClass: exceptionClass(error),
        exceptionMessage: error.message.slice(0, 255),
        correlationIdValue: run.job.id,
        sourceUrl: `${run.bulkImport.sourceUrl}/${run.entity.sourceFullPath}`,
        sourceTitle: run.entity.sourceFullPath,
      },
    }),
    db.bulkImportEntity.updateMany({ where: { id: run.entity.id, status: { in: OPEN } }, data: { status: Status.FAILED, hasFailures: true } }),
    db.bulkImport.update({ where: { id: run.bulkImport.id }, data: { hasFailures: true } }),
  ]);
  await finishImportIfDone(run);
}

const portablePath = (entity: BulkImportEntity) => `/${entity.sourceType === 'group_entity' ? 'groups' : 'projects'}/${encodedPath(entity.sourceFullPath)}`;

async function runPipelines(run: Run) {
  const { db } = run.ctx;
  const type = run.entity.sourceType as EntityType;
  await ensureDestination(run);
  const existing = await db.bulkImportTracker.count({ where: { entityId: run.entity.id } });
  if (!existing) {
    // One export request for all the entity's relations (GitLab's ExportRequestWorker), in batches
    // from sources that write them.
    await run.client.send('POST', `${portablePath(run.entity)}/export_relations`, supportsBatches(run.bulkImport.sourceVersion) ? { batched: true } : {});
    await db.bulkImportTracker.createMany({
      data: PIPELINES[type].map((p) => ({ entityId: run.entity.id, relation: p.relation, stage: p.stage })),
      skipDuplicates: true,
    });
  }
  const trackers = await db.bulkImportTracker.findMany({ where: { entityId: run.entity.id }, orderBy: [{ stage: 'asc' }, { id: 'asc' }] });
  for (const tracker of trackers) {
    if (tracker.status === Status.FINISHED) continue;
    await stopIfCanceled(run);
    run.relation = tracker.relation;
    if (MEMBER_RELATIONS.has(tracker.relation) && !run.entity.migrateMemberships) {
      await db.bulkImportTracker.update({ where: { id: tracker.id }, data: { status: Status.FINISHED } });
      continue;
    }
    const count = DISCOVERY.has(tracker.relation) ? await discoverChildren(run, tracker.relation) : await pullRelation(run, tracker);
    await db.bulkImportTracker.update({ where: { id: tracker.id }, data: { status: Status.FINISHED, objectsCount: count } });
    if (tracker.relation === 'epics') await linkEpics(run);
  }
  await db.bulkImportEntity.updateMany({ where: { id: run.entity.id, status: Status.STARTED }, data: { status: Status.FINISHED } });
  await finishImportIfDone(run);
}

/**
 * Links the migration's epics whose parents now exist (this group's, or an ancestor group's
 * migrated with it); a link the product's rules refuse is dropped and recorded as a failure of
 * the child's entity, which still finishes (as GitLab records a record it could not save).
 */
async function linkEpics(run: Run) {
  const { db } = run.ctx;
  const refused = await linkEpicParents(run.ctx, run.bulkImport.id);
  if (!refused.length) return;
  const entities = await db.bulkImportEntity.findMany({
    where: { bulkImportId: run.bulkImport.id, namespaceId: { in: refused.map((r) => r.childGroupId) } },
  });
  const entityOf = new Map(entities.map((e) => [e.namespaceId!, e]));
  const failures = refused.flatMap((r) => {
    const entity = entityOf.get(r.childGroupId);
    if (!entity) return [];
    return [
      {
        entityId: entity.id,
        relation: 'epics',
        pipelineStep: 'loader',
        exceptionClass: 'ActiveRecord::RecordInvalid',
        exceptionMessage: r.message.slice(0, 255),
        correlationIdValue: run.job.id,
        sourceUrl: `${run.bulkImport.sourceUrl}/${entity.sourceFullPath}`,
        sourceTitle: entity.sourceFullPath,
      },
    ];
  });
  await db.$transaction([
    db.bulkImportFailure.createMany({ data: failures }),
    db.bulkImportEntity.updateMany({ where: { id: { in: entities.map((e) => e.id) } }, data: { hasFailures: true } }),
    db.bulkImport.update({ where: { id: run.bulkImport.id }, data: { hasFailures: true } }),
  ]);
}

/** GitLab asks sources of 16.2 or later for batched exports (BulkImport#supports_batched_export?). */
function supportsBatches(version: string | null): boolean {
  const [major, minor] = (version ?? '').split('.').map(Number);
  return major > 16 || (major === 16 && minor >= 2);
}

/** Between relations and batches: a canceled entity (or migration) imports nothing more. */
async function stopIfCanceled(run: Run) {
  const entity = await run.ctx.db.bulkImportEntity.findUnique({ where: { id: run.entity.id }, select: { status: true } });
  if (!entity || entity.status === Status.CANCELED) throw new Canceled();
}

/** The migration is over when every entity is: finished if any entity finished, else failed. */
async function finishImportIfDone(run: Run) {
  const { db } = run.ctx;
  const open = await db.bulkImportEntity.count({ where: { bulkImportId: run.bulkImport.id, status: { notIn: TERMINAL } } });
  if (open) return;
  // Parents never found (their group not part of the migration, or not exported): nothing more to link.
  await db.bulkImportEpicLink.deleteMany({ where: { bulkImportId: run.bulkImport.id } });
  const finished = await db.bulkImportEntity.count({ where: { bulkImportId: run.bulkImport.id, status: Status.FINISHED } });
  await db.bulkImport.updateMany({
    where: { id: run.bulkImport.id, status: { not: Status.CANCELED } },
    data: { status: finished ? Status.FINISHED : Status.FAILED },
  });
}

type SourceGroup = { id?: unknown; name: string; path: string; description?: string | null; visibility?: string };
type SourceProject = SourceGroup & { default_branch?: string | null };
type Visibility = 'private' | 'internal' | 'public';
const visibilityOf = (value: unknown): Visibility => (value === 'public' || value === 'internal' ? value : 'private');

/** The destination group or project, created once (its id recorded before anything else runs). */
async function ensureDestination(run: Run) {
  const { ctx, entity } = run;
  if (entity.namespaceId !== null || entity.projectId !== null) return;
  const parent = entity.destinationNamespace ? await namespaceByFullPath(ctx, entity.destinationNamespace) : null;
  if (entity.destinationNamespace && !parent) throw new Error(`Destination namespace ${entity.destinationNamespace} not found`);
  if (entity.sourceType === 'group_entity') {
    const source = await run.client.json<SourceGroup>(portablePath(entity));
    const group = await createGroup(ctx, {
      name: source.name,
      path: entity.destinationSlug,
      parentId: parent?.id ?? null,
      description: source.description ?? null,
      visibility: lowerVisibility(visibilityOf(source.visibility), parent),
    });
    entity.namespaceId = group.id;
    const sourceXid = typeof source.id === 'number' ? source.id : null;
    await ctx.db.bulkImportEntity.update({ where: { id: entity.id }, data: { namespaceId: group.id, sourceXid } });
    return;
  }
  const source = await run.client.json<SourceProject>(portablePath(entity));
  const project = await createProject(ctx, {
    name: source.name,
    path: entity.destinationSlug,
    namespaceId: parent!.id,
    description: source.description ?? null,
    visibility: lowerVisibility(visibilityOf(source.visibility), parent),
    defaultBranch: source.default_branch ?? null,
  });
  entity.projectId = project.id;
  const sourceXid = typeof source.id === 'number' ? source.id : null;
  await ctx.db.bulkImportEntity.update({ where: { id: entity.id }, data: { projectId: project.id, sourceXid } });
}

const RANK: Record<Visibility, number> = { private: 0, internal: 1, public: 2 };
/** A child is never more visible than its new parent (GitLab lowers it the same way). */
const lowerVisibility = (wanted: Visibility, parent: Namespace | null): Visibility =>
  parent && parent.kind === 'group' && RANK[parent.visibility as Visibility] < RANK[wanted] ? (parent.visibility as Visibility) : wanted;

/** Subgroups and projects of a group entity become entities of their own, each with its job. */
async function discoverChildren(run: Run, relation: string): Promise<number> {
  const { ctx, entity } = run;
  if (relation === 'projects' && !entity.migrateProjects) return 0;
  const group = await ctx.db.namespace.findUniqueOrThrow({ where: { id: entity.namespaceId! } });
  const path = `${portablePath(entity)}/${relation}`;
  const children = await allPages<{ full_path?: string; path_with_namespace?: string; path: string }>(run.client, path);
  const sourceType: EntityType = relation === 'subgroups' ? 'group_entity' : 'project_entity';
  for (const child of children) {
    const sourceFullPath = child.full_path ?? child.path_with_namespace ?? `${entity.sourceFullPath}/${child.path}`;
    const created = await ctx.db.bulkImportEntity.createManyAndReturn({
      data: [
        {
          bulkImportId: entity.bulkImportId,
          parentId: entity.id,
          sourceType,
          sourceFullPath,
          destinationSlug: child.path,
          destinationName: child.path,
          destinationNamespace: group.fullPath,
          migrateProjects: entity.migrateProjects,
          migrateMemberships: entity.migrateMemberships,
        },
      ],
      skipDuplicates: true,
    });
    // A rerun after a crash finds the child already there, with its job already sent.
    for (const row of created) await ctx.deps.jobs.send(ENTITY_QUEUE, { entityId: row.id });
  }
  return children.length;
}

const PER_PAGE = 100;
const MAX_PAGES = 100;

async function allPages<T>(client: SourceClient, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const rows = await client.json<T[]>(path, { per_page: PER_PAGE, page });
    if (!Array.isArray(rows)) throw new SourceRefusedError(200, `GET ${path}: not a list`);
    all.push(...rows);
    if (rows.length < PER_PAGE) break;
  }
  return all;
}

/** GitLab's export status entry, `batches` on batched exports. */
type ExportStatus = {
  relation: string;
  status: number;
  error?: string | null;
  batched?: boolean;
  batches_count?: number;
};

/** Largest relation file downloaded (a repository bundle included). */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** Waits for the source's export of one relation, downloads it (whole, or batch by batch) and imports it. */
async function pullRelation(run: Run, tracker: BulkImportTracker): Promise<number> {
  const { relation } = tracker;
  const status = await run.client.json<ExportStatus>(`${portablePath(run.entity)}/export_relations/status`, { relation });
  if (status.status === 0) throw new NotReadyYet();
  if (status.status !== 1) throw new SourceRefusedError(200, `The source could not export ${relation}: ${status.error ?? 'failed'}`);
  if (!status.batched) return importFile(run, relation, { relation });
  return pullBatches(run, tracker, Number(status.batches_count ?? 0));
}

/**
 * A batched relation, one file per batch (GitLab's BatchTracker per batch): each finished batch is
 * recorded with its count, so a job that resumes imports only the batches not finished yet.
 */
async function pullBatches(run: Run, tracker: BulkImportTracker, batchesCount: number): Promise<number> {
  const { db } = run.ctx;
  if (!tracker.batched) await db.bulkImportTracker.update({ where: { id: tracker.id }, data: { batched: true } });
  const finished = await db.bulkImportBatchTracker.findMany({ where: { trackerId: tracker.id, status: Status.FINISHED } });
  const done = new Set(finished.map((b) => b.batchNumber));
  let count = finished.reduce((sum, b) => sum + b.importedObjectsCount, 0);
  for (let batchNumber = 1; batchNumber <= batchesCount; batchNumber++) {
    if (done.has(batchNumber)) continue;
    await stopIfCanceled(run);
    const imported = await importFile(run, tracker.relation, { relation: tracker.relation, batched: true, batch_number: batchNumber });
    const data = { status: Status.FINISHED, importedObjectsCount: imported };
    await db.bulkImportBatchTracker.upsert({
      where: { trackerId_batchNumber: { trackerId: tracker.id, batchNumber } },
      create: { trackerId: tracker.id, batchNumber, ...data },
      update: data,
    });
    count += imported;
  }
  return count;
}

/**
 * Downloads one relation file (or batch) to a temporary file under the data directory, imports it
 * from there and deletes it: memory stays flat whatever the file's size.
 */
async function importFile(run: Run, relation: string, query: Record<string, string | number | boolean>): Promise<number> {
  const { ctx, entity } = run;
  const dir = path.join(ctx.deps.config.dataDir, 'tmp');
  const file = path.join(dir, `bulk-import-${randomUUID()}`);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await run.client.send('GET', `${portablePath(entity)}/export_relations/download`, query, { maxBytes: MAX_FILE_BYTES, saveTo: file });
    const upload = new SpooledUpload(relation, (await fsp.stat(file)).size, file);
    if (entity.sourceType === 'project_entity') return (await importRelation(ctx, { projectId: entity.projectId! }, relation, upload)).objectsCount;
    const group = await ctx.db.namespace.findUniqueOrThrow({ where: { id: entity.namespaceId! } });
    const { count, epicParents } = await importGroupRelation(ctx, group, relation as GroupFileRelation, upload);
    await keepEpicParents(ctx, entity.bulkImportId, group.id, epicParents);
    return count;
  } finally {
    await fsp.rm(file, { force: true });
  }
}
