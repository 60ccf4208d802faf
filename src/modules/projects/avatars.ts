import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Upload } from '../../core/upload.ts';

/**
 * Project avatars on disk: `DATA_DIR/uploads/project/avatar/<project id>/<file name>`, GitLab's
 * layout, one file per project. The name is made path-safe before it is used (`safeFileName`),
 * and the project's folder holds only the current avatar.
 */
const avatarDir = (dataDir: string, projectId: number) => path.join(dataDir, 'uploads', 'project', 'avatar', String(projectId));

/** The upload's base name with anything but letters, digits, `.`, `_` and `-` replaced, never a dot name. */
export function safeFileName(name: string): string {
  const base = path.basename(name.replaceAll('\\', '/')).replace(/[^A-Za-z0-9._-]/g, '_');
  return /^\.*$/.test(base) ? 'avatar' : base;
}

/** Writes the avatar beside its place and renames it in, then removes the project's previous one. */
export async function storeAvatar(dataDir: string, projectId: number, upload: Upload, fileName: string): Promise<void> {
  const dir = avatarDir(dataDir, projectId);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const staging = path.join(dir, `.upload-${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(upload.stream(), createWriteStream(staging, { mode: 0o600 }));
    await fs.rename(staging, path.join(dir, fileName));
  } catch (error) {
    await fs.rm(staging, { force: true });
    throw error;
  }
  for (const other of await fs.readdir(dir)) if (other !== fileName) await fs.rm(path.join(dir, other), { force: true });
}

/** The avatar's path on disk, for a name `safeFileName` made. */
export const avatarFile = (dataDir: string, projectId: number, fileName: string) => path.join(avatarDir(dataDir, projectId), safeFileName(fileName));

/** Removes a deleted project's avatar folder. */
export const removeAvatars = (dataDir: string, projectId: number) => fs.rm(avatarDir(dataDir, projectId), { recursive: true, force: true });
