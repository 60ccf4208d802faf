import { avatarUrl } from '../../core/avatars.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { NamespaceRef, VisibilityEnum } from '../namespaces/index.ts';
import { FIXED_SETTINGS } from './entity.ts';
import {
  createGroup,
  deleteGroup,
  findGroup,
  fullName,
  listGroups,
  shareGroup,
  sharedWithGroups,
  transferGroup,
  unshareGroup,
  updateGroup,
} from './service.ts';

export const GroupRef = builder.prismaObject('Namespace', {
  variant: 'Group',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (g) => gid('Group', g.id) }),
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name', { nullable: false }),
    path: t.exposeString('path', { nullable: false }),
    fullPath: t.exposeID('fullPath', { nullable: false }),
    fullName: t.string({ nullable: false, resolve: (g, _a, ctx) => fullName(ctx, g) }),
    description: t.exposeString('description'),
    visibility: t.expose('visibility', { type: VisibilityEnum }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    requestAccessEnabled: t.exposeBoolean('requestAccessEnabled'),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    avatarUrl: t.string({ nullable: true, resolve: (g, _a, ctx) => avatarUrl(ctx.deps.config.externalUrl, 'group', g.id, g.avatar) }),
    webUrl: t.string({ nullable: false, resolve: (g, _a, ctx) => `${ctx.deps.config.externalUrl}/groups/${g.fullPath}` }),
    // The settings forgegate has no choice for, as REST's group entity answers them (GitLab's
    // direct-transfer importer reads them with its group query).
    lfsEnabled: t.boolean({ nullable: true, resolve: () => FIXED_SETTINGS.lfs_enabled }),
    mentionsDisabled: t.boolean({ nullable: true, resolve: () => FIXED_SETTINGS.mentions_disabled }),
    projectCreationLevel: t.string({ nullable: true, resolve: () => FIXED_SETTINGS.project_creation_level }),
    requireTwoFactorAuthentication: t.boolean({ nullable: true, resolve: () => FIXED_SETTINGS.require_two_factor_authentication }),
    shareWithGroupLock: t.boolean({ nullable: true, resolve: () => FIXED_SETTINGS.share_with_group_lock }),
    subgroupCreationLevel: t.string({ nullable: true, resolve: () => FIXED_SETTINGS.subgroup_creation_level }),
    twoFactorGracePeriod: t.int({ nullable: true, resolve: () => FIXED_SETTINGS.two_factor_grace_period }),
  }),
});

type Link = Awaited<ReturnType<typeof sharedWithGroups>>[number];

const SharedGroupLinkRef = builder.objectRef<Link>('GroupSharedWithGroupLink').implement({
  description: "forgegate's: a group this group is shared with, and the access its members get here.",
  fields: (t) => ({
    groupId: t.int({ resolve: (l) => l.sharedWithGroupId }),
    groupName: t.string({ resolve: (l) => l.sharedWithGroup.name }),
    groupFullPath: t.string({ resolve: (l) => l.sharedWithGroup.fullPath }),
    groupAccessLevel: t.int({ resolve: (l) => l.groupAccess }),
    expiresAt: t.field({ type: 'Date', nullable: true, resolve: (l) => l.expiresAt }),
  }),
});

// GitLab's Namespace.fullName, of user namespaces and groups alike: the groups area knows the ancestors.
builder.objectField(NamespaceRef, 'fullName', (t) => t.string({ nullable: false, resolve: (n, _a, ctx) => fullName(ctx, n) }));

// Fields that return groups are added once GroupRef exists, so its type can be inferred.
builder.objectFields(GroupRef, (t) => ({
  sharedWithGroups: t.field({
    type: [SharedGroupLinkRef],
    description: "forgegate's: the groups this group is shared with (REST's `shared_with_groups`), those the viewer can see.",
    resolve: (g, _a, ctx) => sharedWithGroups(ctx, g),
  }),
  parent: t.field({
    type: GroupRef,
    nullable: true,
    resolve: (g, _a, ctx) => (g.parentId == null ? null : findGroup(ctx, { id: g.parentId })),
  }),
  descendantGroups: t.connection({
    type: GroupRef,
    args: { includeParentDescendants: t.arg.boolean({ defaultValue: true }), search: t.arg.string() },
    resolve: async (g, args, ctx) =>
      pagedConnection(
        args,
        await listGroups(ctx, args.includeParentDescendants ? { descendantsOf: g.id, search: args.search } : { parentId: g.id, search: args.search }),
      ),
  }),
}));

builder.queryFields((t) => ({
  group: t.field({
    type: GroupRef,
    nullable: true,
    description: 'A group by full path or id; null when it does not exist or is not visible.',
    args: { fullPath: t.arg.id(), id: t.arg.int() },
    resolve: (_r, args, ctx) => findGroup(ctx, { id: args.id, fullPath: args.fullPath == null ? null : String(args.fullPath) }),
  }),
  groups: t.connection({
    type: GroupRef,
    args: {
      search: t.arg.string(),
      topLevelOnly: t.arg.boolean(),
      allAvailable: t.arg.boolean(),
      owned: t.arg.boolean({ description: "REST's name of ownedOnly." }),
      ownedOnly: t.arg.boolean({ description: 'Only groups the viewer owns.' }),
      skipGroups: t.arg.intList({ description: "forgegate's: ids of groups to leave out (REST's `skip_groups[]`)." }),
    },
    resolve: async (_r, { ownedOnly, ...args }, ctx) => pagedConnection(args, await listGroups(ctx, { ...args, owned: args.owned ?? ownedOnly })),
  }),
}));

const GroupUpdateInput = mutationInput('GroupUpdateInput', (t) => ({
  fullPath: t.id({ description: 'Full path of the group to update.' }),
  id: t.int({ description: 'Id of the group (alternative to fullPath).' }),
  name: t.string(),
  path: t.string(),
  description: t.string(),
  visibility: t.field({ type: VisibilityEnum }),
  requestAccessEnabled: t.boolean(),
  avatar: t.field({ type: 'Upload', description: 'Image file for the avatar (200 KiB at most).' }),
}));

const GroupCreateInput = mutationInput('GroupCreateInput', (t) => ({
  name: t.string({ required: true, description: 'Name of the group.' }),
  path: t.string({ description: 'Path of the group; derived from the name when omitted.' }),
  parentId: t.field({ type: 'GroupID', description: 'Global ID of the parent group; a top-level group when omitted.' }),
  visibility: t.field({ type: VisibilityEnum, description: 'Visibility of the group.' }),
  description: t.string({ description: 'Description of the group.' }),
  requestAccessEnabled: t.boolean({ description: 'Users can request access to the group.' }),
}));

const GroupDeleteInput = mutationInput('GroupDeleteInput', (t) => ({
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int({ description: 'Id of the group (alternative to groupPath).' }),
}));

builder.mutationFields((t) => ({
  groupUpdate: t.field({
    type: payloadType('GroupUpdatePayload', 'group', GroupRef),
    args: { input: t.arg({ type: GroupUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const { fullPath, id, clientMutationId: _c, ...changes } = input;
      return asPayload('group', () => updateGroup(ctx, { id, fullPath: fullPath == null ? null : String(fullPath) }, changes), input);
    },
  }),
  groupCreate: t.field({
    type: payloadType('GroupCreatePayload', 'group', GroupRef),
    description: 'Creates a group, top-level or in a parent group.',
    args: { input: t.arg({ type: GroupCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const { clientMutationId: _, ...attributes } = input;
      return asPayload('group', () => createGroup(ctx, attributes), input);
    },
  }),
  groupDelete: t.field({
    type: payloadType('GroupDeletePayload', 'group', GroupRef),
    description: 'Deletes a group (Owners).',
    args: { input: t.arg({ type: GroupDeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('group', () => deleteGroup(ctx, { id: input.groupId, fullPath: input.groupPath == null ? null : String(input.groupPath) }), input),
  }),
}));

const groupRefFields = (t: InputFields) => ({
  fullPath: t.id({ description: 'Full path of the group.' }),
  id: t.int({ description: 'Id of the group (alternative to fullPath).' }),
});
const refOf = (input: { id?: number | null; fullPath?: string | number | null }) => ({
  id: input.id,
  fullPath: input.fullPath == null ? null : String(input.fullPath),
});

const GroupShareInput = mutationInput('GroupShareInput', (t) => ({
  ...groupRefFields(t),
  sharedWithGroupId: t.int({ required: true, description: 'Id of the group to share with.' }),
  groupAccess: t.int({ required: true, description: 'Access level its members get here at most: 10, 20, 30, 40 or 50.' }),
  expiresAt: t.field({ type: 'Date', description: 'Date the share expires.' }),
}));
const GroupShareDeleteInput = mutationInput('GroupShareDeleteInput', (t) => ({
  ...groupRefFields(t),
  sharedWithGroupId: t.int({ required: true, description: 'Id of the group it is shared with.' }),
}));
const GroupTransferInput = mutationInput('GroupTransferInput', (t) => ({
  ...groupRefFields(t),
  parentId: t.int({ description: 'Id of the new parent group; the top level when omitted.' }),
}));

builder.mutationFields((t) => ({
  groupShare: t.field({
    type: payloadType('GroupSharePayload', 'group', GroupRef),
    description: "forgegate's: shares a group with another group (Owners), as GitLab's `POST /groups/:id/share`.",
    args: { input: t.arg({ type: GroupShareInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('group', () => shareGroup(ctx, refOf(input), input), input),
  }),
  groupShareDelete: t.field({
    type: payloadType('GroupShareDeletePayload', 'group', GroupRef),
    description: "forgegate's: stops sharing a group with another group (Owners), as GitLab's `DELETE /groups/:id/share/:group_id`.",
    args: { input: t.arg({ type: GroupShareDeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('group', () => unshareGroup(ctx, refOf(input), input.sharedWithGroupId), input),
  }),
  groupTransfer: t.field({
    type: payloadType('GroupTransferPayload', 'group', GroupRef),
    description: "forgegate's: moves a group under another group or to the top level (Owners), as GitLab's `POST /groups/:id/transfer`.",
    args: { input: t.arg({ type: GroupTransferInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('group', () => transferGroup(ctx, refOf(input), input.parentId ?? null), input),
  }),
}));
