// forgegate's GraphQL fields behind GitLab's repository REST routes that GitLab's GraphQL API does
// not have (blobs by id, refs containing a commit, merge base, contributors, cherry-pick, revert);
// each says so in its description.
// GitLab opens read_repository to Git over HTTP and the files API only: these need read_api.
import { READ_SCOPES } from '../../auth/scopes.ts';
import type { NamedRef } from '../../git/inspect.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { listConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadClientMutationIdField, payloadErrorsField, payloadType } from '../../graphql/payloads.ts';
import { CommitRef, RepositoryRef } from '../commits/index.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { SortDirectionEnum } from '../projects/index.ts';
import {
  changeCommit,
  deleteMergedBranches,
  findBlobObject,
  listContributors,
  mergeBaseOf,
  refsContaining,
  type BlobObject,
  type ChangeKind,
  type ChangeResult,
  type ContributorRow,
} from './service.ts';

const FORGEGATE = "forgegate's field (GitLab has it in REST only).";

const BlobObjectRef = builder.objectRef<BlobObject>('GitBlobObject').implement({
  description: `A blob named by its object id. ${FORGEGATE}`,
  fields: (t) => ({
    sha: t.exposeString('sha', { description: 'Object id of the blob.' }),
    size: t.exposeInt('size', { description: 'Size of the blob in bytes.' }),
  }),
});

const RefTypeEnum = builder.enumType('CommitRefScope', {
  description: `Which refs to list. ${FORGEGATE}`,
  values: { BRANCH: { value: 'branch' }, TAG: { value: 'tag' }, ALL: { value: 'all' } } as const,
});

const ContainingRefRef = builder.objectRef<NamedRef>('CommitContainingRef').implement({
  description: `A branch or tag whose history holds a commit. ${FORGEGATE}`,
  fields: (t) => ({
    type: t.exposeString('type', { description: '`branch` or `tag`.' }),
    name: t.exposeString('name'),
  }),
});

const ContributorOrderEnum = builder.enumType('RepositoryContributorOrder', {
  description: `Order of repository contributors. ${FORGEGATE}`,
  values: { NAME: { value: 'name' }, EMAIL: { value: 'email' }, COMMITS: { value: 'commits' } } as const,
});

const ContributorRef = builder.objectRef<ContributorRow>('RepositoryContributor').implement({
  description: `An author of the repository's history. ${FORGEGATE}`,
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    commits: t.exposeInt('commits'),
    additions: t.exposeInt('additions', { description: 'Not computed: always 0, as in GitLab.' }),
    deletions: t.exposeInt('deletions', { description: 'Not computed: always 0, as in GitLab.' }),
  }),
});

builder.objectFields(RepositoryRef, (t) => ({
  blobObject: t.field({
    type: BlobObjectRef,
    nullable: true,
    extensions: scopes(...READ_SCOPES),
    description: `The blob with this object id; null when there is none. ${FORGEGATE}`,
    args: { sha: t.arg.string({ required: true }) },
    resolve: (project, { sha }, ctx) => findBlobObject(ctx, project, sha),
  }),
  mergeBase: t.field({
    type: CommitRef,
    nullable: true,
    extensions: scopes(...READ_SCOPES),
    description: `The best common ancestor of two or more refs; null for unrelated histories. ${FORGEGATE}`,
    args: { refs: t.arg.stringList({ required: true }) },
    resolve: async (project, { refs }, ctx) => {
      const commit = await mergeBaseOf(ctx, project, refs);
      return commit && { ...commit, project };
    },
  }),
  contributors: t.field({
    type: [ContributorRef],
    nullable: true,
    extensions: scopes(...READ_SCOPES),
    description: `Authors of a ref's history (the default branch by default), one per email; null for an unknown ref. ${FORGEGATE}`,
    args: { ref: t.arg.string(), orderBy: t.arg({ type: ContributorOrderEnum }), sort: t.arg({ type: SortDirectionEnum }) },
    resolve: (project, args, ctx) => listContributors(ctx, project, args),
  }),
}));

builder.objectFields(CommitRef, (t) => ({
  containingRefs: t.connection({
    type: ContainingRefRef,
    extensions: scopes(...READ_SCOPES),
    description: `Branches, then tags, whose history holds the commit. ${FORGEGATE}`,
    args: { type: t.arg({ type: RefTypeEnum, defaultValue: 'all' }) },
    resolve: async (commit, args, ctx) => listConnection(args, await refsContaining(ctx, commit.project, commit.id, args.type ?? 'all')),
  }),
}));

/** The input of both changes; a pick also takes a message (a revert's is always `Revert "<title>"`). */
const changeInput = (name: string, withMessage: boolean) =>
  mutationInput(name, (t) => ({
    ...projectInputFields(t),
    sha: t.string({ required: true, description: 'Commit (SHA, branch or tag) whose change is applied or undone.' }),
    branch: t.string({ required: true, description: 'Branch the new commit lands on.' }),
    dryRun: t.boolean({ description: 'Check the change applies, without committing it.' }),
    ...(withMessage ? { message: t.string({ description: 'Message of the new commit (default: the picked one, with its origin).' }) } : {}),
  }));

const CherryPickInput = changeInput('CommitCherryPickInput', true);
const RevertInput = changeInput('CommitRevertInput', false);

const changePayload = (name: string) => {
  const payload = payloadType(name, 'commit', CommitRef);
  builder.objectFields(payload, (t) => ({
    dryRun: t.boolean({ description: 'The change was only checked.', resolve: (p) => (p as unknown as { dryRun: boolean }).dryRun ?? false }),
  }));
  return payload;
};

type ChangeArgs = {
  projectId?: number | null;
  projectPath?: string | null;
  sha: string;
  branch: string;
  dryRun?: boolean | null;
  message?: string | null;
  clientMutationId?: string | null;
};

async function runChange(ctx: Parameters<typeof changeCommit>[0], kind: ChangeKind, input: ChangeArgs) {
  const project = await resolveProject(ctx, input);
  const payload = await asPayload('result', () => changeCommit(ctx, project, kind, input), input);
  const result = payload.result as ChangeResult | null;
  return { ...payload, commit: result?.commit ? { ...result.commit, project } : null, dryRun: result?.dryRun ?? false };
}

builder.mutationFields((t) => ({
  commitCherryPick: t.field({
    type: changePayload('CommitCherryPickPayload'),
    description: `Applies a commit's change to a branch as a new commit. ${FORGEGATE}`,
    args: { input: t.arg({ type: CherryPickInput, required: true }) },
    resolve: (_r, { input }, ctx) => runChange(ctx, 'cherry-pick', input),
  }),
  commitRevert: t.field({
    type: changePayload('CommitRevertPayload'),
    description: `Undoes a commit's change on a branch with a new commit. ${FORGEGATE}`,
    args: { input: t.arg({ type: RevertInput, required: true }) },
    resolve: (_r, { input }, ctx) => runChange(ctx, 'revert', input),
  }),
}));

const DeleteMergedInput = mutationInput('RepositoryDeleteMergedBranchesInput', (t) => ({ ...projectInputFields(t) }));

const DeleteMergedPayload = builder.objectRef<{ deletedCount: number | null; errors: string[]; clientMutationId?: string | null }>(
  'RepositoryDeleteMergedBranchesPayload',
);
DeleteMergedPayload.implement({
  fields: (t) => ({
    deletedCount: t.exposeInt('deletedCount', { nullable: true, description: 'Branches deleted.' }),
    errors: payloadErrorsField(t),
    clientMutationId: payloadClientMutationIdField(t),
  }),
});

builder.mutationFields((t) => ({
  repositoryDeleteMergedBranches: t.field({
    type: DeleteMergedPayload,
    description: `Deletes the branches merged into the default branch, protected ones kept. ${FORGEGATE}`,
    args: { input: t.arg({ type: DeleteMergedInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('deletedCount', () => deleteMergedBranches(ctx, project), input);
    },
  }),
}));
