import { builder } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { CommitRef, RepositoryRef } from '../commits/index.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectPermissionsRef } from '../projects/index.ts';
import { projectFullPath } from '../projects/service.ts';
import { branchListing, branchNames, canPush, createBranch, deleteBranch, findBranch, isDefaultBranch, PUSH_CODE_LEVEL, type Branch } from './service.ts';

export const BranchRef = builder.objectRef<Branch>('Branch').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false }),
    commit: t.field({
      type: CommitRef,
      resolve: async (b, _a, ctx) => ({ ...(await ctx.loaders.repository.load(b.project.id)).commit(b.sha)!, project: b.project }),
    }),
    default: t.boolean({ resolve: (b) => isDefaultBranch(b.project, b.name) }),
    protected: t.boolean({ description: 'The default branch is protected: Maintainers push.', resolve: (b) => isDefaultBranch(b.project, b.name) }),
    developersCanPush: t.boolean({ resolve: (b) => !isDefaultBranch(b.project, b.name) }),
    developersCanMerge: t.boolean({ resolve: (b) => !isDefaultBranch(b.project, b.name) }),
    merged: t.boolean({ description: 'Merge state is not tracked; always false.', resolve: () => false }),
    canPush: t.boolean({ resolve: (b, _a, ctx) => canPush(ctx, b) }),
    webUrl: t.string({ resolve: (b, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(b.project)}/-/tree/${b.name}` }),
  }),
});

builder.objectFields(RepositoryRef, (t) => ({
  branchNames: t.stringList({
    nullable: true,
    args: {
      searchPattern: t.arg.string({ required: true, defaultValue: '*' }),
      offset: t.arg.int({ required: true, defaultValue: 0 }),
      limit: t.arg.int({ required: true, defaultValue: 100 }),
    },
    resolve: (project, args, ctx) => branchNames(ctx, project, args.searchPattern, args.offset, args.limit),
  }),
  branches: t.connection({
    type: BranchRef,
    args: { search: t.arg.string() },
    resolve: async (project, args, ctx) => pagedConnection(args, await branchListing(ctx, project, args.search)),
  }),
  branch: t.field({
    type: BranchRef,
    nullable: true,
    args: { name: t.arg.string({ required: true }) },
    resolve: (project, { name }, ctx) => findBranch(ctx, project, name),
  }),
}));

builder.objectFields(ProjectPermissionsRef, (t) => ({
  pushCode: t.boolean({
    nullable: false,
    description: 'If `true`, the user can perform `push_code` on this resource',
    resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, PUSH_CODE_LEVEL),
  }),
  // Merge requests do not exist here: nobody may open or read one, as on an instance without them.
  ...Object.fromEntries(
    (['createMergeRequestIn', 'createMergeRequestFrom', 'readMergeRequest'] as const).map((name) => [
      name,
      t.boolean({
        nullable: false,
        description: `If \`true\`, the user can perform \`${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}\` on this resource (merge requests do not exist here: always false)`,
        resolve: () => false,
      }),
    ]),
  ),
}));

const CreateBranchInput = mutationInput('CreateBranchInput', (t) => ({
  ...projectInputFields(t),
  name: t.string({ required: true, description: 'Name of the branch.' }),
  ref: t.string({ required: true, description: 'Branch name or commit SHA to create branch from.' }),
}));

const BranchDeleteInput = mutationInput('BranchDeleteInput', (t) => ({
  ...projectInputFields(t),
  name: t.string({ required: true, description: 'Name of the branch.' }),
}));

builder.mutationFields((t) => ({
  createBranch: t.field({
    type: payloadType('CreateBranchPayload', 'branch', BranchRef),
    args: { input: t.arg({ type: CreateBranchInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('branch', () => createBranch(ctx, project, input.name, input.ref), input);
    },
  }),
  branchDelete: t.field({
    type: payloadType('BranchDeletePayload', 'branch', BranchRef),
    args: { input: t.arg({ type: BranchDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('branch', () => deleteBranch(ctx, project, input.name), input);
    },
  }),
}));
