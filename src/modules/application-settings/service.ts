import type { Context } from '../../core/context.ts';
import { readSettings, writeSettings, type ApplicationSettings, type SettingsChange } from '../../core/settings.ts';

/** Administrators only, as GitLab's `/application/settings`. */
export async function findSettings(ctx: Context): Promise<ApplicationSettings> {
  ctx.policy.requireAdmin();
  return readSettings(ctx.db);
}

type Nullable<T> = { [K in keyof T]?: T[K] | null };

export async function updateSettings(ctx: Context, change: Nullable<SettingsChange>): Promise<ApplicationSettings> {
  ctx.policy.requireAdmin();
  // Unset fields keep their value; GraphQL passes null for an omitted nullable input field.
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v != null)) as SettingsChange;
  return writeSettings(ctx.db, given);
}
