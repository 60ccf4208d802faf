// What a relation export reads, per portable (GitLab's word for what is exported: a project or a
// group): each top-level relation's name, and the records of its file in GitLab's format.
import type { Db } from '../../db/client.ts';
import type { Parent } from '../parents/parent.ts';
import { epicRecord, groupRecord, labelRecord, memberRecord, milestoneRecord, releaseRecord, USER_FIELDS } from './gitlab-format.ts';

/**
 * A project's top-level relations (GitLab's names): its own attributes (`self`), labels,
 * milestones, releases with their links, the repository as a git bundle, and its direct members
 * (`project_members`, as GitLab's project tree names them).
 */
export const PROJECT_RELATIONS = ['self', 'labels', 'milestones', 'releases', 'repository_bundle', 'project_members'] as const;
/** A group's: its attributes, labels, milestones, epics (with parents, labels, award emoji) and direct members. */
export const GROUP_RELATIONS = ['self', 'labels', 'milestones', 'epics', 'members'] as const;

export type ProjectRelation = (typeof PROJECT_RELATIONS)[number];
export type Relation = ProjectRelation | (typeof GROUP_RELATIONS)[number];

export const relationsOf = (kind: Parent['kind']): readonly Relation[] => (kind === 'project' ? PROJECT_RELATIONS : GROUP_RELATIONS);
export const isRelationOf = (kind: Parent['kind'], value: string): value is Relation => (relationsOf(kind) as readonly string[]).includes(value);

/**
 * Relations written in batches when the export is batched: the lists. As GitLab's, `self` (one
 * object) and the repository bundle are one file always.
 */
export const isBatchable = (relation: Relation) => relation !== 'repository_bundle' && relation !== 'self';

/**
 * GitLab's file names: `self.json.gz` (the one object GitLab's importer reads whole, written as
 * one JSON line), `<relation>.ndjson.gz`, and `repository_bundle.bundle`.
 */
export function fileExtension(relation: Relation) {
  if (relation === 'repository_bundle') return 'bundle';
  return relation === 'self' ? 'json.gz' : 'ndjson.gz';
}

/** Rows read per query while exporting: what bounds the export's memory. */
const PAGE_SIZE = 500;

/** Reads rows in id order, one page at a time. */
async function* keyset<T extends { id: number }>(fetch: (afterId: number, take: number) => Promise<T[]>): AsyncGenerator<T> {
  let after = 0;
  for (;;) {
    const rows = await fetch(after, PAGE_SIZE);
    yield* rows;
    if (rows.length < PAGE_SIZE) return;
    after = rows[rows.length - 1].id;
  }
}

/** One NDJSON relation of one portable: its records in file order, and how many there are (for the batches). */
export type RelationSource = { records: () => AsyncGenerator<object>; count: () => Promise<number> };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The records of an NDJSON relation of a project or a group. */
export function relationSource(db: Db, portable: Parent, relation: Relation, sourceHost: string): RelationSource {
  if (portable.kind === 'project') return projectSource(db, portable.project, relation, sourceHost);
  return groupSource(db, portable.group, relation, sourceHost);
}

type ProjectRow = Extract<Parent, { kind: 'project' }>['project'];
type GroupRow = Extract<Parent, { kind: 'group' }>['group'];

const one = (record: object): RelationSource => ({
  records: async function* () {
    yield record;
  },
  count: async () => 1,
});

function projectSource(db: Db, project: ProjectRow, relation: Relation, sourceHost: string): RelationSource {
  const where = { projectId: project.id };
  const page = (after: number, take: number) => ({ where: { ...where, id: { gt: after } }, orderBy: { id: 'asc' as const }, take });
  switch (relation) {
    case 'self':
      return one({
        name: project.name,
        path: project.path,
        description: project.description,
        visibility: project.visibility,
        default_branch: project.defaultBranch,
        archived: project.archived,
        created_at: iso(project.createdAt),
      });
    case 'labels':
      return labelSource(db, where);
    case 'milestones':
      return milestoneSource(db, where);
    case 'releases':
      return {
        records: async function* () {
          const include = { author: { select: USER_FIELDS }, links: { orderBy: { id: 'asc' as const } }, milestones: { include: { milestone: true } } };
          for await (const r of keyset((after, take) => db.release.findMany({ ...page(after, take), include }))) yield releaseRecord(r, sourceHost);
        },
        count: () => db.release.count({ where }),
      };
    case 'project_members':
      return memberSource(db, where, sourceHost);
    default:
      throw new Error(`${relation} is not an NDJSON relation of a project`);
  }
}

function groupSource(db: Db, group: GroupRow, relation: Relation, sourceHost: string): RelationSource {
  switch (relation) {
    case 'self':
      return one(groupRecord(group));
    case 'labels':
      return labelSource(db, { groupId: group.id });
    case 'milestones':
      return milestoneSource(db, { groupId: group.id });
    case 'epics':
      return epicSource(db, group.id, sourceHost);
    case 'members':
      return memberSource(db, { namespaceId: group.id }, sourceHost);
    default:
      throw new Error(`${relation} is not an NDJSON relation of a group`);
  }
}

type Owner = { projectId: number } | { groupId: number };
const after = (id: number) => ({ id: { gt: id } });

function labelSource(db: Db, where: Owner): RelationSource {
  return {
    records: async function* () {
      const rows = keyset((id, take) => db.label.findMany({ where: { ...where, ...after(id) }, orderBy: { id: 'asc' }, take }));
      for await (const label of rows) yield labelRecord(label);
    },
    count: () => db.label.count({ where }),
  };
}

function milestoneSource(db: Db, where: Owner): RelationSource {
  return {
    records: async function* () {
      const rows = keyset((id, take) => db.milestone.findMany({ where: { ...where, ...after(id) }, orderBy: { id: 'asc' }, take }));
      for await (const m of rows) yield milestoneRecord(m);
    },
    count: () => db.milestone.count({ where }),
  };
}

/** Direct members (no access requests: those are not members), each with the user they are. */
function memberSource(db: Db, where: { projectId: number } | { namespaceId: number }, sourceHost: string): RelationSource {
  return {
    records: async function* () {
      const include = { user: { select: USER_FIELDS } };
      const rows = keyset((id, take) => db.member.findMany({ where: { ...where, ...after(id) }, orderBy: { id: 'asc' }, take, include }));
      for await (const m of rows) yield memberRecord(m, sourceHost);
    },
    count: () => db.member.count({ where }),
  };
}

function epicSource(db: Db, groupId: number, sourceHost: string): RelationSource {
  const where = { groupId };
  return {
    records: async function* () {
      // One query per included relation per page, never one per epic.
      const include = {
        author: { select: USER_FIELDS },
        parent: true,
        labels: { include: { label: true }, orderBy: { labelId: 'asc' as const } },
        awardEmoji: { include: { user: { select: USER_FIELDS } }, orderBy: { id: 'asc' as const } },
      };
      const rows = keyset((id, take) => db.epic.findMany({ where: { ...where, ...after(id) }, orderBy: { id: 'asc' }, take, include }));
      for await (const e of rows) yield epicRecord(e, sourceHost);
    },
    count: () => db.epic.count({ where }),
  };
}
