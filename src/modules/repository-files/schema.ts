import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { BlameRange, TreeEntryInfo } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { CommitRef, RepositoryRef } from '../commits/schema.ts';
import { projectFullPath } from '../projects/service.ts';
import {
  blameBlob,
  blobBytes,
  blobInfo,
  blobText,
  findBlobs,
  findTree,
  isExecutable,
  lastCommitOf,
  lfsOidOf,
  type BlobAt,
} from './service.ts';

const withProject = <T extends object>(project: ProjectWithNamespace, value: T | null) => value && { ...value, project };

const BlameGroupRef = builder.objectRef<BlameRange & { project: ProjectWithNamespace }>('BlameGroup').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  description: 'Consecutive lines last changed by one commit.',
  fields: (t) => ({
    commit: t.field({ type: CommitRef, resolve: (g) => ({ ...g.commit, project: g.project }) }),
    lineno: t.exposeInt('lineno', { description: 'First line of the group (1-based).' }),
    span: t.int({ resolve: (g) => g.lines.length }),
    lines: t.exposeStringList('lines'),
  }),
});

const BlameRef = builder.objectRef<{ project: ProjectWithNamespace; groups: BlameRange[] }>('Blame').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  fields: (t) => ({
    firstLine: t.string({ nullable: true, resolve: (b) => b.groups[0]?.lines[0] ?? null }),
    groups: t.field({ type: [BlameGroupRef], resolve: (b) => b.groups.map((g) => ({ ...g, project: b.project })) }),
  }),
});

export const RepositoryBlobRef = builder.objectRef<BlobAt>('RepositoryBlob').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  description: 'A file at a path in the commit a ref resolves to.',
  fields: (t) => ({
    id: t.id({ resolve: (b) => `gid://gitlab/Blob/${b.entry.oid}` }),
    oid: t.string({ resolve: (b) => b.entry.oid }),
    name: t.string({ resolve: (b) => b.entry.name }),
    path: t.exposeString('path'),
    mode: t.string({ resolve: (b) => b.entry.mode.toString(8) }),
    ref: t.exposeString('ref', { description: 'The ref as requested.' }),
    commitSha: t.exposeString('commitSha', { description: 'The commit the ref resolved to.' }),
    executeFilemode: t.boolean({ resolve: (b) => isExecutable(b.entry.mode) }),
    size: t.float({ resolve: async (b) => (await blobInfo(b)).size }),
    rawSize: t.float({ resolve: async (b) => (await blobInfo(b)).size }),
    contentSha256: t.string({ resolve: async (b) => (await blobInfo(b)).sha256 }),
    rawBlob: t.string({ resolve: (b) => blobBytes(b).toString('utf8') }),
    rawTextBlob: t.string({ nullable: true, description: 'Content, or null for binary files.', resolve: (b) => blobText(b) }),
    base64EncodedBlob: t.string({ resolve: (b) => blobBytes(b).toString('base64') }),
    lfsOid: t.string({ nullable: true, description: 'Object id when the file is a Git LFS pointer.', resolve: (b) => lfsOidOf(b) }),
    storedExternally: t.boolean({ resolve: async (b) => (await lfsOidOf(b)) !== null }),
    lastCommit: t.field({ type: CommitRef, nullable: true, resolve: (b) => withProject(b.project, lastCommitOf(b)) }),
    webPath: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/blob/${b.ref}/${b.path}` }),
    rawPath: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/raw/${b.ref}/${b.path}` }),
    blame: t.field({
      type: BlameRef,
      args: { fromLine: t.arg.int(), toLine: t.arg.int() },
      resolve: (b, range) => ({ project: b.project, groups: blameBlob(b, range) }),
    }),
  }),
});

const EntryTypeEnum = builder.enumType('EntryType', { values: ['tree', 'blob', 'commit'] as const });

const TreeEntryRef = builder.objectRef<TreeEntryInfo>('TreeEntry').implement({
  fields: (t) => ({
    id: t.id({ resolve: (e) => `gid://gitlab/TreeEntry/${e.oid}` }),
    sha: t.exposeString('oid'),
    name: t.exposeString('name'),
    path: t.exposeString('path'),
    flatPath: t.exposeString('path'),
    type: t.expose('type', { type: EntryTypeEnum }),
    mode: t.string({ resolve: (e) => e.mode.toString(8).padStart(6, '0') }),
  }),
});

const entryConnection = (t: any, type: TreeEntryInfo['type']) =>
  t.connection({
    type: TreeEntryRef,
    resolve: (tree: { entries: TreeEntryInfo[] }, args: any) => {
      const list = tree.entries.filter((e) => e.type === type);
      return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
    },
  });

const TreeRef = builder.objectRef<{ entries: TreeEntryInfo[] }>('Tree').implement({
  description: 'One directory level of the repository at a ref.',
  fields: (t) => ({
    trees: entryConnection(t, 'tree'),
    blobs: entryConnection(t, 'blob'),
    submodules: entryConnection(t, 'commit'),
  }),
});

builder.objectFields(RepositoryRef, (t) => ({
  blobs: t.connection({
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    type: RepositoryBlobRef,
    description: 'Files at the given paths; paths that are missing or directories are left out.',
    args: { paths: t.arg.stringList({ required: true }), ref: t.arg.string() },
    resolve: async (project, args, ctx) => {
      const list = await findBlobs(ctx, project, args.paths, args.ref ?? 'HEAD');
      return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
    },
  }),
  tree: t.field({
    type: TreeRef,
    nullable: true,
    args: { path: t.arg.string(), ref: t.arg.string() },
    resolve: (project, args, ctx) => findTree(ctx, project, args.path ?? '', args.ref ?? 'HEAD'),
  }),
}));
