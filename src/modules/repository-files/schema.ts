import type { ObjectRef } from '@pothos/core';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { BlameRange, TreeEntryInfo } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import type { Types } from '../../graphql/payloads.ts';
import { CommitRef, RepositoryRef } from '../commits/index.ts';
import { projectFullPath } from '../projects/service.ts';
import {
  blameBlob,
  blobBytes,
  blobInfo,
  blobText,
  findBlobs,
  entriesAfter,
  findTree,
  isExecutable,
  lastCommitOf,
  lfsOidOf,
  type BlobAt,
  type TreeAt,
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
    rawBlob: t.string({
      description: 'Content: its first 10 MiB for bigger files (read those raw).',
      resolve: async (b) => (await blobBytes(b)).toString('utf8'),
    }),
    rawTextBlob: t.string({ nullable: true, description: 'Content, or null for binary files: its first 10 MiB for bigger ones.', resolve: (b) => blobText(b) }),
    base64EncodedBlob: t.string({
      description: 'Content, base64-encoded: its first 10 MiB for bigger files.',
      resolve: async (b) => (await blobBytes(b)).toString('base64'),
    }),
    lfsOid: t.string({ nullable: true, description: 'Object id when the file is a Git LFS pointer.', resolve: (b) => lfsOidOf(b) }),
    storedExternally: t.boolean({ resolve: async (b) => (await lfsOidOf(b)) !== null }),
    lastCommit: t.field({ type: CommitRef, nullable: true, resolve: (b) => withProject(b.project, lastCommitOf(b)) }),
    webPath: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/blob/${b.ref}/${b.path}` }),
    rawPath: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/raw/${b.ref}/${b.path}` }),
    blame: t.field({
      type: BlameRef,
      args: { fromLine: t.arg.int(), toLine: t.arg.int() },
      resolve: async (b, range) => ({ project: b.project, groups: await blameBlob(b, range) }),
    }),
  }),
});

const EntryTypeEnum = builder.enumType('EntryType', { values: ['tree', 'blob', 'commit'] as const });

const RefTypeEnum = builder.enumType('RefType', {
  description: 'Reads a ref as a branch or as a tag only.',
  values: { HEADS: { value: 'heads' }, TAGS: { value: 'tags' } } as const,
});

/** One entry of a tree, with what its web links are built from. */
type EntryAt = TreeEntryInfo & { project: ProjectWithNamespace; ref: string };

const webPath = (e: EntryAt, kind: 'tree' | 'blob') => `/${projectFullPath(e.project)}/-/${kind}/${e.ref}/${e.path}`;

const KIND_NAMES = { tree: 'TreeEntry', blob: 'Blob', commit: 'Submodule' } as const;

/** GitLab's `Entry` interface: what trees, blobs and submodules of a tree share. */
const EntryRef = builder.interfaceRef<EntryAt>('Entry').implement({
  resolveType: (e) => KIND_NAMES[e.type],
  fields: (t) => ({
    id: t.id({ resolve: (e) => `gid://gitlab/${KIND_NAMES[e.type]}/${e.oid}` }),
    sha: t.exposeString('oid', { description: 'Last commit SHA for the entry.' }),
    name: t.exposeString('name'),
    path: t.exposeString('path'),
    flatPath: t.exposeString('path'),
    type: t.expose('type', { type: EntryTypeEnum }),
  }),
});

const modeOf = (e: TreeEntryInfo) => e.mode.toString(8).padStart(6, '0');

const TreeEntryRef = builder.objectRef<EntryAt>('TreeEntry').implement({
  interfaces: [EntryRef],
  fields: (t) => ({
    mode: t.string({ resolve: modeOf }),
    webPath: t.string({ resolve: (e) => webPath(e, 'tree') }),
    webUrl: t.string({ resolve: (e, _a, ctx) => ctx.deps.config.externalUrl + webPath(e, 'tree') }),
  }),
});

const BlobEntryRef = builder.objectRef<EntryAt>('Blob').implement({
  interfaces: [EntryRef],
  fields: (t) => ({
    mode: t.string({ resolve: modeOf }),
    lfsOid: t.string({
      nullable: true,
      resolve: async (e, _a, ctx) => (await ctx.loaders.repository.load(e.project.id)).lfsOid(e.oid),
    }),
    webPath: t.string({ resolve: (e) => webPath(e, 'blob') }),
    webUrl: t.string({ resolve: (e, _a, ctx) => ctx.deps.config.externalUrl + webPath(e, 'blob') }),
  }),
});

const SubmoduleRef = builder.objectRef<EntryAt>('Submodule').implement({
  interfaces: [EntryRef],
  fields: (t) => ({
    mode: t.string({ resolve: modeOf }),
    webPath: t.string({ nullable: true, description: 'Submodule URLs are not read: null.', resolve: () => null }),
    webUrl: t.string({ nullable: true, description: 'Submodule URLs are not read: null.', resolve: () => null }),
    treeUrl: t.string({ nullable: true, description: 'Submodule URLs are not read: null.', resolve: () => null }),
  }),
});

const entriesOf = (tree: TreeAt, type?: TreeEntryInfo['type']): EntryAt[] =>
  tree.entries.filter((e) => !type || e.type === type).map((e) => ({ ...e, project: tree.project, ref: tree.ref }));

/** One connection field of the tree's entries of one type (trees, blobs, submodules). */
const entryConnection = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, TreeAt>, ref: ObjectRef<Types, EntryAt>, type: TreeEntryInfo['type'], name: string) =>
  t.connection({ type: ref, resolve: (tree, args) => listConnection(args, entriesOf(tree, type)) }, { name: `${name}Connection` }, { name: `${name}Edge` });

const TreeRef = builder.objectRef<TreeAt>('Tree').implement({
  description: 'A directory of the repository at a ref: one level, or everything below it when read recursively.',
  fields: (t) => ({
    trees: entryConnection(t, TreeEntryRef, 'tree', 'TreeEntry'),
    blobs: entryConnection(t, BlobEntryRef, 'blob', 'Blob'),
    submodules: entryConnection(t, SubmoduleRef, 'commit', 'Submodule'),
    entries: t.connection(
      {
        type: EntryRef,
        description: 'Every entry, directories first (the order of the REST tree listing).',
        args: { pageToken: t.arg.string({ description: 'Continue after the entry with this id (keyset pagination).' }) },
        resolve: (tree, args) => {
          const list = entriesAfter(entriesOf(tree), args.pageToken) as EntryAt[];
          return pagedConnection(args, { fetch: async ({ offset, limit }) => list.slice(offset, offset + limit), count: async () => list.length });
        },
      },
      { name: 'EntryConnection' },
      { name: 'EntryEdge' },
    ),
    lastCommit: t.field({
      type: CommitRef,
      nullable: true,
      resolve: (tree) => {
        const sha = tree.path === '' ? tree.commitSha : tree.repository.lastCommitFor(tree.commitSha, tree.path);
        return withProject(tree.project, sha ? tree.repository.commit(sha) : null);
      },
    }),
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
      return listConnection(args, list);
    },
  }),
  tree: t.field({
    type: TreeRef,
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    nullable: true,
    description: 'A directory at a ref (the default branch when none is given); null when either does not exist.',
    args: {
      path: t.arg.string({ defaultValue: '' }),
      ref: t.arg.string(),
      recursive: t.arg.boolean({ defaultValue: false }),
      refType: t.arg({ type: RefTypeEnum }),
    },
    resolve: (project, args, ctx) => findTree(ctx, project, args.path ?? '', args.ref ?? project.defaultBranch ?? 'HEAD', args),
  }),
}));
