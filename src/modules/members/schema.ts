import { accessLevelName } from '../../auth/access-levels.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { GroupRef } from '../groups/schema.ts';
import { groupSource, projectSource, resolveSource, SourceInputRef, type Source } from '../namespaces/source.ts';
import { ProjectRef } from '../projects/schema.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { UserRef } from '../users/schema.ts';
import { addMember, findMember, listMembers, removeMember, updateMember, type MemberRelation } from './service.ts';

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
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
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

const relationsArg = (t: { arg: (o: object) => any }) =>
  t.arg({ type: [MemberRelationEnum], defaultValue: ['direct', 'inherited'], description: 'DIRECT, INHERITED or both (default).' });

function membersFields(fieldName: string, toSource: (parent: any) => Source) {
  return (t: any) => ({
    [fieldName]: t.connection({
      type: MemberRef,
      args: { relations: relationsArg(t), search: t.arg.string() },
      resolve: (parent: unknown, args: { relations: MemberRelation[]; search?: string | null; first?: number | null; after?: string | null }, ctx: any) =>
        pagedConnection(args, listMembers(ctx, toSource(parent), args)),
    }),
    member: t.field({
      type: MemberRef,
      nullable: true,
      description: 'One member by user id, directly or (with inherited) through ancestor groups.',
      args: { userId: t.arg.int({ required: true }), inherited: t.arg.boolean() },
      resolve: (parent: unknown, args: { userId: number; inherited?: boolean | null }, ctx: any) =>
        findMember(ctx, toSource(parent), args.userId, args.inherited ?? false),
    }),
  });
}

builder.objectFields(ProjectRef, membersFields('projectMembers', (p) => projectSource(p as ProjectWithNamespace)));
builder.objectFields(GroupRef, membersFields('groupMembers', groupSource));

const MemberPayload = (name: string) => payloadType(name, 'member', MemberRef);

const membershipArgs = (t: any) => ({
  source: t.arg({ type: SourceInputRef, required: true }),
  userId: t.arg.int({ required: true }),
  accessLevel: t.arg.int({ required: true }),
  expiresAt: t.arg({ type: 'Date' }),
});

builder.mutationFields((t) => ({
  memberCreate: t.field({
    type: MemberPayload('MemberCreatePayload'),
    args: membershipArgs(t),
    resolve: (_r, { source, ...input }: any, ctx) => asPayload(ctx, 'member', async () => addMember(ctx, await resolveSource(ctx, source), input)),
  }),
  memberUpdate: t.field({
    type: MemberPayload('MemberUpdatePayload'),
    args: membershipArgs(t),
    resolve: (_r, { source, ...input }: any, ctx) => asPayload(ctx, 'member', async () => updateMember(ctx, await resolveSource(ctx, source), input)),
  }),
  memberDelete: t.field({
    type: MemberPayload('MemberDeletePayload'),
    args: { source: t.arg({ type: SourceInputRef, required: true }), userId: t.arg.int({ required: true }) },
    resolve: (_r, { source, userId }, ctx) => asPayload(ctx, 'member', async () => removeMember(ctx, await resolveSource(ctx, source), userId)),
  }),
}));
