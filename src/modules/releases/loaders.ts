import type { Milestone, Release, ReleaseEvidence, ReleaseLink } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { projectFullPath } from '../projects/service.ts';
import type { Context } from '../../core/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { batchBy, batchGroupBy, SettledLoader } from '../../core/loaders.ts';
import { evidencesOfReleases, linksOfReleases, milestonesOfReleases } from './store.ts';

const tagKey = (projectId: number, tag: string) => `${projectId}\0${tag}`;

/** What every release of a project shares: asked once per project and request, not per field. */
export type ProjectFacts = { project: ProjectWithNamespace; webUrl: string };

async function projectFacts(ctx: Context, projectId: number): Promise<ProjectFacts> {
  const project = await ctx.loaders.project.load(projectId);
  if (!project) throw new NotFoundError('Project');
  return { project, webUrl: `${ctx.deps.config.externalUrl}/${projectFullPath(project)}` };
}

/**
 * A link as lists read it: without its timestamps, which neither GitLab's link entity nor its
 * GraphQL type shows, and which were 1,000 of the ~2,100 timestamps a page of 100 releases parsed.
 */
export type LinkRow = Omit<ReleaseLink, 'createdAt' | 'updatedAt'>;

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
    byTag: {
      load: (projectId: number, tag: string) => byTag.load(tagKey(projectId, tag)),
      clear: (projectId: number, tag: string) => byTag.clear(tagKey(projectId, tag)),
    },
    /** Newest first, as GitLab lists a release's links. */
    links: batchGroupBy<number, LinkRow>(
      (ids) => linksOfReleases(ctx.deps.sql, ids),
      (l) => l.releaseId,
    ),
    milestones: batchGroupBy<number, Milestone & { releaseId: number }>(
      (ids) => milestonesOfReleases(ctx.deps.sql, ids),
      (m) => m.releaseId,
    ),
    evidences: batchGroupBy<number, ReleaseEvidence>(
      (ids) => evidencesOfReleases(ctx.deps.sql, ids),
      (e) => e.releaseId,
    ),
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    releases: ReturnType<typeof createReleaseLoaders>;
  }
}
