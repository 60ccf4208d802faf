import { createRequire } from 'node:module';

// es-git's own package lists optional binaries for platforms this registry does not carry, which
// makes `npm ci` reject the lockfile; the Linux x64 binary package is the same library, loaded
// directly. Only the part of its API forgegate uses is typed here.
const require = createRequire(import.meta.url);

export type Signature = { name: string; email: string; timestamp: number };

export interface NativeCommit {
  id(): string;
  summary(): string | null;
  message(): string;
  author(): Signature;
  committer(): Signature;
  tree(): NativeTree;
}

export interface NativeTreeEntry {
  id(): string;
  name(): string;
  filemode(): number;
  type(): string | null;
}

export interface NativeTree {
  getPath(path: string): NativeTreeEntry | null;
  iter(): Iterable<NativeTreeEntry>;
}

export interface NativeBlob {
  content(): Uint8Array;
}

export interface NativeObject {
  peelToCommit(): NativeCommit;
  peelToBlob(): NativeBlob;
}

export interface NativeTag {
  message(): string | null;
  tagger(): Signature | null;
}

export interface NativeReference {
  /** The object a direct reference points to; null for a symbolic one. */
  target(): string | null;
}

export interface NativeRevwalk {
  push(oid: string): void;
  next(): string | null;
}

export type NativeBlameHunk = { finalCommitId: string; finalStartLineNumber: number; linesInHunk: number };

export interface NativeBlame {
  iter(): Iterable<NativeBlameHunk>;
}

/** A commit's author or committer as libgit2 takes it: seconds since the epoch, offset in minutes. */
export type NativeSignature = { name: string; email: string; timeOptions: { timestamp: number; offset: number } };

export interface NativeRepository {
  revwalk(): NativeRevwalk;
  revparseSingle(spec: string): string;
  getObject(oid: string): NativeObject;
  getCommit(oid: string): NativeCommit;
  /** The signature header of a commit (`gpgsig`) and the bytes it signs; null for an unsigned commit. */
  extractSignature(oid: string): { signature: string; signedData: string } | null;
  getTree(oid: string): NativeTree;
  /** The annotated tag object with this id; null for any other object. */
  findTag(oid: string): NativeTag | null;
  tagNames(): string[];
  findReference(name: string): NativeReference | null;
  branches(filter?: { type?: 'Local' | 'Remote' }): Iterable<{ type: string; name: string }>;
  blameFile(path: string, options?: { minLine?: number; maxLine?: number; newestCommit?: string }): NativeBlame;
  /**
   * Writes a commit of `tree` and, with `updateRef`, moves that ref to it only while the ref still
   * points at the first parent (libgit2 answers code -15, "current tip is not the first parent",
   * otherwise), under git's own lock file. A ref that does not exist yet is created unchecked.
   */
  commit(tree: NativeTree, message: string, options: { updateRef?: string; parents?: string[]; author?: NativeSignature; committer?: NativeSignature }): string;
  /** Creates `refs/heads/<name>` at a commit; with `force` false, fails (code -4, Exists) if it exists, under git's lock file. */
  createBranch(name: string, commit: NativeCommit, options: { force: boolean }): unknown;
  /** Creates `refs/tags/<name>` at any object (a tag object makes it annotated); fails (code -4, Exists) if it exists. */
  createLightweightTag(name: string, target: NativeObject): string;
}

type Native = {
  openRepository(path: string, options?: { bare?: boolean }): Promise<NativeRepository>;
};

export const native = require('es-git-linux-x64-gnu') as Native;
