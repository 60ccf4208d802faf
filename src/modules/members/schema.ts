import { accessLevelName } from '../../auth/access-levels.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { parentOf, resolveParent } from '../namespaces/parent.ts';
import { parentFields, SourceInputRef } from '../namespaces/parent-fields.ts';
import { UserRef } from '../users/schema.ts';
import { addMember, findMember, listMembers, removeMember, updateMember } from './service.ts';

const AccessLevelEnum = builder.enumType('AccessLevelEnum', {
  values: ['NO_ACCESS', 'MINIMAL_ACCESS', 'GUEST', 'REPORTER', 'DEVELOPER', 'MAINTAINER', 'OWNER'] as const,
});

const AccessLevelRef = builder.objectRef<number>('AccessLevel').implement({
  fields: (t) => ({
    integerValue: t.int({ resolve: (level) => level }),
    stringValue: t.field({ type: AccessLevelEnum, resolve: (level) => accessLevelName(level) as never }),
  }),
});

const MemberRelationEnum = builder.enumType('MembershipRelation', {
  values: { DIRECT: { value: 'direct' }, INHERITED: { value: 'inherited' } } as const,
});

export const MemberRef = builder.prismaObject('Member', {
  fields: (t) => ({
    id: t.id({ resolve: (m) => gid(m.projectId ? 'ProjectMember' : 'GroupMember', m.id) }),
    accessLevel: t.field({ type: AccessLevelRef, resolve: (m) => m.accessLevel }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    expiresAt: t.expose('expiresAt', { type: 'Date', nullable: true }),
    user: t.field({ type: UserRef, resolve: async (m, _a, ctx) => (await ctx.loaders.user.load(m.userId))! }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      resolve: (m, _a, ctx) => (m.createdById == null ? null : ctx.loaders.user.load(m.createdById)),
    }),
    membershipState: t.string({ resolve: () => 'active' }),
  }),
});

parentFields((t, kind) => ({
  [kind === 'project' ? 'projectMembers' : 'groupMembers']: t.connection({
    type: MemberRef,
    args: {
      relations: t.arg({ type: [MemberRelationEnum], defaultValue: ['direct', 'inherited'], description: 'DIRECT, INHERITED or both (default).' }),
      search: t.arg.string(),
    },
    resolve: (row, args, ctx) => pagedConnection(args, listMembers(ctx, parentOf(row), { ...args, relations: args.relations ?? [] })),
  }),
  member: t.field({
    type: MemberRef,
    nullable: true,
    description: 'One member by user id, directly or (with inherited) through ancestor groups.',
    args: { userId: t.arg.int({ required: true }), inherited: t.arg.boolean() },
    resolve: (row, args, ctx) => findMember(ctx, parentOf(row), args.userId, args.inherited ?? false),
  }),
}));

const MemberPayload = (name: string) => payloadType(name, 'member', MemberRef);

builder.mutationFields((t) => {
  const membership = {
    source: t.arg({ type: SourceInputRef, required: true }),
    userId: t.arg.int({ required: true }),
    accessLevel: t.arg.int({ required: true }),
    expiresAt: t.arg({ type: 'Date' }),
  };
  return {
    memberCreate: t.field({
      type: MemberPayload('MemberCreatePayload'),
      // The user by id or by username: exactly one of them.
      args: { ...membership, userId: t.arg.int(), username: t.arg.string() },
      resolve: (_r, { source, ...input }, ctx) => asPayload(ctx, 'member', async () => addMember(ctx, await resolveParent(ctx, source), input)),
    }),
    memberUpdate: t.field({
      type: MemberPayload('MemberUpdatePayload'),
      args: membership,
      resolve: (_r, { source, ...input }, ctx) => asPayload(ctx, 'member', async () => updateMember(ctx, await resolveParent(ctx, source), input)),
    }),
    memberDelete: t.field({
      type: MemberPayload('MemberDeletePayload'),
      args: { source: t.arg({ type: SourceInputRef, required: true }), userId: t.arg.int({ required: true }) },
      resolve: (_r, { source, userId }, ctx) => asPayload(ctx, 'member', async () => removeMember(ctx, await resolveParent(ctx, source), userId)),
    }),
  };
});
