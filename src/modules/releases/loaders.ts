import type { Milestone, Release, ReleaseEvidence, ReleaseLink } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { projectFullPath } from '../projects/service.ts';
import type { Context } from '../../core/context.ts';
import { batchBy, batchGroupBy, settledOnce } from '../../core/loaders.ts';

const tagKey = (projectId: number, tag: string) => `${projectId}\0${tag}`;

/** What every release of a project shares: asked once per project and request, not per field. */
export type ProjectFacts = { project: ProjectWithNamespace; webUrl: string; canReadCode: boolean; canEdit: boolean };

async function projectFacts(ctx: Context, projectId: number): Promise<ProjectFacts> {
  const project = (await ctx.loaders.project.load(projectId)) as ProjectWithNamespace;
  return {
    project,
    webUrl: `${ctx.deps.config.externalUrl}/${projectFullPath(project)}`,
    canReadCode: await ctx.policy.canReadCode(project),
    canEdit: (await ctx.policy.projectAccessLevel(project)) >= AccessLevel.DEVELOPER,
  };
}

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
    /** `facts(projectId, (facts) => …)`: at once after the first read (see settledOnce). */
    facts: settledOnce((projectId: number) => projectFacts(ctx, projectId)),
    byTag: { load: (projectId: number, tag: string) => byTag.load(tagKey(projectId, tag)), clear: (projectId: number, tag: string) => byTag.clear(tagKey(projectId, tag)) },
    /** Newest first, as GitLab lists a release's links. */
    links: batchGroupBy<number, ReleaseLink>(
      (ids) => db.releaseLink.findMany({ where: { releaseId: { in: [...ids] } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
      (l) => l.releaseId,
    ),
    milestones: batchGroupBy<number, Milestone & { releaseId: number }>(
      async (ids) =>
        (
          await db.releaseMilestone.findMany({ where: { releaseId: { in: [...ids] } }, include: { milestone: true }, orderBy: { milestoneId: 'asc' } })
        ).map((rm) => ({ ...rm.milestone, releaseId: rm.releaseId })),
      (m) => m.releaseId,
    ),
    evidences: batchGroupBy<number, ReleaseEvidence>(
      (ids) => db.releaseEvidence.findMany({ where: { releaseId: { in: [...ids] } }, orderBy: { id: 'desc' } }),
      (e) => e.releaseId,
    ),
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    releases: ReturnType<typeof createReleaseLoaders>;
  }
}
