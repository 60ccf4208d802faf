import DataLoader from 'dataloader';
import type { AwardEmoji, Epic, Label, Todo } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { Context } from '../../core/context.ts';
import { batchBy, batchGroupBy } from '../../core/loaders.ts';
import { ancestorIds, descendantCounts, inheritedDates } from './store.ts';
import { featureEnabled } from '../../flags/index.ts';

/** What a viewer may do with the epics of one group, decided once per group and request. */
export type EpicAbilities = {
  read: boolean;
  /** Confidential epics are for Reporters and above. */
  readConfidential: boolean;
  /** Create, edit, close, nest (GitLab's `admin_epic`): Reporters and above. */
  admin: boolean;
  /** Delete (GitLab's `destroy_epic`): Owners. */
  destroy: boolean;
};

const NONE: EpicAbilities = { read: false, readConfidential: false, admin: false, destroy: false };

async function abilitiesIn(ctx: Context, groupId: number): Promise<EpicAbilities> {
  const group = await ctx.loaders.namespace.load(groupId);
  if (!group) return NONE;
  const read = await ctx.policy.canReadNamespace(group);
  const level = read ? await ctx.policy.groupAccessLevel(group) : 0;
  return {
    read,
    readConfidential: read && level >= AccessLevel.REPORTER,
    admin: read && level >= AccessLevel.REPORTER,
    destroy: read && level >= AccessLevel.OWNER,
  };
}

export type InheritedDates = { startDate: Date | null; dueDate: Date | null };

export type DescendantCounts = { openedEpics: number; closedEpics: number };

export type AwardCounts = { upvotes: number; downvotes: number };

const mapLoader = <V>(load: (ids: readonly number[]) => Promise<Map<number, V>>, empty: V) =>
  new DataLoader<number, V>(async (ids) => {
    const found = await load(ids);
    return ids.map((id) => found.get(id) ?? empty);
  });

/** Per-request DataLoaders of the epics area: one query per tick for each kind of lookup. */
export function createEpicLoaders(ctx: Context) {
  const { db } = ctx;
  const iidKey = (groupId: number, iid: number) => `${groupId}:${iid}`;
  const byIid = batchBy<string, Epic>(
    (keys) =>
      db.epic.findMany({
        where: {
          OR: keys.map((k) => {
            const [groupId, iid] = k.split(':').map(Number);
            return { groupId, iid };
          }),
        },
      }),
    (e) => iidKey(e.groupId, e.iid),
  );
  const viewerId = ctx.viewer.userId;
  let colorEnabled: Promise<boolean> | undefined;
  return {
    /** The flag `epic_highlight_color` for the viewer, asked once per request. */
    colorEnabled: () => (colorEnabled ??= featureEnabled(ctx.deps, 'epic_highlight_color', ctx.viewer.user)),
    abilities: new DataLoader<number, EpicAbilities>((ids) => Promise.all(ids.map((id) => abilitiesIn(ctx, id)))),
    byId: batchBy<number, Epic>(
      (ids) => db.epic.findMany({ where: { id: { in: [...ids] } } }),
      (e) => e.id,
    ),
    byIid: {
      load: (groupId: number, iid: number) => byIid.load(iidKey(groupId, iid)),
      clear: (groupId: number, iid: number) => byIid.clear(iidKey(groupId, iid)),
    },
    children: batchGroupBy<number, Epic>(
      // In their tree order: placed ones by position, the others after them by creation.
      (ids) => db.epic.findMany({ where: { parentId: { in: [...ids] } }, orderBy: [{ relativePosition: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }] }),
      (e) => e.parentId!,
    ),
    ancestorIds: mapLoader((ids) => ancestorIds(ctx.db, ids), [] as number[]),
    /** Labels of each epic, sorted by name as GitLab lists them. */
    labels: batchGroupBy<number, Label & { epicId: number }>(
      async (ids) =>
        (await db.epicLabel.findMany({ where: { epicId: { in: [...ids] } }, include: { label: true } }))
          .map((el) => ({ ...el.label, epicId: el.epicId }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id)),
      (l) => l.epicId,
    ),
    awards: batchGroupBy<number, AwardEmoji>(
      (ids) => db.awardEmoji.findMany({ where: { epicId: { in: [...ids] } }, orderBy: { id: 'asc' } }),
      (a) => a.epicId,
    ),
    awardCounts: mapLoader(
      async (ids) => {
        const rows = await db.awardEmoji.groupBy({
          by: ['epicId', 'name'],
          where: { epicId: { in: [...ids] }, name: { in: ['thumbsup', 'thumbsdown'] } },
          _count: { _all: true },
        });
        const counts = new Map<number, AwardCounts>();
        for (const row of rows) {
          const entry = counts.get(row.epicId) ?? { upvotes: 0, downvotes: 0 };
          if (row.name === 'thumbsup') entry.upvotes = row._count._all;
          else entry.downvotes = row._count._all;
          counts.set(row.epicId, entry);
        }
        return counts;
      },
      { upvotes: 0, downvotes: 0 },
    ),
    inheritedDates: mapLoader((ids) => inheritedDates(ctx.db, ids), { startDate: null, dueDate: null } as InheritedDates),
    descendantCounts: mapLoader((ids) => descendantCounts(ctx.db, ids), { openedEpics: 0, closedEpics: 0 } as DescendantCounts),
    /** The viewer's to-do items about each epic, oldest first (none for anonymous viewers). */
    viewerTodos: batchGroupBy<number, Todo>(
      async (ids) => (viewerId == null ? [] : db.todo.findMany({ where: { userId: viewerId, epicId: { in: [...ids] } }, orderBy: { id: 'asc' } })),
      (todo) => todo.epicId!,
    ),
    /** The viewer's explicit (un)subscriptions; absent means the default (the author is subscribed). */
    subscriptions: mapLoader(
      async (ids) => {
        if (viewerId == null) return new Map<number, boolean>();
        const rows = await db.epicSubscription.findMany({ where: { userId: viewerId, epicId: { in: [...ids] } } });
        return new Map(rows.map((r) => [r.epicId, r.subscribed]));
      },
      null as boolean | null,
    ),
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    epics: ReturnType<typeof createEpicLoaders>;
  }
}
