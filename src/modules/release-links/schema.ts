import { builder } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import { findRelease } from '../releases/service.ts';
import { linkParent, ReleaseAssetLinkRef, ReleaseAssetLinkTypeEnum, ReleaseAssetsRef } from '../releases/index.ts';
import { createLink, deleteLink, findLink, updateLink, type LinkTarget, type LinkWithRelease } from './service.ts';

builder.objectField(ReleaseAssetsRef, 'link', (t) =>
  t.field({
    type: ReleaseAssetLinkRef,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (release, { id }, ctx) => {
      const link = await findLink(ctx, release, id);
      return link && linkParent(ctx, release, link);
    },
  }),
);

builder.objectField(ProjectRef, 'releaseAssets', (t) =>
  t.field({
    type: ReleaseAssetsRef,
    nullable: true,
    description:
      "The assets of the release of a tag, null without one. Like GitLab's release-links API they are open to every viewer " +
      'of the releases, whose code-only parts stay null (the REST endpoints for one release answer readers without code 403: `requiringReadCode`).',
    args: { tagName: t.arg.string({ required: true }) },
    resolve: (project, { tagName }, ctx) => findRelease(ctx, project, tagName),
  }),
);

const linkFields = <Required extends boolean>(t: InputFields, required: Required) => ({
  name: t.string({ required }),
  url: t.string({ required }),
  directAssetPath: t.string(),
  linkType: t.field({ type: ReleaseAssetLinkTypeEnum }),
});

const LinkCreateInput = mutationInput('ReleaseAssetLinkCreateInput', (t) => ({
  ...projectInputFields(t),
  tagName: t.string({ required: true }),
  ...linkFields(t, true),
}));

const linkScopeFields = (t: InputFields) => ({
  id: t.field({ type: 'ReleasesLinkID', required: true, description: 'ID of the release asset link.' }),
  ...projectInputFields(t),
  tagName: t.string({ description: 'With a project: the link must belong to the release of this tag.' }),
});

const LinkUpdateInput = mutationInput('ReleaseAssetLinkUpdateInput', (t) => ({ ...linkScopeFields(t), ...linkFields(t, false) }));
const LinkDeleteInput = mutationInput('ReleaseAssetLinkDeleteInput', (t) => linkScopeFields(t));

type ScopeInput = ParentInput & { id: number; tagName?: string | null };

async function target(ctx: Context, input: ScopeInput): Promise<LinkTarget> {
  const scoped = input.tagName != null && (input.projectPath != null || input.projectId != null);
  const scope = scoped ? { project: await resolveProject(ctx, input), tag: input.tagName! } : undefined;
  return { id: input.id, scope };
}

const asParent = (ctx: Context, { link, release }: LinkWithRelease) => linkParent(ctx, release, link);
const LinkPayload = (name: string) => payloadType(name, 'link', ReleaseAssetLinkRef);

builder.mutationFields((t) => ({
  releaseAssetLinkCreate: t.field({
    type: LinkPayload('ReleaseAssetLinkCreatePayload'),
    args: { input: t.arg({ type: LinkCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('link', async () => asParent(ctx, await createLink(ctx, project, input.tagName, input)));
    },
  }),
  releaseAssetLinkUpdate: t.field({
    type: LinkPayload('ReleaseAssetLinkUpdatePayload'),
    args: { input: t.arg({ type: LinkUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const link = await target(ctx, input);
      return asPayload('link', async () => asParent(ctx, await updateLink(ctx, link, input)));
    },
  }),
  releaseAssetLinkDelete: t.field({
    type: LinkPayload('ReleaseAssetLinkDeletePayload'),
    args: { input: t.arg({ type: LinkDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const link = await target(ctx, input);
      return asPayload('link', async () => asParent(ctx, await deleteLink(ctx, link)));
    },
  }),
}));
