import type { AlertNote, Todo, User } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import { batchGroupBy } from '../../core/loaders.ts';

/** Per-request DataLoaders of the alerts area: what each alert of a page lists, one query per kind. */
export function createAlertLoaders(ctx: Context) {
  const { db } = ctx;
  return {
    /** Every note of each alert, oldest first (GitLab's order on the alert's page). */
    notes: batchGroupBy<number, AlertNote>(
      (alertIds) => db.alertNote.findMany({ where: { alertId: { in: [...alertIds] } }, orderBy: { id: 'asc' } }),
      (note) => note.alertId,
    ),
    assignees: batchGroupBy<number, User & { alertId: number }>(
      async (alertIds) =>
        (await db.alertAssignee.findMany({ where: { alertId: { in: [...alertIds] } }, include: { user: true }, orderBy: { userId: 'asc' } })).map((a) => ({
          ...a.user,
          alertId: a.alertId,
        })),
      (user) => user.alertId,
    ),
    /** The viewer's pending to-dos of each alert (none for an anonymous viewer). */
    viewerTodos: batchGroupBy<number, Todo>(
      async (alertIds) =>
        ctx.viewer.userId == null
          ? []
          : db.todo.findMany({ where: { userId: ctx.viewer.userId, alertId: { in: [...alertIds] }, state: 'pending' }, orderBy: { id: 'asc' } }),
      (todo) => todo.alertId!,
    ),
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    alerts: ReturnType<typeof createAlertLoaders>;
  }
}
