import { createHash } from 'node:crypto';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { CommitInfo, DiffEntry, DiffStats } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type Types } from '../../graphql/payloads.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import { projectFullPath, requireCodeOfProject } from '../projects/service.ts';
import { UserRef } from '../users/index.ts';
import {
  commitDiffs,
  commitSignature,
  commitStatsOf,
  compareRefs,
  createCommit,
  diffLimits,
  diffStatsOf,
  findCommit,
  listCommits,
  readableRepository,
  type CommitSignature,
  type Comparison,
  type FileDiffStats,
} from './service.ts';

type CommitParent = CommitInfo & { project: ProjectWithNamespace };

const CommitStatsRef = builder.objectRef<DiffStats>('CommitStats').implement({
  description: 'Lines a commit adds and removes against its first parent.',
  fields: (t) => ({
    additions: t.exposeInt('additions'),
    deletions: t.exposeInt('deletions'),
    total: t.exposeInt('total'),
  }),
});

/** GitLab's `Diff` type: one changed file. */
export const DiffRef = builder.objectRef<DiffEntry>('Diff').implement({
  fields: (t) => ({
    oldPath: t.exposeString('oldPath'),
    newPath: t.exposeString('newPath'),
    aMode: t.exposeString('aMode'),
    bMode: t.exposeString('bMode'),
    diff: t.exposeString('diff'),
    newFile: t.exposeBoolean('newFile'),
    renamedFile: t.exposeBoolean('renamedFile'),
    deletedFile: t.exposeBoolean('deletedFile'),
    generatedFile: t.exposeBoolean('generatedFile'),
    collapsed: t.boolean({ description: 'The patch is past the size at which GitLab shows it collapsed.', resolve: (d) => diffLimits(d).collapsed }),
    tooLarge: t.boolean({ description: 'The patch is past the size GitLab shows at all.', resolve: (d) => diffLimits(d).tooLarge }),
  }),
});

export const CommitRef = builder.objectRef<CommitParent>('Commit').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (c) => `gid://gitlab/CommitPresenter/${c.id}` }),
    sha: t.exposeString('id', { nullable: false }),
    shortId: t.exposeString('shortId', { nullable: false }),
    title: t.exposeString('title'),
    message: t.exposeString('message'),
    parentIds: t.exposeStringList('parentIds'),
    authorName: t.exposeString('authorName'),
    authorEmail: t.exposeString('authorEmail'),
    authoredDate: t.expose('authoredDate', { type: 'Time' }),
    committerName: t.exposeString('committerName'),
    committerEmail: t.exposeString('committerEmail'),
    committedDate: t.expose('committedDate', { type: 'Time' }),
    webUrl: t.string({ nullable: false, resolve: (c, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(c.project)}/-/commit/${c.id}` }),
    project: t.field({ type: ProjectRef, description: 'The project the commit was read from.', resolve: (c) => c.project }),
    stats: t.field({
      type: CommitStatsRef,
      nullable: true,
      description: 'Lines added and removed against the first parent.',
      resolve: (c, _a, ctx) => commitStatsOf(ctx, c.project, c.id),
    }),
    diffs: t.field({
      type: [DiffRef],
      nullable: true,
      description: 'Changes against the first parent.',
      resolve: (c, _a, ctx) => commitDiffs(ctx, c.project, c),
    }),
  }),
});

const CommitsOrderEnum = builder.enumType('CommitsOrder', {
  description: 'Order of a commit listing, as `git log` walks it.',
  values: { DEFAULT: { value: 'default', description: 'Reverse chronological.' }, TOPO: { value: 'topo', description: 'Children before parents.' } } as const,
});

const ComparisonRef = builder.objectRef<Comparison & { project: ProjectWithNamespace; from: string; to: string }>('RepositoryComparison').implement({
  description: 'Commits and changes between two refs.',
  fields: (t) => ({
    commit: t.field({
      type: CommitRef,
      nullable: true,
      description: 'The newest commit of the comparison.',
      resolve: (c) => {
        const last = c.commits[c.commits.length - 1];
        return last ? { ...last, project: c.project } : null;
      },
    }),
    commits: t.field({ type: [CommitRef], description: 'Oldest first.', resolve: (c) => c.commits.map((commit) => ({ ...commit, project: c.project })) }),
    diffs: t.field({ type: [DiffRef], resolve: (c) => c.diffs }),
    compareTimeout: t.boolean({ resolve: () => false }),
    compareSameRef: t.exposeBoolean('sameRef'),
    webUrl: t.string({
      resolve: (c, _a, ctx) =>
        `${ctx.deps.config.externalUrl}/${projectFullPath(c.project)}/-/compare/${encodeURIComponent(c.from)}...${encodeURIComponent(c.to)}`,
    }),
  }),
});

/** The project's Git repository; its fields need the right to read code. */
export const RepositoryRef = builder.objectRef<ProjectWithNamespace>('Repository').implement({
  fields: (t) => ({
    rootRef: t.string({ nullable: true, resolve: (p) => p.defaultBranch }),
    empty: t.boolean({
      nullable: false,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      description: 'The repository has no branch yet.',
      resolve: async (project, _a, ctx) => !(await readableRepository(ctx, project)).hasBranches(),
    }),
    exists: t.boolean({
      nullable: false,
      description: 'The repository exists on disk.',
      resolve: async (project, _a, ctx) => {
        try {
          await ctx.loaders.repository.load(project.id);
          return true;
        } catch {
          return false;
        }
      },
    }),
    commit: t.field({
      type: CommitRef,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      nullable: true,
      description: 'The commit a branch, tag, SHA or HEAD points to.',
      args: { ref: t.arg.string({ required: true }) },
      resolve: async (project, { ref }, ctx) => {
        const commit = await findCommit(ctx, project, ref);
        return commit && { ...commit, project };
      },
    }),
    commits: t.connection(
      {
        type: CommitRef,
        extensions: scopes(...REPOSITORY_READ_SCOPES),
        description: "The history of a ref (the default branch when none is given), newest first: `git log`'s filters.",
        args: {
          ref: t.arg.string(),
          since: t.arg({ type: 'Time' }),
          until: t.arg({ type: 'Time' }),
          committedAfter: t.arg({ type: 'Time', description: "Commits committed after this time (GitLab's name for `since`)." }),
          committedBefore: t.arg({ type: 'Time', description: "Commits committed before this time (GitLab's name for `until`)." }),
          path: t.arg.string(),
          author: t.arg.string(),
          all: t.arg.boolean({ description: 'Every ref, not only `ref`.' }),
          firstParent: t.arg.boolean(),
          order: t.arg({ type: CommitsOrderEnum }),
        },
        resolve: async (project, args, ctx) => {
          const { committedAfter, committedBefore, ...filter } = args;
          const listing = await listCommits(ctx, project, { ...filter, since: filter.since ?? committedAfter, until: filter.until ?? committedBefore });
          return pagedConnection(args, {
            count: listing.count,
            fetch: async (page) => (await listing.fetch(page)).map((commit) => ({ ...commit, project })),
          });
        },
      },
      { name: 'CommitConnection' },
      { name: 'CommitEdge' },
    ),
    compare: t.field({
      type: ComparisonRef,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      nullable: true,
      description: 'Commits and changes from `from` to `to`; null when either ref is unknown.',
      args: {
        from: t.arg.string({ required: true }),
        to: t.arg.string({ required: true }),
        straight: t.arg.boolean({ description: 'Diff from `from` itself instead of the merge base.' }),
        fromProjectId: t.arg.int({ description: 'The project `from` is in (a fork); this project by default.' }),
      },
      resolve: async (project, args, ctx) => {
        const fromProject = args.fromProjectId == null ? null : await requireCodeOfProject(ctx, args.fromProjectId);
        const comparison = await compareRefs(ctx, project, { ...args, fromProject });
        return comparison && { ...comparison, project, from: args.from, to: args.to };
      },
    }),
  }),
});

builder.objectField(ProjectRef, 'repository', (t) => t.field({ type: RepositoryRef, extensions: scopes(...REPOSITORY_READ_SCOPES), resolve: (p) => p }));

// ---------------------------------------------------------------------------------------------
// commitCreate

const CommitActionMode = builder.enumType('CommitActionMode', {
  values: {
    CREATE: { value: 'create' },
    UPDATE: { value: 'update' },
    DELETE: { value: 'delete' },
    MOVE: { value: 'move' },
    CHMOD: { value: 'chmod' },
  } as const,
});

const CommitEncoding = builder.enumType('CommitEncoding', {
  values: { TEXT: { value: 'text' }, BASE64: { value: 'base64' } } as const,
});

const CommitAction = builder.inputType('CommitAction', {
  fields: (t) => ({
    action: t.field({ type: CommitActionMode, required: true }),
    filePath: t.string({ required: true }),
    previousPath: t.string({ description: 'Original full path of the file being moved.' }),
    content: t.string(),
    encoding: t.field({ type: CommitEncoding }),
    executeFilemode: t.boolean(),
    lastCommitId: t.string({ description: 'Refuse the change when the file changed after this commit.' }),
  }),
});

const CommitCreateInput = mutationInput('CommitCreateInput', (t) => ({
  ...projectInputFields(t),
  branch: t.string({ required: true, description: 'Name of the branch to commit into; created from the start when it does not exist.' }),
  startBranch: t.string({ description: 'Branch the new branch starts from.' }),
  startSha: t.string({ description: 'Commit the new branch starts from (full SHA).' }),
  force: t.boolean({ description: 'With startBranch or startSha: replace `branch` by the new commit.' }),
  message: t.string({ required: true }),
  actions: t.field({ type: [CommitAction], required: true }),
  authorName: t.string(),
  authorEmail: t.string(),
}));

type CommitCreateResult = CommitParent & { contents: (string | null)[] };

const CommitCreatePayload = payloadType('CommitCreatePayload', 'commit', CommitRef);
builder.objectFields(CommitCreatePayload, (t) => ({
  content: t.stringList({
    nullable: true,
    description: "Contents of the commit's actions.",
    resolve: (p) => (p.commit ? (p.commit as CommitCreateResult).contents.filter((c): c is string => c != null) : null),
  }),
  commitPipelinePath: t.string({ nullable: true, description: 'Pipelines do not exist here: always null.', resolve: () => null }),
}));

builder.mutationFields((t) => ({
  commitCreate: t.field({
    type: CommitCreatePayload,
    description: 'One commit with every action, on `branch` (created from `startBranch` or `startSha` when given).',
    args: { input: t.arg({ type: CommitCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const { projectPath, projectId, clientMutationId: _id, ...fields } = input;
      const project = await resolveProject(ctx, { projectId, projectPath });
      return asPayload(
        'commit',
        async (): Promise<CommitCreateResult> => ({
          ...(await createCommit(ctx, project, fields)),
          project,
          contents: fields.actions.map((a) => a.content ?? null),
        }),
        input,
      );
    },
  }),
}));

/** GitLab's commit description: the message after its first line, null when there is none. */
const descriptionOf = (message: string) => message.split('\n').slice(1).join('\n').trim() || null;

/** Gravatar of an email address, GitLab's default avatar for commit authors without an account. */
const gravatar = (email: string) => `https://www.gravatar.com/avatar/${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;

// GitLab's Commit fields for what the repository browser and release pages read.
builder.objectFields(CommitRef, (t) => ({
  fullTitle: t.string({ description: 'Full title of the commit message.', resolve: (c) => c.message.split('\n', 1)[0]!.trim() }),
  description: t.string({ nullable: true, description: 'Description of the commit message.', resolve: (c) => descriptionOf(c.message) }),
  webPath: t.string({ nullable: false, description: 'Web path of the commit.', resolve: (c) => `/${projectFullPath(c.project)}/-/commit/${c.id}` }),
  author: t.field({
    type: UserRef,
    nullable: true,
    description: 'Author of the commit: the user with the author email, when there is one.',
    resolve: (c, _a, ctx) => ctx.loaders.userByEmail.load(c.authorEmail.trim().toLowerCase()),
  }),
  authorGravatar: t.string({ nullable: true, description: "Commit author's Gravatar URL.", resolve: (c) => gravatar(c.authorEmail) }),
}));

// ---------------------------------------------------------------------------------------------
// What the repository browser's last-commit and commit pages read besides (issue 40)

/** Text as HTML: GitLab renders commit titles and descriptions as Markdown; here they are shown as written. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const VerificationStatusEnum = builder.enumType('VerificationStatus', {
  description: 'Verification status of a GPG, X.509 or SSH signature for a commit.',
  values: [
    'UNVERIFIED',
    'VERIFIED',
    'SAME_USER_DIFFERENT_EMAIL',
    'OTHER_USER',
    'UNVERIFIED_KEY',
    'UNKNOWN_KEY',
    'MULTIPLE_SIGNATURES',
    'REVOKED_KEY',
    'VERIFIED_SYSTEM',
    'VERIFIED_CA',
  ] as const,
});

/** A commit signature as GitLab types it; forgegate reads its kind and key but verifies none (service.ts). */
type Signature = CommitSignature;

const signatureFields = (t: PothosSchemaTypes.InterfaceFieldBuilder<Types, Signature> | PothosSchemaTypes.ObjectFieldBuilder<Types, Signature>) => ({
  commitSha: t.string({ resolve: (s: Signature) => s.commitSha }),
  project: t.field({ type: ProjectRef, nullable: true, resolve: (s: Signature) => s.project }),
  verificationStatus: t.field({ type: VerificationStatusEnum, nullable: true, resolve: (s: Signature) => s.verificationStatus }),
});

const CommitSignatureRef = builder.interfaceRef<Signature>('CommitSignature').implement({
  resolveType: (s) => s.kind,
  fields: (t) => signatureFields(t),
});

type X509Issuer = { id: string; subject: string | null; subjectKeyIdentifier: string | null };
type X509Certificate = { id: string; subject: string; subjectKeyIdentifier: string; x509Issuer: X509Issuer };

const X509IssuerRef = builder.objectRef<X509Issuer>('X509Issuer').implement({
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    subject: t.exposeString('subject', { nullable: true }),
    subjectKeyIdentifier: t.exposeString('subjectKeyIdentifier', { nullable: true }),
  }),
});

const X509CertificateRef = builder.objectRef<X509Certificate>('X509Certificate').implement({
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    subject: t.exposeString('subject', { nullable: false }),
    subjectKeyIdentifier: t.exposeString('subjectKeyIdentifier', { nullable: false }),
    x509Issuer: t.expose('x509Issuer', { type: X509IssuerRef, nullable: false }),
  }),
});

/** X.509 certificates are not read from the signature: `x509Certificate` is null. */
type SignatureDetails = Signature & { x509Certificate?: X509Certificate };

builder.objectRef<SignatureDetails>('GpgSignature').implement({
  interfaces: [CommitSignatureRef],
  fields: (t) => ({
    gpgKeyPrimaryKeyid: t.exposeString('gpgKeyPrimaryKeyid', { nullable: true, description: 'The issuer key id the signature names.' }),
  }),
});

builder.objectRef<SignatureDetails>('X509Signature').implement({
  interfaces: [CommitSignatureRef],
  fields: (t) => ({
    x509Certificate: t.field({ type: X509CertificateRef, nullable: true, resolve: (s) => s.x509Certificate ?? null }),
  }),
});

builder.objectRef<SignatureDetails>('SshSignature').implement({
  interfaces: [CommitSignatureRef],
  fields: (t) => ({
    keyFingerprintSha256: t.exposeString('keyFingerprintSha256', { nullable: true, description: 'The SHA-256 fingerprint of the key the signature carries.' }),
  }),
});

/** GitLab's detailed status of a pipeline, as the last-commit widget shows it. */
export type DetailedStatus = {
  id: string;
  detailsPath: string | null;
  icon: string | null;
  tooltip: string | null;
  text: string | null;
  group: string | null;
  label: string | null;
};

export const DetailedStatusRef = builder.objectRef<DetailedStatus>('DetailedStatus').implement({
  fields: (t) => ({
    id: t.exposeString('id', { nullable: false }),
    detailsPath: t.exposeString('detailsPath', { nullable: true }),
    icon: t.exposeString('icon', { nullable: true }),
    tooltip: t.exposeString('tooltip', { nullable: true }),
    text: t.exposeString('text', { nullable: true }),
    group: t.exposeString('group', { nullable: true }),
    label: t.exposeString('label', { nullable: true }),
  }),
});

const DiffStatsRef = builder.objectRef<FileDiffStats>('DiffStats').implement({
  description: 'Changes to a single file.',
  fields: (t) => ({
    path: t.exposeString('path', { nullable: false }),
    additions: t.exposeInt('additions', { nullable: false }),
    deletions: t.exposeInt('deletions', { nullable: false }),
  }),
});

type Summary = { additions: number; deletions: number; fileCount: number };

const DiffStatsSummaryRef = builder.objectRef<Summary>('DiffStatsSummary').implement({
  description: 'Aggregated summary of changes.',
  fields: (t) => ({
    additions: t.exposeInt('additions', { nullable: false }),
    deletions: t.exposeInt('deletions', { nullable: false }),
    changes: t.int({ nullable: false, resolve: (s) => s.additions + s.deletions }),
    fileCount: t.exposeInt('fileCount', { nullable: false }),
  }),
});

builder.objectFields(CommitRef, (t) => ({
  titleHtml: t.string({ nullable: true, description: 'The title, as HTML.', resolve: (c) => escapeHtml(c.title) }),
  fullTitleHtml: t.string({ nullable: true, description: 'The full title, as HTML.', resolve: (c) => escapeHtml(c.message.split('\n', 1)[0]!.trim()) }),
  descriptionHtml: t.string({
    nullable: true,
    description: 'The description, as HTML.',
    resolve: (c) => {
      const description = descriptionOf(c.message);
      return description && escapeHtml(description);
    },
  }),
  signature: t.field({
    type: CommitSignatureRef,
    nullable: true,
    description: 'Signature of the commit (null when unsigned): its kind and key, never verified here (no keys are kept).',
    resolve: (c, _a, ctx) => commitSignature(ctx, c.project, c.id),
  }),
  signatureHtml: t.string({ nullable: true, description: "GitLab's rendered signature badge: not rendered here, null.", resolve: () => null }),
  diffStats: t.field({
    type: [DiffStatsRef],
    nullable: true,
    description: 'Lines added and removed per file against the first parent.',
    args: { path: t.arg.string({ description: 'Only the file at this path.' }) },
    resolve: async (c, args, ctx) => {
      const stats = diffStatsOf(await commitDiffs(ctx, c.project, c));
      return args.path ? stats.filter((s) => s.path === args.path) : stats;
    },
  }),
  diffStatsSummary: t.field({
    type: DiffStatsSummaryRef,
    nullable: true,
    description: 'Lines added and removed, and files changed, against the first parent.',
    resolve: async (c, _a, ctx) => {
      const stats = diffStatsOf(await commitDiffs(ctx, c.project, c));
      return {
        additions: stats.reduce((n, s) => n + s.additions, 0),
        deletions: stats.reduce((n, s) => n + s.deletions, 0),
        fileCount: stats.length,
      };
    },
  }),
}));
