import DataLoader from 'dataloader';
import type { Conditions, SqlReader } from '../db/rows.ts';
import type { Namespace, Prisma, Project } from '../generated/prisma/client.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../core/errors.ts';
import { AccessLevel } from './access-levels.ts';
import {
  directLevelOf,
  groupLevelOf,
  groupLevels,
  groupsWithMembershipBelow,
  NO_PROJECTS,
  projectLevels,
  projectsOfMember,
  projectsReadableBy,
  PUBLIC_PROJECTS,
} from './store.ts';
import type { Viewer } from './viewer.ts';

export type NamespaceLike = Pick<Namespace, 'id' | 'traversalIds' | 'visibility' | 'kind' | 'ownerId'>;
export type ProjectWithNamespace = Project & { namespace: Namespace };

/**
 * The one place that answers "may this viewer see / do X". Visibility, inherited membership
 * down the group tree and the administrator bypass are decided here and nowhere else.
 * Invisible resources are reported as 404 by the `require*` helpers, never 403.
 *
 * What a membership grants (unexpired, of the resource or of a group above it) is defined once, by
 * the views `project_authorizations`, `group_authorizations` and `group_memberships_below`: list
 * filters are EXISTS over them, and checks on one resource read them for the ids asked for only,
 * so both cost the same for a member of 10 projects or of 1,000. Those checks run on most requests:
 * they are plain SQL over the pool (SqlReader), without Prisma's per-statement cost.
 */
export class Policy {
  /** The viewer's level in projects, through the project or a group above it (0: none). */
  private readonly projectLevels = this.perViewer(0, async (userId, ids) => {
    const rows = await projectLevels(this.sql, userId, ids);
    return new Map(rows.map((r) => [r.id, r.level ?? 0]));
  });
  /** The viewer's level in groups, through the group or a group above it (0: none). */
  private readonly groupLevels = this.perViewer(0, async (userId, ids) => {
    const rows = await groupLevels(this.sql, userId, ids);
    return new Map(rows.map((r) => [r.id, r.level ?? 0]));
  });
  /** Whether the viewer is a member somewhere below a group (a subgroup's or project's member sees its parents). */
  private readonly belowMembership = this.perViewer(false, async (userId, ids) => {
    const rows = await groupsWithMembershipBelow(this.sql, userId, ids);
    return new Map(rows.map((r) => [r.id, true]));
  });

  constructor(
    private readonly sql: SqlReader,
    readonly viewer: Viewer,
  ) {}

  /** A per-request loader of one value per id for the signed-in viewer, one statement per tick; `none` for anonymous viewers and ids without a row. */
  private perViewer<V>(none: V, load: (userId: number, ids: number[]) => Promise<Map<number, V>>) {
    return new DataLoader<number, V>(async (ids) => {
      const user = this.viewer.user;
      if (!user) return ids.map(() => none);
      const found = await load(user.id, [...ids]);
      return ids.map((id) => found.get(id) ?? none);
    });
  }

  /**
   * Select expressions for the viewer's membership levels in the group `n` of the project `p` and
   * in the project itself (not through a group), as `groupLevels` and `projectLevels` read them
   * (null for none), for a statement that reads the project anyway; null for anonymous viewers.
   * An administrator's too: checks pass without them, but a project answer shows their
   * memberships (`permissions`).
   */
  levelColumns(where: Conditions): { group: string; direct: string } | null {
    const user = this.viewer.user;
    if (!user) return null;
    const bound = where.bind(user.id);
    return { group: groupLevelOf('n.id', bound), direct: directLevelOf('p.id', bound) };
  }

  /**
   * Keeps the levels read by `levelColumns` for this request's checks. The project's is the higher
   * of the two, the union `project_authorizations` defines.
   */
  knowLevels(project: Pick<Project, 'id'> & { namespace: Pick<Namespace, 'id' | 'kind'> }, levels: { group: number | null; direct: number | null }) {
    this.projectLevels.prime(project.id, Math.max(levels.group ?? 0, levels.direct ?? 0));
    if (project.namespace.kind === 'group') this.groupLevels.prime(project.namespace.id, levels.group ?? 0);
  }

  async groupAccessLevel(namespace: Pick<Namespace, 'id' | 'ownerId' | 'kind'>): Promise<number> {
    if (this.viewer.isAdmin) return AccessLevel.OWNER;
    if (namespace.kind === 'user') return namespace.ownerId === this.viewer.userId ? AccessLevel.OWNER : 0;
    return this.groupLevels.load(namespace.id);
  }

  /** A job token reaches its own project only; elsewhere its user counts as anonymous. */
  private outsideJob(project: Pick<Project, 'id'>) {
    return this.viewer.job !== null && this.viewer.job.projectId !== project.id;
  }

  async projectAccessLevel(project: ProjectWithNamespace): Promise<number> {
    if (this.outsideJob(project)) return 0;
    if (this.viewer.isAdmin) return AccessLevel.OWNER;
    if (project.namespace.kind === 'user' && project.namespace.ownerId === this.viewer.userId) return AccessLevel.OWNER;
    return this.projectLevels.load(project.id);
  }

  /** The viewer's level in a group from memberships alone (`permissions.group_access`). 0: none. */
  async groupMembershipLevel(namespace: Pick<Namespace, 'id' | 'kind'>): Promise<number> {
    if (!this.viewer.user || namespace.kind !== 'group') return 0;
    return this.groupLevels.load(namespace.id);
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

  /** The viewer has at least `level` in the project (what `requireProjectAccess` checks): a permission field's answer. */
  async hasProjectLevel(project: ProjectWithNamespace, level: number): Promise<boolean> {
    return (await this.projectAccessLevel(project)) >= level;
  }

  /** 404 when invisible, 403 when visible but the role is too low. */
  async requireProjectAccess(project: ProjectWithNamespace, level: number): Promise<void> {
    if (!(await this.canReadProject(project))) throw new NotFoundError('Project');
    if ((await this.projectAccessLevel(project)) < level) throw new ForbiddenError();
  }

  /**
   * A write to the project's content (repository files, branches, tags, releases and their links):
   * `requireProjectAccess`, and an archived project is read-only for everyone, administrators
   * included (GitLab's archived projects prevent those abilities): 403.
   */
  async requireProjectWrite(project: ProjectWithNamespace, level: number): Promise<void> {
    await this.requireProjectAccess(project, level);
    if (project.archived) throw new ForbiddenError();
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

  /** Developers push to branches; a protected branch takes a Maintainer; nobody pushes to an archived project. */
  async canPushToBranch(project: ProjectWithNamespace, branch: string): Promise<boolean> {
    if (project.archived) return false;
    const needed = this.isProtectedBranch(project, branch) ? AccessLevel.MAINTAINER : AccessLevel.DEVELOPER;
    return (await this.projectAccessLevel(project)) >= needed;
  }

  /** GitLab's `authenticated_as_admin!`: anonymous 401, signed in but not an administrator 403. */
  requireAdmin(): void {
    if (!this.viewer.user) throw new UnauthorizedError();
    if (!this.viewer.isAdmin) throw new ForbiddenError();
  }

  /**
   * The condition for the projects this viewer may read, over `projects p JOIN namespaces n` (every
   * project list). Memberships are an EXISTS over `project_authorizations`, not a list of ids: the
   * statement is the same whatever the number of the viewer's memberships. Null: every project.
   */
  readableProjects(where: Conditions): string | null {
    if (this.viewer.isAdmin) return null;
    const user = this.viewer.user;
    if (!user) return PUBLIC_PROJECTS;
    return projectsReadableBy(where.bind(user.id));
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

  /** Projects of the viewer's memberships, direct or through a group, and of their namespace (`membership=true`), over `projects p JOIN namespaces n`. */
  memberProjects(where: Conditions): string {
    const user = this.viewer.user;
    if (!user) return NO_PROJECTS;
    return projectsOfMember(where.bind(user.id));
  }
}
