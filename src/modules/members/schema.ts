import { accessLevelName, humanAccess } from '../../auth/access-levels.ts';
import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { parentOf, resolveParent } from '../parents/parent.ts';
import { parentFields, parentInputFields } from '../parents/parent-fields.ts';
import { UserRef } from '../users/index.ts';
import { addMember, findMember, listMembers, listUserMemberships, removeMember, updateMember, type MemberRelation, type UserMembership } from './service.ts';

const AccessLevelEnum = builder.enumType('AccessLevelEnum', {
  values: ['NO_ACCESS', 'MINIMAL_ACCESS', 'GUEST', 'REPORTER', 'DEVELOPER', 'MAINTAINER', 'OWNER'] as const,
});

const AccessLevelRef = builder.objectRef<number>('AccessLevel').implement({
  fields: (t) => ({
    integerValue: t.int({ resolve: (level) => level }),
    stringValue: t.field({ type: AccessLevelEnum, resolve: (level) => accessLevelName(level) }),
    humanAccess: t.string({ nullable: true, description: 'Human-readable display name for the access level.', resolve: (level) => humanAccess(level) }),
  }),
});

const NO_PROJECT_SHARING = 'forgegate shares no project with a group: selects no one.';

// GitLab's relation enums, one per parent type; the sharing relations exist so GitLab's documents validate.
const ProjectMemberRelation = builder.enumType('ProjectMemberRelation', {
  description: 'Project member relation.',
  values: {
    DIRECT: { value: 'direct', description: 'Direct members.' },
    INHERITED: { value: 'inherited', description: 'Inherited members.' },
    INVITED_GROUPS: { value: 'invited_groups', description: `Invited Groups members. ${NO_PROJECT_SHARING}` },
    SHARED_INTO_ANCESTORS: { value: 'shared_into_ancestors', description: 'Shared Into Ancestors members.' },
  } as const,
});

const GroupMemberRelation = builder.enumType('GroupMemberRelation', {
  description: 'Group member relation.',
  values: {
    DIRECT: { value: 'direct', description: 'Members in the group itself.' },
    INHERITED: { value: 'inherited', description: "Members in the group's ancestor groups." },
    SHARED_FROM_GROUPS: { value: 'shared_from_groups', description: "Invited group's members." },
  } as const,
});

/** GitLab's relations as the service's: both sharing relations are members through a group share. */
const relationsOnly = (relations: readonly string[] | null | undefined): MemberRelation[] =>
  (relations ?? []).flatMap((r): MemberRelation[] => {
    if (r === 'direct' || r === 'inherited') return [r];
    return r === 'shared_from_groups' || r === 'shared_into_ancestors' ? ['shared'] : [];
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
      relations: t.arg({
        type: [kind === 'project' ? ProjectMemberRelation : GroupMemberRelation] as [typeof ProjectMemberRelation],
        defaultValue: ['direct', 'inherited'],
        description: 'Filter members by the given member relations.',
      }),
      search: t.arg.string({ description: 'Search query.' }),
      userIds: t.arg.intList({ description: "forgegate's: only these users' memberships (REST's `user_ids[]`)." }),
    },
    resolve: (row, args, ctx) =>
      pagedConnection(
        args,
        listMembers(ctx, parentOf(row), { search: args.search, userIds: args.userIds ?? undefined, relations: relationsOnly(args.relations) }),
      ),
  }),
  member: t.field({
    type: MemberRef,
    nullable: true,
    description: 'One member by user id, directly or (with inherited) through ancestor groups.',
    args: { userId: t.arg.int({ required: true }), inherited: t.arg.boolean() },
    resolve: (row, args, ctx) => findMember(ctx, parentOf(row), args.userId, args.inherited ?? false),
  }),
}));

const MembershipSourceTypeEnum = builder.enumType('MembershipSourceType', {
  description: "forgegate's: what a membership is of, as GitLab's REST names it.",
  values: { Project: { value: 'Project' }, Namespace: { value: 'Namespace', description: 'A group.' } } as const,
});

const UserMembershipRef = builder.objectRef<UserMembership>('UserMembership').implement({
  description: "forgegate's: one direct membership of a user, as GitLab's REST `GET /users/:id/memberships` answers it.",
  fields: (t) => ({
    sourceId: t.int({ resolve: (m) => (m.projectId ?? m.namespaceId)! }),
    sourceName: t.string({ resolve: (m) => (m.project ?? m.namespace)?.name ?? '' }),
    sourceType: t.field({ type: MembershipSourceTypeEnum, resolve: (m) => (m.projectId != null ? 'Project' : 'Namespace') }),
    accessLevel: t.field({ type: AccessLevelRef, resolve: (m) => m.accessLevel }),
  }),
});

builder.queryField('userMemberships', (t) =>
  t.connection({
    type: UserMembershipRef,
    description: "forgegate's: a user's direct memberships of projects and groups (administrators only).",
    args: { userId: t.arg({ type: 'UserID', required: true }), type: t.arg({ type: MembershipSourceTypeEnum }) },
    resolve: async (_r, args, ctx) => pagedConnection(args, await listUserMemberships(ctx, args.userId, args.type ?? null)),
  }),
);

const MemberPayload = (name: string) => payloadType(name, 'member', MemberRef);

const membershipFields = (t: InputFields) => ({
  ...parentInputFields(t),
  userId: t.field({ type: 'UserID', required: true, description: 'Global ID of the user.' }),
});

const MembershipInput = (name: string) =>
  mutationInput(name, (t) => ({
    ...membershipFields(t),
    accessLevel: t.int({ required: true, description: 'Access level: 5 (Minimal Access, groups), 10, 15, 20, 30, 40 or 50.' }),
    expiresAt: t.field({ type: 'Date', description: 'Date the membership expires.' }),
  }));

const MemberCreateInput = mutationInput('MemberCreateInput', (t) => ({
  ...parentInputFields(t),
  // The user by global ID or by username: exactly one of them (the service checks).
  userId: t.field({ type: 'UserID', description: 'Global ID of the user.' }),
  username: t.string({ description: 'Username of the user (alternative to userId).' }),
  accessLevel: t.int({ required: true, description: 'Access level: 5 (Minimal Access, groups), 10, 15, 20, 30, 40 or 50.' }),
  expiresAt: t.field({ type: 'Date', description: 'Date the membership expires.' }),
}));
const MemberUpdateInput = MembershipInput('MemberUpdateInput');
const MemberDeleteInput = mutationInput('MemberDeleteInput', membershipFields);

builder.mutationFields((t) => ({
  memberCreate: t.field({
    type: MemberPayload('MemberCreatePayload'),
    description: 'Adds a user to a project or group.',
    args: { input: t.arg({ type: MemberCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload('member', () => addMember(ctx, parent, input), input);
    },
  }),
  memberUpdate: t.field({
    type: MemberPayload('MemberUpdatePayload'),
    description: "Changes a direct member's access level or expiry.",
    args: { input: t.arg({ type: MemberUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload('member', () => updateMember(ctx, parent, input), input);
    },
  }),
  memberDelete: t.field({
    type: MemberPayload('MemberDeletePayload'),
    description: 'Removes a direct member.',
    args: { input: t.arg({ type: MemberDeleteInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const parent = await resolveParent(ctx, input);
      return asPayload('member', () => removeMember(ctx, parent, input.userId), input);
    },
  }),
}));
