import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Pointer files are tiny; anything bigger is content, not a pointer. */
const MAX_POINTER_BYTES = 1024;
const POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:([0-9a-f]{64})\n/;
const OID = /^[0-9a-f]{64}$/;

export const isLfsOid = (oid: string) => OID.test(oid);

/** The LFS object id of a blob of `size` bytes (read only when small enough), or null when it is no pointer. */
export function lfsPointerOid(size: number, read: () => Buffer): string | null {
  if (size > MAX_POINTER_BYTES) return null;
  return POINTER.exec(read().toString('utf8'))?.[1] ?? null;
}

/**
 * Where a project's LFS object lives: DATA_DIR/lfs-objects/<project>/<aa>/<bb>/<oid>. Built from
 * a validated hex id and a numeric project id only.
 */
function objectPath(dataDir: string, projectId: number, oid: string) {
  return path.join(dataDir, 'lfs-objects', String(projectId), oid.slice(0, 2), oid.slice(2, 4), oid);
}

/** A project's LFS object, or null when the store does not hold it. */
export async function lfsObject(dataDir: string, projectId: number, oid: string): Promise<{ path: string; size: number } | null> {
  if (!isLfsOid(oid)) return null;
  const file = objectPath(dataDir, projectId, oid);
  try {
    const stat = await fs.stat(file);
    return stat.isFile() ? { path: file, size: stat.size } : null;
  } catch {
    return null;
  }
}

/** The uploaded bytes are not the object they claim to be (SHA-256 or size differ). */
export class LfsObjectMismatchError extends Error {}

/**
 * Streams an upload into the project's store. Bytes go to a private temporary file while their
 * SHA-256 and length are checked; only a matching object is renamed into place, so readers never
 * see a partial or wrong object and concurrent uploads of one object both end with it whole.
 */
export async function storeLfsObject(dataDir: string, projectId: number, object: { oid: string; size: number }, body: Readable): Promise<void> {
  if (!isLfsOid(object.oid)) throw new LfsObjectMismatchError();
  const file = objectPath(dataDir, projectId, object.oid);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const hash = createHash('sha256');
  let received = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > object.size) return done(new LfsObjectMismatchError());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, measure, createWriteStream(temporary, { flags: 'wx', mode: 0o644 }));
    if (received !== object.size || hash.digest('hex') !== object.oid) throw new LfsObjectMismatchError();
    await fs.rename(temporary, file);
  } finally {
    await fs.rm(temporary, { force: true });
  }
}
