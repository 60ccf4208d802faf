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

/**
 * A list of 100 releases reads ~500 links, ~200 milestones and 100 evidences: through Prisma's
 * findMany the links alone took 6.9 ms of CPU, over the pool 3.1 ms (SqlReader). The columns are
 * aliased to the models' fields; test/release-loaders.test.ts compares the rows with Prisma's.
 */
const LINKS = `SELECT id, release_id AS "releaseId", name, url, filepath, link_type::text AS "linkType", created_at AS "createdAt", updated_at AS "updatedAt"
  FROM release_links WHERE release_id = ANY($1) ORDER BY created_at DESC, id DESC`;
const MILESTONES = `SELECT m.id, m.iid, m.project_id AS "projectId", m.group_id AS "groupId", m.title, m.description, m.state::text AS state,
      m.due_date AS "dueDate", m.start_date AS "startDate", m.created_at AS "createdAt", m.updated_at AS "updatedAt", rm.release_id AS "releaseId"
  FROM release_milestones rm JOIN milestones m ON m.id = rm.milestone_id WHERE rm.release_id = ANY($1) ORDER BY rm.milestone_id, rm.release_id`;
const EVIDENCES = 'SELECT id, release_id AS "releaseId", summary, sha, created_at AS "createdAt" FROM release_evidences WHERE release_id = ANY($1) ORDER BY id DESC';

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
    links: batchGroupBy<number, ReleaseLink>((ids) => ctx.deps.sql.rows(LINKS, [ids]), (l) => l.releaseId),
    milestones: batchGroupBy<number, Milestone & { releaseId: number }>((ids) => ctx.deps.sql.rows(MILESTONES, [ids]), (m) => m.releaseId),
    evidences: batchGroupBy<number, ReleaseEvidence>((ids) => ctx.deps.sql.rows(EVIDENCES, [ids]), (e) => e.releaseId),
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    releases: ReturnType<typeof createReleaseLoaders>;
  }
}
