// The records of GitLab's import/export tree (lib/gitlab/import_export/project/import_export.yml),
// as its NDJSON relation files hold them, so that files move between forgegate and GitLab both
// ways: labels with their `title`, `type` and `priorities`, milestones with their `events`,
// releases by `tag` with their `links` and `milestone_releases`. Writers give each record GitLab's
// attributes; readers take GitLab's and, for files written before, forgegate's earlier keys.
import type { Label, Milestone, Release, ReleaseLink } from '../../generated/prisma/client.ts';

type Row = Record<string, unknown>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : null);

/** A contributor as an export names them: enough for the destination to map or create a placeholder. */
export type ExportedUser = { id: number; username: string; name: string; email: string; source_hostname: string };

/** A project label: GitLab's `labels` record (its priority in the project as `priorities`). */
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
    type: 'ProjectLabel',
    priorities,
  };
}

/** A project milestone: GitLab's `milestones` record (forgegate keeps no milestone events). */
export function milestoneRecord(m: Milestone) {
  return {
    id: m.id,
    title: m.title,
    project_id: m.projectId,
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

type ReleaseRow = Release & { author: Omit<ExportedUser, 'source_hostname'> | null; links: ReleaseLink[]; milestones: { milestone: Milestone }[] };

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
    author: r.author ? ({ ...r.author, source_hostname: sourceHost } satisfies ExportedUser) : null,
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

/** Who a release record names: forgegate's `author`, else GitLab's bare `author_id` (a placeholder per source user). */
export function releaseAuthor(row: Row): Row | null {
  if (row.author && typeof row.author === 'object' && !Array.isArray(row.author)) return row.author as Row;
  return typeof row.author_id === 'number' || typeof row.author_id === 'string' ? { id: row.author_id } : null;
}
