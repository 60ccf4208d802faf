import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { RepositoryReader } from './reader.ts';
import { gitEnv, runGit } from './run.ts';

export type EntryType = 'blob' | 'tree' | 'commit';
export type TreeEntryInfo = { oid: string; mode: number; type: EntryType; name: string; path: string };
export type BlobInfo = { size: number; sha256: string };

/** Blobs up to this size are read in-process through libgit2; bigger ones are streamed by git. */
export const SMALL_BLOB_BYTES = 1024 * 1024;
export const EXECUTABLE_MODE = 0o100755;

/** A Map that forgets its oldest entries: commits and blobs are immutable, so entries never go stale. */
class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K) {
    return this.map.get(key);
  }
  has(key: K) {
    return this.map.has(key);
  }
  set(key: K, value: V) {
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    return value;
  }
}

const entries = new BoundedCache<string, TreeEntryInfo | null>(50_000);
const lastCommits = new BoundedCache<string, string | null>(20_000);
const blobInfos = new BoundedCache<string, BlobInfo>(50_000);

const TYPES: Record<string, EntryType> = { Blob: 'blob', Tree: 'tree', Commit: 'commit' };

function lookupEntry(reader: RepositoryReader, commitSha: string, path: string): TreeEntryInfo | null {
  try {
    const entry = reader.native.getCommit(commitSha).tree().getPath(path);
    const type = entry && TYPES[entry.type() ?? ''];
    return entry && type ? { oid: entry.id(), mode: entry.filemode(), type, name: entry.name(), path } : null;
  } catch {
    return null;
  }
}

/** The tree entry at `path` in a commit, cached per (commit, path). */
export function entryAt(reader: RepositoryReader, commitSha: string, path: string): TreeEntryInfo | null {
  const key = `${commitSha}\0${path}`;
  if (entries.has(key)) return entries.get(key)!;
  return entries.set(key, lookupEntry(reader, commitSha, path));
}

/** One level of a directory: the entries of the tree at `path` ('' is the root). */
export function listTree(reader: RepositoryReader, commitSha: string, path: string): TreeEntryInfo[] | null {
  const tree = path === '' ? reader.native.getCommit(commitSha).tree() : treeAt(reader, commitSha, path);
  if (!tree) return null;
  const prefix = path === '' ? '' : `${path}/`;
  return [...tree.iter()].flatMap((e) => {
    const type = TYPES[e.type() ?? ''];
    return type ? [{ oid: e.id(), mode: e.filemode(), type, name: e.name(), path: prefix + e.name() }] : [];
  });
}

function treeAt(reader: RepositoryReader, commitSha: string, path: string) {
  const entry = entryAt(reader, commitSha, path);
  if (entry?.type !== 'tree') return null;
  return reader.native.getTree(entry.oid);
}

function parentsOf(reader: RepositoryReader, sha: string): string[] {
  const parents: string[] = [];
  for (let n = 1; ; n++) {
    try {
      parents.push(reader.native.revparseSingle(`${sha}^${n}`));
    } catch {
      return parents;
    }
  }
}

/**
 * The newest commit reachable from `commitSha` that changed `path` (git log -1 -- path): the first
 * commit in the walk whose entry differs from every parent's. Cached per (commit, path).
 */
export function lastCommitFor(reader: RepositoryReader, commitSha: string, path: string): string | null {
  const key = `${commitSha}\0${path}`;
  if (lastCommits.has(key)) return lastCommits.get(key)!;
  const walk = reader.native.revwalk();
  walk.push(commitSha);
  for (let sha = walk.next(); sha; sha = walk.next()) {
    const oid = entryAt(reader, sha, path)?.oid ?? null;
    const parents = parentsOf(reader, sha);
    const unchanged = parents.some((parent) => (entryAt(reader, parent, path)?.oid ?? null) === oid);
    if (oid !== null && !unchanged) return lastCommits.set(key, sha);
  }
  return lastCommits.set(key, null);
}

/** Whole content of a blob, read through libgit2 (callers keep this to small blobs). */
export function blobContent(reader: RepositoryReader, oid: string): Buffer {
  return Buffer.from(reader.native.getObject(oid).peelToBlob().content());
}

/** `git cat-file blob <oid>` as a stream: big blobs never sit in memory. */
export function streamBlob(reader: RepositoryReader, oid: string): Readable {
  if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`not an object id: ${oid}`);
  const child = spawn('git', ['cat-file', 'blob', oid], { cwd: reader.native.path(), env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
  return child.stdout;
}

/** Records size and SHA-256 of content already in memory. */
export function rememberBlob(oid: string, content: Buffer): BlobInfo {
  return blobInfos.set(oid, { size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
}

/**
 * Size and SHA-256 of a blob without holding it in memory: small blobs are read once through
 * libgit2, big ones hashed while git streams them. Cached per blob id.
 */
export async function blobInfo(reader: RepositoryReader, oid: string): Promise<BlobInfo> {
  const cached = blobInfos.get(oid);
  if (cached) return cached;
  const size = Number((await runGit(reader.native.path(), ['cat-file', '-s', oid])).trim());
  if (size <= SMALL_BLOB_BYTES) return rememberBlob(oid, blobContent(reader, oid));
  const hash = createHash('sha256');
  for await (const chunk of streamBlob(reader, oid)) hash.update(chunk as Buffer);
  return blobInfos.set(oid, { size, sha256: hash.digest('hex') });
}
