import type { ObjectRef } from '@pothos/core';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { BlameRange, TreeEntryInfo } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { MAX_PAGE_SIZE } from '../../core/listing.ts';
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
  blobViewers,
  canPushToBlobBranch,
  fileTypeOf,
  languageOf,
  lastCommitAt,
  lastCommitOf,
  lastCommitOfTree,
  lfsOidOf,
  pageOfTree,
  rawSizeOf,
  submoduleUrls,
  type BlobAt,
  type BlobViewer,
  type TreeAt,
} from './service.ts';

const withProject = <T extends object>(project: ProjectWithNamespace, value: T | null) => value && { ...value, project };

const BlameGroupRef = builder.objectRef<BlameRange & { project: ProjectWithNamespace }>('Groups').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  description: 'Consecutive lines last changed by one commit (GitLab names the type `Groups`).',
  fields: (t) => ({
    commit: t.field({ type: CommitRef, nullable: false, resolve: (g) => ({ ...g.commit, project: g.project }) }),
    lineno: t.exposeInt('lineno', { nullable: false, description: 'First line of the group (1-based).' }),
    span: t.int({ nullable: false, resolve: (g) => g.lines.length }),
    lines: t.exposeStringList('lines', { nullable: false }),
  }),
});

const BlameRef = builder.objectRef<{ project: ProjectWithNamespace; groups: BlameRange[] }>('Blame').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  fields: (t) => ({
    firstLine: t.string({ nullable: true, resolve: (b) => b.groups[0]?.lines[0] ?? null }),
    groups: t.field({ type: [BlameGroupRef], resolve: (b) => b.groups.map((g) => ({ ...g, project: b.project })) }),
  }),
});

const BlobViewersTypeEnum = builder.enumType('BlobViewersType', {
  description: 'Types of blob viewers.',
  values: ['auxiliary', 'rich', 'simple'] as const,
});

/** GitLab's `BlobViewer`: how the blob page shows a file (text, download, markup, image…). */
const BlobViewerRef = builder.objectRef<BlobViewer>('BlobViewer').implement({
  description: 'Represents how the blob content should be displayed.',
  fields: (t) => ({
    type: t.field({ type: BlobViewersTypeEnum, nullable: false, resolve: (v) => v.type }),
    fileType: t.exposeString('fileType', { nullable: false }),
    tooLarge: t.exposeBoolean('tooLarge', { nullable: false, description: 'Whether the blob is too large to be viewed.' }),
    collapsed: t.exposeBoolean('collapsed', { nullable: false, description: 'Whether the blob should be displayed collapsed.' }),
    renderError: t.exposeString('renderError', { nullable: true, description: 'Error rendering the blob content.' }),
    loadAsync: t.exposeBoolean('loadAsync', { nullable: false }),
    loadingPartialName: t.exposeString('loadingPartialName', { nullable: false }),
  }),
});

/** The web paths of a blob, under the project's path (GitLab's BlobPresenter). */
const blobPath = (b: BlobAt, route: string, ref = b.ref) => `/${projectFullPath(b.project)}/-/${route}/${ref}/${b.path}`;

/** Null for every viewer: forgegate has no forks, Gitpod, environments or code intelligence. */
const absent = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, BlobAt>, description: string) => t.string({ nullable: true, description, resolve: () => null });

export const RepositoryBlobRef = builder.objectRef<BlobAt>('RepositoryBlob').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  description: 'A file at a path in the commit a ref resolves to.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (b) => `gid://gitlab/Blob/${b.entry.oid}` }),
    oid: t.string({ nullable: false, resolve: (b) => b.entry.oid }),
    name: t.string({ resolve: (b) => b.entry.name }),
    path: t.exposeString('path', { nullable: false }),
    mode: t.string({ resolve: (b) => b.entry.mode.toString(8) }),
    ref: t.exposeString('ref', { description: 'The ref as requested.' }),
    commitSha: t.exposeString('commitSha', { description: 'The commit the ref resolved to.' }),
    executeFilemode: t.boolean({ resolve: (b) => isExecutable(b.entry.mode) }),
    size: t.float({ resolve: async (b) => (await blobInfo(b)).size }),
    rawSize: t.float({ description: 'Size of the content: for a Git LFS pointer, of the object it names.', resolve: (b) => rawSizeOf(b) }),
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
    externalStorage: t.string({
      nullable: true,
      description: "External storage being used ('lfs'), when the file is stored externally.",
      resolve: async (b) => ((await lfsOidOf(b)) === null ? null : 'lfs'),
    }),
    externalStorageUrl: t.string({
      nullable: true,
      description: 'Where the externally stored content downloads from.',
      resolve: async (b, _a, ctx) => ((await lfsOidOf(b)) === null ? null : `${ctx.deps.config.externalUrl}${blobPath(b, 'raw')}?inline=false`),
    }),
    lastCommit: t.field({ type: CommitRef, nullable: true, resolve: (b) => withProject(b.project, lastCommitOf(b)) }),
    webPath: t.string({ resolve: (b) => blobPath(b, 'blob') }),
    rawPath: t.string({ resolve: (b) => blobPath(b, 'raw') }),
    blamePath: t.string({ resolve: (b) => blobPath(b, 'blame') }),
    historyPath: t.string({ resolve: (b) => blobPath(b, 'commits') }),
    permalinkPath: t.string({ description: 'The blob at the commit its ref resolved to.', resolve: (b) => blobPath(b, 'blob', b.commitSha) }),
    editBlobPath: t.string({ resolve: (b) => blobPath(b, 'edit') }),
    replacePath: t.string({ resolve: (b) => blobPath(b, 'update') }),
    ideEditPath: t.string({ resolve: (b) => `/-/ide/project/${projectFullPath(b.project)}/edit/${b.ref}/-/${b.path}` }),
    findFilePath: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/find_file/${b.ref}` }),
    projectBlobPathRoot: t.string({ resolve: (b) => `/${projectFullPath(b.project)}/-/blob/${b.ref}` }),
    forkAndEditPath: absent(t, 'Forks do not exist here: null.'),
    ideForkAndEditPath: absent(t, 'Forks do not exist here: null.'),
    forkAndViewPath: absent(t, 'Forks do not exist here: null.'),
    pipelineEditorPath: absent(t, 'Pipelines do not exist here: null.'),
    gitpodBlobUrl: absent(t, 'Gitpod is not integrated: null.'),
    environmentFormattedExternalUrl: absent(t, 'Environments do not exist here: null.'),
    environmentExternalUrlForRouteMap: absent(t, 'Environments do not exist here: null.'),
    codeNavigationPath: absent(t, 'Code intelligence does not exist here: null.'),
    fileType: t.string({
      description: "What the path says the file is (readme, license, gitlab_ci…), else the simple viewer's type.",
      resolve: async (b) => fileTypeOf(b.path) ?? (await blobViewers(b)).simple.fileType,
    }),
    language: t.string({ nullable: true, description: 'Highlighting language, from the extension.', resolve: (b) => languageOf(b.path) }),
    simpleViewer: t.field({ type: BlobViewerRef, nullable: false, resolve: async (b) => (await blobViewers(b)).simple }),
    richViewer: t.field({ type: BlobViewerRef, nullable: true, resolve: async (b) => (await blobViewers(b)).rich }),
    archived: t.boolean({ description: 'Whether the project is archived.', resolve: (b) => b.project.archived }),
    canModifyBlob: t.boolean({ resolve: (b, _a, ctx) => canPushToBlobBranch(ctx, b) }),
    canModifyBlobWithWebIde: t.boolean({ nullable: false, resolve: (b, _a, ctx) => canPushToBlobBranch(ctx, b) }),
    canCurrentUserPushToBranch: t.boolean({ resolve: (b, _a, ctx) => canPushToBlobBranch(ctx, b) }),
    blame: t.field({
      type: BlameRef,
      args: { fromLine: t.arg.int(), toLine: t.arg.int() },
      resolve: async (b, range) => ({ project: b.project, groups: await blameBlob(b, range) }),
    }),
  }),
});

const EntryTypeEnum = builder.enumType('EntryType', { values: ['tree', 'blob', 'commit'] as const });

const RefTypeEnum = builder.enumType('RefType', {
  description: 'Type of ref.',
  values: { HEADS: { value: 'heads', description: 'Ref type for branches.' }, TAGS: { value: 'tags', description: 'Ref type for tags.' } } as const,
});

/** One entry of a tree, with what its web links are built from. */
type EntryAt = TreeEntryInfo & { project: ProjectWithNamespace; ref: string; tree: TreeAt };

const webPath = (e: EntryAt, kind: 'tree' | 'blob') => `/${projectFullPath(e.project)}/-/${kind}/${e.ref}/${e.path}`;

const KIND_NAMES = { tree: 'TreeEntry', blob: 'Blob', commit: 'Submodule' } as const;

/** GitLab's `Entry` interface: what trees, blobs and submodules of a tree share. */
const EntryRef = builder.interfaceRef<EntryAt>('Entry').implement({
  resolveType: (e) => KIND_NAMES[e.type],
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (e) => `gid://gitlab/${KIND_NAMES[e.type]}/${e.oid}` }),
    sha: t.exposeString('oid', { nullable: false, description: 'Last commit SHA for the entry.' }),
    name: t.exposeString('name', { nullable: false }),
    path: t.exposeString('path', { nullable: false }),
    flatPath: t.exposeString('path', { nullable: false }),
    type: t.expose('type', { type: EntryTypeEnum, nullable: false }),
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

const submoduleUrlsOf = (ctx: Context, e: EntryAt) =>
  submoduleUrls(e.tree.repository, e.tree.commitSha, e, `${ctx.deps.config.externalUrl}/${projectFullPath(e.project)}`);

const SubmoduleRef = builder.objectRef<EntryAt>('Submodule').implement({
  interfaces: [EntryRef],
  fields: (t) => ({
    mode: t.string({ resolve: modeOf }),
    webPath: t.string({ nullable: true, description: 'Null: a submodule lives at another address (webUrl).', resolve: () => null }),
    webUrl: t.string({
      nullable: true,
      description: "The submodule's repository on the web, from `.gitmodules` (null when it names none).",
      resolve: (e, _a, ctx) => submoduleUrlsOf(ctx, e).webUrl,
    }),
    treeUrl: t.string({
      nullable: true,
      description: 'The commit the submodule is pinned at, on the web (null when `.gitmodules` names no URL).',
      resolve: (e, _a, ctx) => submoduleUrlsOf(ctx, e).treeUrl,
    }),
  }),
});

/** A tree, or one page of it (`paginatedTree`), whose entry lists are then that page whole. */
type TreeNode = TreeAt & { paged?: boolean };

const entriesOf = (tree: TreeAt, type?: TreeEntryInfo['type']): EntryAt[] =>
  tree.entries.filter((e) => !type || e.type === type).map((e) => ({ ...e, project: tree.project, ref: tree.ref, tree }));

/** One connection field of the tree's entries of one type (trees, blobs, submodules). */
const entryConnection = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, TreeNode>, ref: ObjectRef<Types, EntryAt>, type: TreeEntryInfo['type'], name: string) =>
  t.connection(
    {
      type: ref,
      nullable: false,
      // A page of paginatedTree holds at most 100 entries, all of which its lists show unless asked otherwise.
      resolve: (tree, args) =>
        listConnection(tree.paged && args.first == null && args.last == null ? { ...args, first: MAX_PAGE_SIZE } : args, entriesOf(tree, type)),
    },
    { name: `${name}Connection` },
    { name: `${name}Edge` },
  );

const TreeRef = builder.objectRef<TreeNode>('Tree').implement({
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
    lastCommit: t.field({ type: CommitRef, nullable: true, resolve: (tree) => withProject(tree.project, lastCommitOfTree(tree)) }),
  }),
});

/** The arguments GitLab's tree, paginatedTree and lastCommit take to name a directory at a ref. */
const treeArgs = (t: PothosSchemaTypes.FieldBuilder<Types, ProjectWithNamespace, 'Object'>['arg']) => ({
  path: t.string({ defaultValue: '' }),
  ref: t.string(),
  refType: t({ type: RefTypeEnum }),
});

type TreeArgs = { path?: string | null; ref?: string | null; refType?: 'heads' | 'tags' | null; recursive?: boolean | null };

const treeOf = (ctx: Context, project: ProjectWithNamespace, args: TreeArgs) =>
  findTree(ctx, project, args.path ?? '', args.ref ?? project.defaultBranch ?? 'HEAD', args);

builder.objectFields(RepositoryRef, (t) => ({
  blobs: t.connection(
    {
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      type: RepositoryBlobRef,
      description: 'Files at the given paths; paths that are missing or directories are left out.',
      args: { paths: t.arg.stringList({ required: true }), ref: t.arg.string(), refType: t.arg({ type: RefTypeEnum }) },
      resolve: async (project, args, ctx) => {
        const list = await findBlobs(ctx, project, args.paths, args.ref ?? 'HEAD', args.refType);
        return listConnection(args, list);
      },
    },
    { name: 'RepositoryBlobConnection' },
    { name: 'RepositoryBlobEdge' },
  ),
  tree: t.field({
    type: TreeRef,
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    nullable: true,
    description: 'A directory at a ref (the default branch when none is given); null when either does not exist.',
    args: { ...treeArgs(t.arg), recursive: t.arg.boolean({ defaultValue: false }) },
    resolve: (project, args, ctx) => treeOf(ctx, project, args),
  }),
  paginatedTree: t.connection(
    {
      type: TreeRef,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      nullable: true,
      description:
        'A directory at a ref, a page of its entries at a time (at most 100): each page is one Tree; its end cursor is the id of its last entry. Null when the ref or the directory does not exist.',
      args: { ...treeArgs(t.arg), recursive: t.arg.boolean({ defaultValue: false }) },
      resolve: async (project, args, ctx) => {
        const tree = await treeOf(ctx, project, args);
        if (!tree) return null;
        const size = Math.max(0, Math.min(args.first ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE));
        const page = pageOfTree(tree, args.after, size);
        const last = page.tree.entries[page.tree.entries.length - 1];
        // An empty directory is still one (empty) tree, as Gitaly answers it.
        const cursor = last?.oid ?? args.after ?? '';
        return {
          edges: [{ cursor, node: { ...page.tree, paged: true } }],
          pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: args.after || null, endCursor: cursor || null },
          totalCount: 1,
        };
      },
    },
    { name: 'TreeConnection' },
    { name: 'TreeEdge' },
  ),
  lastCommit: t.field({
    type: CommitRef,
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    nullable: true,
    description: 'The newest commit that changed the file or directory at `path` (the repository root by default) at a ref.',
    args: treeArgs(t.arg),
    resolve: async (project, args, ctx) =>
      withProject(project, await lastCommitAt(ctx, project, args.path ?? '', args.ref ?? project.defaultBranch ?? 'HEAD', args.refType)),
  }),
}));
