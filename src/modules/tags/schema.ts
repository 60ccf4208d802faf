import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { TagInfo } from '../../git/tags.ts';
import { builder } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { CommitRef, RepositoryRef } from '../commits/index.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { SortDirectionEnum } from '../projects/index.ts';
import { createTag, deleteTag, findTag, listTags } from './service.ts';

export type TagParent = TagInfo & { project: ProjectWithNamespace };

const TagOrderEnum = builder.enumType('TagOrderBy', { values: ['name', 'updated'] as const });

export const TagRef = builder.objectRef<TagParent>('Tag').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false }),
    message: t.string({ nullable: true, resolve: (tag) => tag.message }),
    target: t.exposeString('objectId', { description: 'The tag object of an annotated tag, else the commit.' }),
    createdAt: t.field({ type: 'Time', nullable: true, resolve: (tag) => (tag.message === null ? null : tag.createdAt) }),
    protected: t.boolean({ resolve: () => false }),
    commit: t.field({
      type: CommitRef,
      nullable: true,
      resolve: async (tag, _a, ctx) => {
        const commit = (await ctx.loaders.repository.load(tag.project.id)).commit(tag.commitId);
        return commit && { ...commit, project: tag.project };
      },
    }),
  }),
});

const withProject = (project: ProjectWithNamespace) => (tag: TagInfo | null) => tag && { ...tag, project };

builder.objectFields(RepositoryRef, (t) => ({
  tags: t.connection({
    type: TagRef,
    args: { search: t.arg.string(), orderBy: t.arg({ type: TagOrderEnum }), sort: t.arg({ type: SortDirectionEnum }) },
    resolve: async (project, args, ctx) => {
      const list = (await listTags(ctx, project, args)).map((tag) => ({ ...tag, project }));
      return pagedConnection(args, { fetch: async ({ offset, limit }) => list.slice(offset, offset + limit), count: async () => list.length });
    },
  }),
  tag: t.field({
    type: TagRef,
    nullable: true,
    args: { name: t.arg.string({ required: true }) },
    resolve: async (project, { name }, ctx) => withProject(project)(await findTag(ctx, project, name)),
  }),
}));

const TagCreateInput = mutationInput('TagCreateInput', (t) => ({
  ...projectInputFields(t),
  name: t.string({ required: true }),
  ref: t.string({ required: true, description: 'Commit SHA, branch or tag the tag points to.' }),
  message: t.string({ description: 'Creates an annotated tag when given.' }),
}));

const TagDeleteInput = mutationInput('TagDeleteInput', (t) => ({ ...projectInputFields(t), name: t.string({ required: true }) }));

builder.mutationFields((t) => ({
  tagCreate: t.field({
    type: payloadType('TagCreatePayload', 'tag', TagRef),
    args: { input: t.arg({ type: TagCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('tag', async () => withProject(project)(await createTag(ctx, project, input))!);
    },
  }),
  tagDelete: t.field({
    type: payloadType('TagDeletePayload', 'tag', TagRef),
    args: { input: t.arg({ type: TagDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('tag', async () => withProject(project)(await deleteTag(ctx, project, input.name))!);
    },
  }),
}));
