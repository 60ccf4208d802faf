import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'express';
import { NotFoundError, ValidationError } from './errors.ts';
import { readUpload, type Upload } from './upload.ts';

// Avatars of users and groups (GitLab's Avatarable): stored under DATA_DIR/uploads/<model>/avatar/<id>/
// as `avatar.<type>`, whatever the uploaded file was called, so no client-chosen name reaches the
// file system, and served at GitLab's address, /uploads/-/system/<model>/avatar/<id>/avatar.<type>.

export type AvatarModel = 'user' | 'group';

/** GitLab's `Avatarable::MAXIMUM_FILE_SIZE`. */
const MAX_BYTES = 200 * 1024;

/** Image types by their first bytes: the name and the Content-Type a client says are not trusted. */
const TYPES: { ext: string; mime: string; matches: (b: Buffer) => boolean }[] = [
  { ext: 'png', mime: 'image/png', matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { ext: 'jpg', mime: 'image/jpeg', matches: (b) => b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) },
  { ext: 'gif', mime: 'image/gif', matches: (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')) },
  { ext: 'webp', mime: 'image/webp', matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
  { ext: 'bmp', mime: 'image/bmp', matches: (b) => b.subarray(0, 2).toString('latin1') === 'BM' },
  { ext: 'ico', mime: 'image/x-icon', matches: (b) => b.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0])) },
  { ext: 'tiff', mime: 'image/tiff', matches: (b) => ['II*\0', 'MM\0*'].includes(b.subarray(0, 4).toString('latin1')) },
];

const FORMATS = 'png, jpg, jpeg, gif, bmp, tiff, ico, webp';
const STORED_NAME = new RegExp(`^avatar\\.(${TYPES.map((t) => t.ext).join('|')})$`);

/** An avatar read and checked, ready to store. */
export type Avatar = { bytes: Buffer; ext: string };

/** Reads an uploaded avatar, refused as GitLab refuses it: past 200 KiB, or not an image of a known type. */
export async function readAvatar(upload: Upload): Promise<Avatar> {
  if (upload.size > MAX_BYTES) throw new ValidationError({ avatar: ['is too big (should be at most 200 KiB)'] });
  const bytes = await readUpload(upload);
  const type = TYPES.find((t) => t.matches(bytes));
  if (!type || bytes.length > MAX_BYTES) {
    throw new ValidationError({ avatar: [`file format is not supported. Please try one of the following supported formats: ${FORMATS}`] });
  }
  return { bytes, ext: type.ext };
}

const directory = (dataDir: string, model: AvatarModel, id: number) => path.join(dataDir, 'uploads', model, 'avatar', String(id));

/** Stores an avatar in place of the previous one; returns the stored file name (what the model's `avatar` column keeps). */
export async function writeAvatar(dataDir: string, model: AvatarModel, id: number, avatar: Avatar): Promise<string> {
  const dir = directory(dataDir, model, id);
  await fs.promises.rm(dir, { recursive: true, force: true });
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `avatar.${avatar.ext}`;
  await fs.promises.writeFile(path.join(dir, name), avatar.bytes, { mode: 0o600 });
  return name;
}

/** The address an avatar is served at, null without one. */
export const avatarUrl = (externalUrl: string, model: AvatarModel, id: number, name: string | null) =>
  name ? `${externalUrl}/uploads/-/system/${model}/avatar/${id}/${name}` : null;

/**
 * Sends a stored avatar, for a route that has checked the viewer may see its model and read the
 * address it answers (`url`): the requested name must be the one stored, and a stored one.
 */
export async function sendAvatar(res: Response, dataDir: string, served: { model: AvatarModel; id: number; name: string; url: string | null }): Promise<void> {
  if (!served.url?.endsWith(`/${served.id}/${served.name}`) || !STORED_NAME.test(served.name)) throw new NotFoundError();
  // At most 200 KiB: read whole, so a file gone meanwhile is a 404 rather than a broken stream.
  const bytes = await fs.promises.readFile(path.join(directory(dataDir, served.model, served.id), served.name)).catch(() => {
    throw new NotFoundError();
  });
  const type = TYPES.find((t) => served.name.endsWith(`.${t.ext}`))!;
  res.setHeader('Content-Type', type.mime);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(bytes);
}
