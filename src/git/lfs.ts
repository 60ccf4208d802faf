import fs from 'node:fs/promises';
import path from 'node:path';
import { blobContent, blobInfo } from './blobs.ts';
import type { RepositoryReader } from './reader.ts';

/** Pointer files are tiny; anything bigger is content, not a pointer. */
const MAX_POINTER_BYTES = 1024;
const POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:([0-9a-f]{64})\n/;

/** The LFS object id a blob points to, or null when the blob is not a Git LFS pointer. */
export async function lfsPointerOid(reader: RepositoryReader, oid: string): Promise<string | null> {
  if ((await blobInfo(reader, oid)).size > MAX_POINTER_BYTES) return null;
  return POINTER.exec(blobContent(reader, oid).toString('utf8'))?.[1] ?? null;
}

/**
 * A project's LFS object under DATA_DIR/lfs-objects/<project>/<aa>/<bb>/<oid>, or null when the
 * store does not hold it. The path is built from a validated hex id and a numeric project id only.
 */
export async function lfsObject(dataDir: string, projectId: number, oid: string): Promise<{ path: string; size: number } | null> {
  if (!/^[0-9a-f]{64}$/.test(oid)) return null;
  const file = path.join(dataDir, 'lfs-objects', String(projectId), oid.slice(0, 2), oid.slice(2, 4), oid);
  try {
    const stat = await fs.stat(file);
    return stat.isFile() ? { path: file, size: stat.size } : null;
  } catch {
    return null;
  }
}
