import type { Db } from '../db/client.ts';
import type { ApplicationSetting } from '../generated/prisma/client.ts';

export type ApplicationSettings = Omit<ApplicationSetting, 'id'>;

/** What an instance that nobody has configured yet runs with (GitLab's defaults). */
export const DEFAULT_SETTINGS: ApplicationSettings = {
  bulkImportEnabled: false,
  allowLocalRequestsFromWebHooksAndServices: false,
  dnsRebindingProtectionEnabled: true,
  maxDecompressedArchiveSize: 256,
  maxImportNdjsonRowSize: 50,
  maxImportNdjsonRows: 100_000,
  allowBypassPlaceholderConfirmation: false,
  updatedAt: new Date(0),
};

/**
 * The instance's settings, read from the database on every call: several processes share one
 * database and an administrator's change must hold for all of them at once. One primary-key read.
 */
export async function readSettings(db: Db): Promise<ApplicationSettings> {
  const row = await db.applicationSetting.findUnique({ where: { id: 1 } });
  if (!row) return DEFAULT_SETTINGS;
  const { id: _id, ...settings } = row;
  return settings;
}

export type SettingsChange = Partial<Omit<ApplicationSettings, 'updatedAt'>>;

/** Writes the given settings (the row is created on the first change). */
export async function writeSettings(db: Db, change: SettingsChange): Promise<ApplicationSettings> {
  const { id: _id, ...settings } = await db.applicationSetting.upsert({ where: { id: 1 }, create: { id: 1, ...change }, update: change });
  return settings;
}
