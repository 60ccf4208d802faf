// The records of GitLab's import/export tree (lib/gitlab/import_export/project/import_export.yml),
// as its NDJSON relation files hold them, so that files move between forgegate and GitLab both
// ways: labels with their `title`, `type` and `priorities`, milestones with their `events`,
// releases by `tag` with their `links` and `milestone_releases`. Writers give each record GitLab's
// attributes; readers take GitLab's and, for files written before, forgegate's earlier keys.
import type { AwardEmoji, Epic, Label, Member, Milestone, Namespace, Release, ReleaseLink } from '../../generated/prisma/client.ts';

type Row = Record<string, unknown>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : null);

/** A contributor as an export names them: enough for the destination to map or create a placeholder. */
export type ExportedUser = { id: number; username: string; name: string; email: string; source_hostname: string };

/** Who a record names, as the exporting query selects them. */
export type UserFields = Omit<ExportedUser, 'source_hostname'>;
/** The columns of a user an export reads (Prisma `select`). */
export const USER_FIELDS = { id: true, username: true, name: true, email: true } as const;

const exportedUser = (user: UserFields, sourceHost: string): ExportedUser => ({ ...user, source_hostname: sourceHost });

/**
 * A project or group label: GitLab's `labels` record, `type` telling which (a project label's
 * priority in the project as `priorities`).
 */
export function labelRecord(label: Label) {
  const priorities =
    label.priority == null
      ? []
      : [{ project_id: label.projectId, priority: label.priority, created_at: iso(label.createdAt), updated_at: iso(label.updatedAt) }];
  return {
    id: label.id,
    title: label.name,
    color: label.color,
    project_id: label.projectId,
    group_id: label.groupId,
    created_at: iso(label.createdAt),
    updated_at: iso(label.updatedAt),
    template: false,
    description: label.description,
    type: label.projectId == null ? 'GroupLabel' : 'ProjectLabel',
    priorities,
  };
}

/** A project or group milestone: GitLab's `milestones` record (forgegate keeps no milestone events). */
export function milestoneRecord(m: Milestone) {
  return {
    id: m.id,
    title: m.title,
    project_id: m.projectId,
    group_id: m.groupId,
    description: m.description,
    due_date: day(m.dueDate),
    start_date: day(m.startDate),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    state: m.state,
    iid: m.iid,
    events: [],
  };
}

type ReleaseRow = Release & { author: UserFields | null; links: ReleaseLink[]; milestones: { milestone: Milestone }[] };

/**
 * A release: GitLab's `releases` record, `author_id` naming its author as GitLab does; `author`
 * adds who that is (GitLab's importer ignores attributes it does not know), for the placeholder
 * a destination creates.
 */
export function releaseRecord(r: ReleaseRow, sourceHost: string) {
  return {
    id: r.id,
    tag: r.tag,
    description: r.description,
    project_id: r.projectId,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
    author_id: r.authorId,
    name: r.name,
    sha: r.sha,
    released_at: iso(r.releasedAt),
    links: r.links.map((l) => ({
      id: l.id,
      url: l.url,
      name: l.name,
      filepath: l.filepath,
      link_type: l.linkType,
      created_at: iso(l.createdAt),
      updated_at: iso(l.updatedAt),
    })),
    milestone_releases: r.milestones.map(({ milestone }) => ({ milestone_id: milestone.id, release_id: r.id, milestone: milestoneRecord(milestone) })),
    author: r.author ? exportedUser(r.author, sourceHost) : null,
  };
}

/** GitLab's Gitlab::VisibilityLevel. */
const VISIBILITY_LEVEL = { private: 0, internal: 10, public: 20 } as const;

/**
 * A group's own attributes, as GitLab's group tree writes its root (`self`): GitLab's columns, the
 * settings forgegate has no choice for as its group entity answers them (groups/entity.ts):
 * Developers create projects (GitLab's level 2), Owners subgroups (0), LFS on, no two-factor
 * requirement, no locks.
 */
export function groupRecord(group: Namespace) {
  return {
    name: group.name,
    path: group.path,
    description: group.description,
    avatar: { url: null },
    membership_lock: false,
    share_with_group_lock: false,
    visibility_level: VISIBILITY_LEVEL[group.visibility],
    request_access_enabled: group.requestAccessEnabled,
    parent_id: group.parentId,
    lfs_enabled: true,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: 2,
    subgroup_creation_level: 0,
    emails_disabled: null,
  };
}

type MemberRow = Member & { user: UserFields };

/**
 * A direct member of a group (`members`) or a project (`project_members`): GitLab's member record
 * with its `user`. GitLab writes the user's public e-mail (forgegate has none, so null); `name`,
 * `email` and `source_hostname` are forgegate's, for the placeholder a destination creates.
 */
export function memberRecord(m: MemberRow, sourceHost: string) {
  const project = m.projectId != null;
  return {
    id: m.id,
    access_level: m.accessLevel,
    source_id: project ? m.projectId : m.namespaceId,
    source_type: project ? 'Project' : 'Namespace',
    user_id: m.userId,
    notification_level: 3,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    created_by_id: m.createdById,
    invite_email: null,
    invite_token: null,
    invite_accepted_at: null,
    requested_at: null,
    expires_at: day(m.expiresAt),
    ldap: false,
    override: false,
    user: { ...exportedUser(m.user, sourceHost), public_email: null },
  };
}

type EmojiRow = AwardEmoji & { user: UserFields };
export type EpicRow = Epic & {
  author: UserFields | null;
  parent: Epic | null;
  labels: { label: Label }[];
  awardEmoji: EmojiRow[];
};

/** An epic's own columns, as GitLab writes an epic and, nested, its `parent`. */
function epicColumns(e: Epic) {
  return {
    id: e.id,
    milestone_id: null,
    group_id: e.groupId,
    author_id: e.authorId,
    iid: e.iid,
    updated_by_id: null,
    last_edited_by_id: null,
    lock_version: 0,
    // The dates GitLab keeps in start_date/end_date: the fixed ones (forgegate inherits none from milestones).
    start_date: e.startDateIsFixed ? day(e.startDateFixed) : null,
    end_date: e.dueDateIsFixed ? day(e.dueDateFixed) : null,
    last_edited_at: null,
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
    title: e.title,
    description: e.description,
    start_date_sourcing_milestone_id: null,
    due_date_sourcing_milestone_id: null,
    start_date_fixed: day(e.startDateFixed),
    due_date_fixed: day(e.dueDateFixed),
    start_date_is_fixed: e.startDateIsFixed,
    due_date_is_fixed: e.dueDateIsFixed,
    closed_by_id: e.closedById,
    closed_at: iso(e.closedAt),
    parent_id: e.parentId,
    relative_position: e.relativePosition,
    state: e.state,
    start_date_sourcing_epic_id: null,
    due_date_sourcing_epic_id: null,
    confidential: e.confidential,
    color: e.color,
  };
}

/**
 * An epic: GitLab's `epics` record with its `parent` (GitLab's importer finds it by iid), its
 * `label_links` each with the group `label`, and `award_emoji`. Notes, events and state events
 * forgegate does not keep are empty. `author` and each emoji's `user` are forgegate's additions.
 */
export function epicRecord(e: EpicRow, sourceHost: string) {
  return {
    ...epicColumns(e),
    ...(e.parent && { parent: epicColumns(e.parent) }),
    award_emoji: e.awardEmoji.map((a) => ({
      id: a.id,
      name: a.name,
      user_id: a.userId,
      awardable_type: 'Epic',
      awardable_id: e.id,
      created_at: iso(a.createdAt),
      updated_at: iso(a.updatedAt),
      user: exportedUser(a.user, sourceHost),
    })),
    events: [],
    label_links: e.labels.map(({ label }) => ({
      target_id: e.id,
      target_type: 'Epic',
      label_id: label.id,
      created_at: null,
      updated_at: null,
      label: labelRecord(label),
    })),
    notes: [],
    resource_state_events: [],
    author: e.author ? exportedUser(e.author, sourceHost) : null,
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A label record's title (`name` in forgegate's files before GitLab's format). */
export const labelTitle = (row: Row) => text(row.title) ?? text(row.name);

/** A label record's priority: its first `priorities` entry, or the `priority` forgegate wrote before. */
export function labelPriority(row: Row): unknown {
  const [first] = Array.isArray(row.priorities) ? (row.priorities as Row[]) : [];
  return first && typeof first === 'object' ? first.priority : row.priority;
}

/** A release record's tag (`tag_name` in forgegate's files before). */
export const releaseTag = (row: Row) => text(row.tag) ?? text(row.tag_name);

/** Titles of a release record's milestones: GitLab's `milestone_releases[].milestone`, or forgegate's earlier `milestones`. */
export function releaseMilestoneTitles(row: Row): string[] {
  if (Array.isArray(row.milestone_releases)) {
    return (row.milestone_releases as Row[]).flatMap((mr) => {
      const title = mr && typeof mr === 'object' && mr.milestone && typeof mr.milestone === 'object' ? text((mr.milestone as Row).title) : null;
      return title ? [title] : [];
    });
  }
  return Array.isArray(row.milestones) ? row.milestones.map(String) : [];
}

/** Who a release or an epic record names: forgegate's `author`, else GitLab's bare `author_id` (a placeholder per source user). */
export function recordAuthor(row: Row): Row | null {
  if (row.author && typeof row.author === 'object' && !Array.isArray(row.author)) return row.author as Row;
  return typeof row.author_id === 'number' || typeof row.author_id === 'string' ? { id: row.author_id } : null;
}

const object = (value: unknown): Row | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : null);

/** An epic record's parent, by iid: GitLab's nested `parent`. */
export const epicParentIid = (row: Row): unknown => object(row.parent)?.iid;
/** The source group of an epic record's parent (GitLab writes the nested parent's `group_id`). */
export const epicParentGroupId = (row: Row): unknown => object(row.parent)?.group_id;

/** Titles of an epic record's labels: GitLab's `label_links[].label`. */
export function linkedLabelTitles(row: Row): string[] {
  const links = Array.isArray(row.label_links) ? (row.label_links as unknown[]) : [];
  return links.flatMap((link) => {
    const label = object(object(link)?.label);
    const title = label ? labelTitle(label) : null;
    return title ? [title] : [];
  });
}
