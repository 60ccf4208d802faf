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
  treeId(): string;
  tree(): NativeTree;
}

export interface NativeTreeEntry {
  id(): string;
  name(): string;
  filemode(): number;
  type(): string | null;
  toObject(repo: NativeRepository): NativeObject;
}

export interface NativeTree {
  id(): string;
  getPath(path: string): NativeTreeEntry | null;
  iter(): Iterable<NativeTreeEntry>;
  len(): number;
}

export interface NativeBlob {
  id(): string;
  content(): Uint8Array;
  size(): bigint | number;
  isBinary(): boolean;
}

export interface NativeObject {
  id(): string;
  type(): string | null;
  peelToCommit(): NativeCommit;
  peelToBlob(): NativeBlob;
}

export interface NativeTag {
  id(): string;
  name(): string | null;
  message(): string | null;
  targetId(): string;
  tagger(): Signature | null;
}

export interface NativeRevwalk {
  push(oid: string): void;
  next(): string | null;
}

export type NativeBlameHunk = { finalCommitId: string; finalStartLineNumber: number; linesInHunk: number };

export interface NativeBlame {
  iter(): Iterable<NativeBlameHunk>;
}

export interface NativeRepository {
  path(): string;
  revwalk(): NativeRevwalk;
  revparseSingle(spec: string): string;
  getObject(oid: string): NativeObject;
  getCommit(oid: string): NativeCommit;
  getTree(oid: string): NativeTree;
  getTag(oid: string): NativeTag;
  tagNames(pattern?: string): string[];
  blameFile(path: string, options?: { minLine?: number; maxLine?: number; newestCommit?: string }): NativeBlame;
  isEmpty(): boolean;
}

type Native = {
  openRepository(path: string, options?: { bare?: boolean }): Promise<NativeRepository>;
  isValidOid(oid: string): boolean;
};

export const native = require('es-git-linux-x64-gnu') as Native;
