import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { MilestoneState, Prisma, RelationImport, ReleaseLinkType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, ParamError, UnauthorizedError } from '../../core/errors.ts';
import { nextIid } from '../../core/iids.ts';
import { SpooledUpload, type Upload } from '../../core/upload.ts';
import { isValidTagName } from '../../git/tags.ts';
import { GitBundleError } from '../../git/store.ts';
import { normalizeColor } from '../labels/service.ts';
import { linkProblems, normalizeFilepath, type LinkRow } from '../release-links/validation.ts';
import { ContributorMapper, type SourceContributor } from '../import-source-users/service.ts';
import { resolveProject, type ParentInput } from '../namespaces/parent.ts';
import { readNdjsonGzip, RelationFileError } from './files.ts';
import { isRelation, type Relation } from './service.ts';

/** Objects created per transaction while importing: bounds memory and lock time. */
const CHUNK = 200;

export type RelationImportResult = RelationImport & { projectPath: string };

const str = (value: unknown): string | null => (typeof value === 'string' ? value : value == null ? null : String(value));
const date = (value: unknown): Date | null => {
  if (typeof value !== 'string') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
};

/**
 * `POST /projects/import-relation`: reads one relation file (as an export wrote it) into a project
 * the viewer maintains. Records are matched by their natural key (label name, milestone title,
 * release tag), so importing a file twice creates nothing the second time. Every contributor named
 * by a record goes through the ContributorMapper (an existing member, or a placeholder user).
 */
export async function importRelation(ctx: Context, input: ParentInput, relationName: string, file: Upload): Promise<RelationImportResult> {
  if (!isRelation(relationName)) throw new ParamError('relation does not have a valid value');
  const relation: Relation = relationName;
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const project = await resolveProject(ctx, input);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  const record = await ctx.db.relationImport.create({ data: { projectId: project.id, userId: ctx.viewer.user.id, relation } });
  const finish = (data: Prisma.RelationImportUpdateInput) => ctx.db.relationImport.update({ where: { id: record.id }, data });
  let count: number;
  try {
    count = relation === 'repository_bundle' ? await importBundle(ctx, project, file) : await importNdjson(ctx, project, relation, file);
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
    return 1;
  } finally {
    if (spooled) await fsp.rm(spooled, { force: true });
  }
}

type Row = Record<string, unknown>;

async function importNdjson(ctx: Context, project: ProjectWithNamespace, relation: Exclude<Relation, 'repository_bundle'>, file: Upload): Promise<number> {
  const mapper = new ContributorMapper(ctx, project);
  let chunk: Row[] = [];
  let count = 0;
  const flush = async () => {
    if (chunk.length) await IMPORTERS[relation](ctx, project, chunk, mapper);
    count += chunk.length;
    chunk = [];
  };
  for await (const row of readNdjsonGzip(file.stream())) {
    chunk.push(row);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return count;
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

const IMPORTERS: Record<Exclude<Relation, 'repository_bundle'>, Importer> = {
  self: async (ctx, project, rows) => {
    const attributes = rows[0];
    const description = str(attributes.description);
    if (description !== null) await ctx.db.project.update({ where: { id: project.id }, data: { description } });
  },

  labels: async (ctx, project, rows) => {
    const data = rows
      .filter((r) => str(r.name)?.trim() && str(r.name)!.length <= MAX_TEXT)
      .map((r) => ({
        projectId: project.id,
        name: str(r.name)!,
        color: normalizeColor(str(r.color) ?? '') ?? '#6699CC',
        description: str(r.description),
        priority: typeof r.priority === 'number' ? r.priority : null,
      }));
    await ctx.db.label.createMany({ data, skipDuplicates: true });
  },

  milestones: async (ctx, project, rows) => {
    const titles = rows.map((r) => str(r.title)).filter((t): t is string => Boolean(t));
    const existing = new Set((await ctx.db.milestone.findMany({ where: { projectId: project.id, title: { in: titles } }, select: { title: true } })).map((m) => m.title));
    await ctx.db.$transaction(async (tx) => {
      for (const r of rows) {
        const title = str(r.title);
        if (!title?.trim() || title.length > MAX_TEXT || existing.has(title)) continue;
        existing.add(title);
        const state = MILESTONE_STATES.includes(r.state as MilestoneState) ? (r.state as MilestoneState) : 'active';
        await tx.milestone.create({
          data: {
            projectId: project.id,
            iid: await nextIid(tx, 'milestones:project', project.id),
            title,
            description: str(r.description) ?? '',
            state,
            startDate: date(r.start_date),
            dueDate: date(r.due_date),
          },
        });
      }
    });
  },

  releases: async (ctx, project, rows, mapper) => {
    const tags = rows.map((r) => str(r.tag_name)).filter((t): t is string => Boolean(t));
    const existing = new Set((await ctx.db.release.findMany({ where: { projectId: project.id, tag: { in: tags } }, select: { tag: true } })).map((r) => r.tag));
    const fresh = rows.filter((r) => {
      const tag = str(r.tag_name);
      if (!tag || !isValidTagName(tag) || existing.has(tag)) return false;
      existing.add(tag);
      return true;
    });
    // Contributors first (placeholders are created in transactions of their own), then the records.
    const authors: (number | null)[] = [];
    for (const r of fresh) authors.push(await mapper.userIdFor(r.author as SourceContributor | null));
    const milestoneTitles = [...new Set(fresh.flatMap((r) => (Array.isArray(r.milestones) ? r.milestones.map(String) : [])))];
    const milestones = new Map(
      (await ctx.db.milestone.findMany({ where: { projectId: project.id, title: { in: milestoneTitles } }, select: { id: true, title: true } })).map((m) => [m.title, m.id]),
    );
    await ctx.db.$transaction(async (tx) => {
      for (const [index, r] of fresh.entries()) {
        const links = validLinks(Array.isArray(r.links) ? (r.links as Row[]) : []);
        const titles = Array.isArray(r.milestones) ? r.milestones.map(String) : [];
        await tx.release.create({
          data: {
            projectId: project.id,
            tag: str(r.tag_name)!,
            name: str(r.name),
            description: str(r.description) ?? '',
            sha: FULL_SHA.test(str(r.sha) ?? '') ? str(r.sha) : null,
            authorId: authors[index],
            releasedAt: date(r.released_at) ?? new Date(),
            createdAt: date(r.created_at) ?? new Date(),
            links: {
              createMany: {
                data: links,
                skipDuplicates: true,
              },
            },
            milestones: { create: titles.filter((t) => milestones.has(t)).map((t) => ({ milestoneId: milestones.get(t)! })) },
          },
        });
      }
    });
  },
};

