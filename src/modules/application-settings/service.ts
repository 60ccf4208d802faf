import type { Context } from '../../core/context.ts';
import { ValidationError } from '../../core/errors.ts';
import { readSettings, writeSettings, type ApplicationSettings, type SettingsChange } from '../../core/settings.ts';

/** Administrators only, as GitLab's `/application/settings`. */
export async function findSettings(ctx: Context): Promise<ApplicationSettings> {
  ctx.policy.requireAdmin();
  return readSettings(ctx.db);
}

type Nullable<T> = { [K in keyof T]?: T[K] | null };

/**
 * The numeric settings, by their REST name, with their upper bound. A relation file's row is held
 * whole while it is parsed, so its limit stays far below the largest string the runtime can build.
 */
const LIMITS: { [K in keyof SettingsChange]?: { name: string; max?: number } } = {
  maxDecompressedArchiveSize: { name: 'max_decompressed_archive_size' },
  maxImportNdjsonRowSize: { name: 'max_import_ndjson_row_size', max: 256 },
  maxImportNdjsonRows: { name: 'max_import_ndjson_rows' },
};

/** Rails' numericality messages for each limit out of its range. */
function checkLimits(change: SettingsChange) {
  const errors: Record<string, string[]> = {};
  for (const [key, limit] of Object.entries(LIMITS) as [keyof SettingsChange, { name: string; max?: number }][]) {
    const value = change[key] as number | undefined;
    if (value === undefined) continue;
    if (value < 1) errors[limit.name] = ['must be greater than 0'];
    else if (limit.max !== undefined && value > limit.max) errors[limit.name] = [`must be less than or equal to ${limit.max}`];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

export async function updateSettings(ctx: Context, change: Nullable<SettingsChange>): Promise<ApplicationSettings> {
  ctx.policy.requireAdmin();
  // Unset fields keep their value; GraphQL passes null for an omitted nullable input field.
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v != null)) as SettingsChange;
  checkLimits(given);
  return writeSettings(ctx.db, given);
}
