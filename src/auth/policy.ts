import DataLoader from 'dataloader';
import type { Db } from '../db/client.ts';
import type { Namespace, Prisma, Project } from '../generated/prisma/client.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../core/errors.ts';
import { AccessLevel } from './access-levels.ts';
import type { Viewer } from './viewer.ts';

export type NamespaceLike = Pick<Namespace, 'id' | 'traversalIds' | 'visibility' | 'kind' | 'ownerId'>;
export type ProjectWithNamespace = Project & { namespace: Namespace };

const today = () => new Date(new Date().toISOString().slice(0, 10));

/**
 * The one place that answers "may this viewer see / do X". Visibility, inherited membership
 * down the group tree and the administrator bypass are decided here and nowhere else.
 * Invisible resources are reported as 404 by the `require*` helpers, never 403.
 */
export class Policy {
  /**
   * The viewer's own level in a project (`p:<id>`) or a group (`g:<id>`), 0 when not a member:
   * only the rows asked for, all asked for in one tick in one statement, so a check costs the same
   * for a member of 10 projects or of 1,000.
   */
  private readonly levels = new DataLoader<string, number>((keys) => this.fetchLevels(keys));
  /** Whether the viewer is a member somewhere below a namespace (a subgroup's or project's member sees its parents). */
  private readonly belowMembership = new DataLoader<number, boolean>((ids) => this.fetchBelowMembership(ids));

  constructor(
    private readonly db: Db,
    readonly viewer: Viewer,
  ) {}

  private async fetchLevels(keys: readonly string[]): Promise<number[]> {
    const user = this.viewer.user;
    if (!user) return keys.map(() => 0);
    const ids = (kind: string) => keys.filter((k) => k.startsWith(kind)).map((k) => Number(k.slice(2)));
    const rows = await this.db.member.findMany({
      where: {
        userId: user.id,
        AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gte: today() } }] }, { OR: [{ projectId: { in: ids('p:') } }, { namespaceId: { in: ids('g:') } }] }],
      },
      select: { accessLevel: true, namespaceId: true, projectId: true },
    });
    const found = new Map(rows.map((r) => [r.projectId !== null ? `p:${r.projectId}` : `g:${r.namespaceId}`, r.accessLevel]));
    return keys.map((k) => found.get(k) ?? 0);
  }

  private async fetchBelowMembership(ids: readonly number[]): Promise<boolean[]> {
    const user = this.viewer.user;
    if (!user) return ids.map(() => false);
    // Grouped: the view has a row per membership below, hundreds for one group.
    const rows = await this.db.groupMembershipBelow.groupBy({ by: ['namespaceId'], where: { userId: user.id, namespaceId: { in: [...ids] } } });
    const below = new Set(rows.map((r) => r.namespaceId));
    return ids.map((id) => below.has(id));
  }

  async groupAccessLevel(namespace: Pick<Namespace, 'traversalIds' | 'ownerId' | 'kind'>): Promise<number> {
    if (this.viewer.isAdmin) return AccessLevel.OWNER;
    if (namespace.kind === 'user') return namespace.ownerId === this.viewer.userId ? AccessLevel.OWNER : 0;
    return Math.max(0, ...(await Promise.all(namespace.traversalIds.map((id) => this.levels.load(`g:${id}`)))));
  }

  /** A job token reaches its own project only; elsewhere its user counts as anonymous. */
  private outsideJob(project: Pick<Project, 'id'>) {
    return this.viewer.job !== null && this.viewer.job.projectId !== project.id;
  }

  async projectAccessLevel(project: ProjectWithNamespace): Promise<number> {
    if (this.outsideJob(project)) return 0;
    if (this.viewer.isAdmin) return AccessLevel.OWNER;
    // Both in the same tick: one statement.
    const [own, inherited] = await Promise.all([this.levels.load(`p:${project.id}`), this.groupAccessLevel(project.namespace)]);
    return Math.max(own, inherited);
  }

  private visibleTo(visibility: Namespace['visibility']) {
    return visibility === 'public' || (visibility === 'internal' && this.viewer.user !== null);
  }

  async canReadProject(project: ProjectWithNamespace): Promise<boolean> {
    if (this.outsideJob(project)) return project.visibility === 'public';
    if (this.viewer.isAdmin || this.visibleTo(project.visibility)) return true;
    return (await this.projectAccessLevel(project)) >= AccessLevel.GUEST;
  }

  async canReadNamespace(namespace: NamespaceLike): Promise<boolean> {
    if (this.viewer.isAdmin || this.visibleTo(namespace.visibility)) return true;
    if (namespace.kind === 'user') return namespace.ownerId === this.viewer.userId;
    if ((await this.groupAccessLevel(namespace)) >= AccessLevel.MINIMAL_ACCESS) return true;
    return this.belowMembership.load(namespace.id);
  }

  /** 404 when invisible, 403 when visible but the role is too low. */
  async requireProjectAccess(project: ProjectWithNamespace, level: number): Promise<void> {
    if (!(await this.canReadProject(project))) throw new NotFoundError('Project');
    if ((await this.projectAccessLevel(project)) < level) throw new ForbiddenError();
  }

  async requireGroupAccess(namespace: NamespaceLike, level: number): Promise<void> {
    if (!(await this.canReadNamespace(namespace))) throw new NotFoundError('Group');
    if ((await this.groupAccessLevel(namespace)) < level) throw new ForbiddenError();
  }

  /**
   * Code (files, commits, tags, archives) of a private project is for Reporters and above; of an
   * internal or public project, for everyone who can see the project.
   */
  async canReadCode(project: ProjectWithNamespace): Promise<boolean> {
    if (!(await this.canReadProject(project))) return false;
    if (project.visibility !== 'private') return true;
    return (await this.projectAccessLevel(project)) >= AccessLevel.REPORTER;
  }

  async requireReadCode(project: ProjectWithNamespace): Promise<void> {
    if (!(await this.canReadProject(project))) throw new NotFoundError('Project');
    if (!(await this.canReadCode(project))) throw new ForbiddenError();
  }

  /** GitLab protects the default branch by default; it is the only protected branch here. */
  isProtectedBranch(project: Pick<Project, 'defaultBranch'>, branch: string): boolean {
    return branch === (project.defaultBranch ?? 'main');
  }

  /** Developers push to branches; a protected branch takes a Maintainer. */
  async canPushToBranch(project: ProjectWithNamespace, branch: string): Promise<boolean> {
    const needed = this.isProtectedBranch(project, branch) ? AccessLevel.MAINTAINER : AccessLevel.DEVELOPER;
    return (await this.projectAccessLevel(project)) >= needed;
  }

  /** GitLab's `authenticated_as_admin!`: anonymous 401, signed in but not an administrator 403. */
  requireAdmin(): void {
    if (!this.viewer.user) throw new UnauthorizedError();
    if (!this.viewer.isAdmin) throw new ForbiddenError();
  }

  /**
   * SQL filter for the projects this viewer may read (used by every project list). Memberships are
   * an EXISTS over `project_authorizations`, not a list of ids: the statement is the same whatever
   * the number of the viewer's memberships.
   */
  async readableProjectsWhere(): Promise<Prisma.ProjectWhereInput> {
    if (this.viewer.isAdmin) return {};
    const user = this.viewer.user;
    if (!user) return { visibility: 'public' };
    return {
      OR: [
        { visibility: { in: ['public', 'internal'] } },
        { authorizations: { some: { userId: user.id, accessLevel: { gte: AccessLevel.GUEST } } } },
        { namespace: { ownerId: user.id } },
      ],
    };
  }

  /**
   * SQL filter for the groups this viewer may read: EXISTS over `group_authorizations` (a
   * membership here or above) and `group_memberships_below` (a membership in a subgroup or project
   * below), the same statement whatever the number of the viewer's memberships.
   */
  async readableGroupsWhere(): Promise<Prisma.NamespaceWhereInput> {
    if (this.viewer.isAdmin) return {};
    const user = this.viewer.user;
    if (!user) return { visibility: 'public' };
    return {
      OR: [
        { visibility: { in: ['public', 'internal'] } },
        { authorizations: { some: { userId: user.id } } },
        { membershipsBelow: { some: { userId: user.id } } },
      ],
    };
  }

  /** Groups (and their subgroups) the viewer belongs to with at least `minLevel`. */
  async memberGroupsWhere(minLevel: number): Promise<Prisma.NamespaceWhereInput> {
    const user = this.viewer.user;
    if (!user) return { id: { in: [] } };
    return { authorizations: { some: { userId: user.id, accessLevel: { gte: minLevel } } } };
  }

  /** Projects of the viewer's memberships, direct or through a group, and of their namespace (`membership=true`). */
  async membershipWhere(): Promise<Prisma.ProjectWhereInput> {
    const user = this.viewer.user;
    if (!user) return { id: { in: [] } };
    return { OR: [{ authorizations: { some: { userId: user.id } } }, { namespace: { ownerId: user.id } }] };
  }
}
