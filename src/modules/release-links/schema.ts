import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { builder } from '../../graphql/builder.ts';
import type { Context } from '../../graphql/context.ts';
import { ParamError } from '../../graphql/errors.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { projectFromInput, projectInputFields } from '../projects/input.ts';
import { ReleaseAssetLinkRef, ReleaseAssetLinkTypeEnum, ReleaseAssetsRef, withRelease } from '../releases/schema.ts';
import { createLink, deleteLink, findLink, locateLink, updateLink, type LinkWithRelease } from './service.ts';

builder.objectField(ReleaseAssetsRef, 'link', (t) =>
  t.field({
    type: ReleaseAssetLinkRef,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (release, { id }, ctx) => {
      const link = await findLink(ctx, release, id);
      return link && withRelease(release)(link);
    },
  }),
);

/** `gid://gitlab/Releases::Link/7` or `7`. */
function linkId(id: string | number): number {
  const match = /^(?:gid:\/\/gitlab\/Releases::Link\/)?(\d{1,15})$/.exec(String(id));
  if (!match) throw new ParamError(`${id} is not a valid ReleasesLinkID`);
  return Number(match[1]);
}

const linkFields = (t: any, required: boolean) => ({
  name: t.string({ required }),
  url: t.string({ required }),
  directAssetPath: t.string(),
  linkType: t.field({ type: ReleaseAssetLinkTypeEnum }),
});

const LinkCreateInput = builder.inputType('ReleaseAssetLinkCreateInput', {
  fields: (t) => ({ ...projectInputFields(t), tagName: t.string({ required: true }), ...linkFields(t, true) }),
});

const linkScopeFields = (t: any) => ({
  id: t.id({ required: true }),
  ...projectInputFields(t),
  tagName: t.string({ description: 'With a project: the link must belong to the release of this tag.' }),
});

const LinkUpdateInput = builder.inputType('ReleaseAssetLinkUpdateInput', { fields: (t) => ({ ...linkScopeFields(t), ...linkFields(t, false) }) });
const LinkDeleteInput = builder.inputType('ReleaseAssetLinkDeleteInput', { fields: (t) => linkScopeFields(t) });

type ScopeInput = { id: string | number; projectPath?: unknown; projectId?: unknown; tagName?: string | null };

async function located(ctx: Context, input: ScopeInput) {
  const scoped = input.tagName != null && (input.projectPath != null || input.projectId != null);
  const scope = scoped ? { project: (await projectFromInput(ctx, input)) as ProjectWithNamespace, tag: input.tagName! } : undefined;
  return locateLink(ctx, linkId(input.id), scope);
}

const asParent = ({ link, release }: LinkWithRelease) => withRelease(release)(link);
const LinkPayload = (name: string) => payloadType(name, 'link', ReleaseAssetLinkRef);

builder.mutationFields((t) => ({
  releaseAssetLinkCreate: t.field({
    type: LinkPayload('ReleaseAssetLinkCreatePayload'),
    args: { input: t.arg({ type: LinkCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await projectFromInput(ctx, input);
      return asPayload(ctx, 'link', async () => asParent(await createLink(ctx, project, input.tagName, input as never)));
    },
  }),
  releaseAssetLinkUpdate: t.field({
    type: LinkPayload('ReleaseAssetLinkUpdatePayload'),
    args: { input: t.arg({ type: LinkUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const target = await located(ctx, input as ScopeInput);
      return asPayload(ctx, 'link', async () => asParent(await updateLink(ctx, target, input as never)));
    },
  }),
  releaseAssetLinkDelete: t.field({
    type: LinkPayload('ReleaseAssetLinkDeletePayload'),
    args: { input: t.arg({ type: LinkDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const target = await located(ctx, input as ScopeInput);
      return asPayload(ctx, 'link', async () => asParent(await deleteLink(ctx, target)));
    },
  }),
}));
