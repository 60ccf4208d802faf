import { selectList } from '../../db/rows.ts';
import type { Milestone, Release, ReleaseEvidence, ReleaseLink } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { projectFullPath } from '../projects/service.ts';
import type { Context } from '../../core/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { batchBy, batchGroupBy, SettledLoader } from '../../core/loaders.ts';

const tagKey = (projectId: number, tag: string) => `${projectId}\0${tag}`;

/** What every release of a project shares: asked once per project and request, not per field. */
export type ProjectFacts = { project: ProjectWithNamespace; webUrl: string; canReadCode: boolean; canEdit: boolean };

async function projectFacts(ctx: Context, projectId: number): Promise<ProjectFacts> {
  const project = await ctx.loaders.project.load(projectId);
  if (!project) throw new NotFoundError('Project');
  return {
    project,
    webUrl: `${ctx.deps.config.externalUrl}/${projectFullPath(project)}`,
    canReadCode: await ctx.policy.canReadCode(project),
    canEdit: (await ctx.policy.projectAccessLevel(project)) >= AccessLevel.DEVELOPER,
  };
}

/**
 * A link as lists read it: without its timestamps, which neither GitLab's link entity nor its
 * GraphQL type shows, and which were 1,000 of the ~2,100 timestamps a page of 100 releases parsed.
 */
export type LinkRow = Omit<ReleaseLink, 'createdAt' | 'updatedAt'>;
const LINK_FIELDS = {
  id: 'id', releaseId: 'release_id', name: 'name', url: 'url', filepath: 'filepath', linkType: 'link_type::text',
} satisfies Record<keyof LinkRow, string>;
const MILESTONE_FIELDS = {
  id: 'id', iid: 'iid', projectId: 'project_id', groupId: 'group_id', title: 'title', description: 'description', state: 'state::text',
  dueDate: 'due_date', startDate: 'start_date', createdAt: 'created_at', updatedAt: 'updated_at',
} satisfies Record<keyof Milestone, string>;
const EVIDENCE_FIELDS = { id: 'id', releaseId: 'release_id', summary: 'summary', sha: 'sha', createdAt: 'created_at' } satisfies Record<keyof ReleaseEvidence, string>;

/**
 * A list of 100 releases reads ~500 links, ~200 milestones and 100 evidences: through Prisma's
 * findMany the links alone took 6.9 ms of CPU, over the pool 3.1 ms (SqlReader). The columns are
 * read as the models' fields (selectList); test/release-loaders.test.ts compares the rows with Prisma's.
 */
const LINKS = `SELECT ${selectList(LINK_FIELDS, 'l')} FROM release_links l WHERE l.release_id = ANY($1) ORDER BY l.created_at DESC, l.id DESC`;
const MILESTONES = `SELECT ${selectList(MILESTONE_FIELDS, 'm')}, rm.release_id AS "releaseId"
  FROM release_milestones rm JOIN milestones m ON m.id = rm.milestone_id WHERE rm.release_id = ANY($1) ORDER BY rm.milestone_id, rm.release_id`;
const EVIDENCES = `SELECT ${selectList(EVIDENCE_FIELDS, 'e')} FROM release_evidences e WHERE e.release_id = ANY($1) ORDER BY e.id DESC`;

/** Per-request DataLoaders of the releases area: one query per tick for links, milestones, evidences. */
export function createReleaseLoaders(ctx: Context) {
  const { db } = ctx;
  const byTag = batchBy<string, Release>(
    (keys) =>
      db.release.findMany({
        where: {
          OR: keys.map((k) => {
            const [projectId, tag] = k.split('\0');
            return { projectId: Number(projectId), tag };
          }),
        },
      }),
    (r) => tagKey(r.projectId, r.tag),
  );
  return {
    /** `facts.use(projectId, (facts) => …)`: at once after the first read. */
    facts: new SettledLoader<number, ProjectFacts>((ids) => Promise.all(ids.map((id) => projectFacts(ctx, id)))),
    byTag: { load: (projectId: number, tag: string) => byTag.load(tagKey(projectId, tag)), clear: (projectId: number, tag: string) => byTag.clear(tagKey(projectId, tag)) },
    /** Newest first, as GitLab lists a release's links. */
    links: batchGroupBy<number, LinkRow>((ids) => ctx.deps.sql.rows(LINKS, [ids]), (l) => l.releaseId),
    milestones: batchGroupBy<number, Milestone & { releaseId: number }>((ids) => ctx.deps.sql.rows(MILESTONES, [ids]), (m) => m.releaseId),
    evidences: batchGroupBy<number, ReleaseEvidence>((ids) => ctx.deps.sql.rows(EVIDENCES, [ids]), (e) => e.releaseId),
  };
}

/** The relations a page of releases is asked for (see `preloadReleases`). */
export type ReleaseRelations = {
  facts: boolean;
  author: boolean;
  commit: boolean;
  links: boolean;
  milestones: boolean;
  /** The milestones' groups and projects, which their web paths name. */
  milestonePaths: boolean;
  evidences: boolean;
};

/**
 * Reads the relations a page of releases is asked for before its fields are resolved, one batch
 * each and in parallel: the same statements the fields' loads would send, but once they have
 * settled every field below answers a value at once (see SettledLoader), where otherwise a page of
 * 100 sent graphql-jit ~1,500 promises. A relation not asked for is not read.
 */
export async function preloadReleases(ctx: Context, releases: readonly Release[], wanted: ReleaseRelations) {
  if (releases.length === 0) return;
  const { loaders } = ctx;
  const ids = releases.map((r) => r.id);
  const projectIds = new Set(releases.map((r) => r.projectId));
  await Promise.all([
    wanted.facts && loaders.releases.facts.preload(projectIds),
    wanted.author && loaders.user.preload(new Set(releases.flatMap((r) => (r.authorId == null ? [] : [r.authorId])))),
    wanted.commit && loaders.repository.preload(projectIds),
    wanted.links && loaders.releases.links.preload(ids),
    wanted.evidences && loaders.releases.evidences.preload(ids),
    wanted.milestones && loaders.releases.milestones.preload(ids).then(() => (wanted.milestonePaths ? preloadMilestoneParents(ctx, ids) : undefined)),
  ]);
}

/** The groups and projects of the releases' milestones, which their web paths name. */
function preloadMilestoneParents(ctx: Context, releaseIds: readonly number[]) {
  const { loaders } = ctx;
  // Settled by the preload (a list still being read elsewhere leaves its fields to read them).
  const milestones = releaseIds.flatMap((id) => {
    const list = loaders.releases.milestones.get(id);
    return Array.isArray(list) ? list : [];
  });
  return Promise.all([
    loaders.namespace.preload(new Set(milestones.flatMap((m) => (m.groupId == null ? [] : [m.groupId])))),
    loaders.project.preload(new Set(milestones.flatMap((m) => (m.projectId == null ? [] : [m.projectId])))),
  ]);
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    releases: ReturnType<typeof createReleaseLoaders>;
  }
}
