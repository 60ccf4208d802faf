import type { User } from '../../generated/prisma/client.ts';
import { USER_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { createUser, findUser, listUsers, updateUser } from './service.ts';

const UserStateEnum = builder.enumType('UserState', {
  values: { active: { value: 'active' }, blocked: { value: 'blocked' } } as const,
});

/** GitLab's `AvailabilityEnum`: what a user's status says of their availability. */
const AvailabilityEnum = builder.enumType('AvailabilityEnum', {
  description: 'User availability status',
  values: { NOT_SET: { description: 'Not Set' }, BUSY: { description: 'Busy' } } as const,
});

type UserStatusValue = { availability: 'NOT_SET' | 'BUSY'; message: string | null; emoji: string | null };

/** GitLab's `UserStatus`. forgegate has no way to set a status yet, so `User.status` answers null, as GitLab does for a user who set none. */
const UserStatusRef = builder.objectRef<UserStatusValue>('UserStatus').implement({
  fields: (t) => ({
    availability: t.field({ type: AvailabilityEnum, nullable: false, description: 'User availability status.', resolve: (s) => s.availability }),
    message: t.exposeString('message', { nullable: true, description: 'User status message.' }),
    messageHtml: t.exposeString('message', { nullable: true, description: 'HTML of the user status message.' }),
    emoji: t.exposeString('emoji', { nullable: true, description: 'String representation of emoji.' }),
  }),
});

/** Private attributes are for the user and administrators only (CVE-2020-26413). */
const selfOrAdmin = (user: User, ctx: Context) => ctx.viewer.isAdmin || ctx.viewer.userId === user.id;

/** GitLab's `User` interface: what `UserCore` (any user) and `CurrentUser` (the viewer) share. */
export const UserInterface = builder.interfaceRef<User>('User').implement({
  description: 'Representation of a GitLab user.',
  extensions: scopes(...USER_READ_SCOPES),
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (u) => gid('User', u.id) }),
    databaseId: t.int({ resolve: (u) => u.id }),
    username: t.string({ nullable: false, resolve: (u) => u.username }),
    name: t.string({ nullable: false, resolve: (u) => u.name }),
    state: t.field({ type: UserStateEnum, nullable: false, resolve: (u) => u.state }),
    active: t.boolean({ description: 'Indicates if the user is active.', resolve: (u) => u.state === 'active' }),
    locked: t.boolean({ resolve: () => false }),
    bot: t.boolean({ nullable: false, resolve: () => false }),
    bio: t.string({ resolve: (u) => u.bio }),
    createdAt: t.field({ type: 'Time', resolve: (u) => u.createdAt }),
    avatarUrl: t.string({ nullable: true, resolve: () => null }),
    webUrl: t.string({ nullable: false, resolve: (u, _a, ctx) => `${ctx.deps.config.externalUrl}/${u.username}` }),
    webPath: t.string({ nullable: false, description: 'Web path of the user.', resolve: (u) => `/${u.username}` }),
    status: t.field({ type: UserStatusRef, nullable: true, description: 'User status (none can be set here yet: null).', resolve: () => null }),
    publicEmail: t.string({ nullable: true, resolve: () => null }),
    email: t.string({
      nullable: true,
      description: 'Visible to the user and administrators.',
      resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.email : null),
    }),
    isAdmin: t.boolean({
      nullable: true,
      description: 'Visible to the user and administrators.',
      resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.isAdmin : null),
    }),
    canCreateGroup: t.boolean({ nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.canCreateGroup : null) }),
    projectsLimit: t.int({ nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.projectsLimit : null) }),
    confirmedAt: t.field({ type: 'Time', nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.confirmedAt : null) }),
  }),
});

export const UserRef = builder.prismaObject('User', {
  name: 'UserCore',
  description: 'Core representation of a GitLab user.',
  interfaces: [UserInterface],
  extensions: scopes(...USER_READ_SCOPES),
  fields: () => ({}),
});

/** GitLab's type of `currentUser`: the same fields as any user, for the viewer. */
export const CurrentUserRef = builder.prismaObject('User', {
  variant: 'CurrentUser',
  description: 'The currently authenticated GitLab user.',
  interfaces: [UserInterface],
  extensions: scopes(...USER_READ_SCOPES),
  fields: () => ({}),
});

/** GitLab's `UserCoreConnection`. */
const UserCoreConnection = builder.connectionObject({ type: UserRef, name: 'UserCoreConnection' }, { name: 'UserCoreEdge' });

builder.queryFields((t) => ({
  currentUser: t.field({
    type: CurrentUserRef,
    nullable: true,
    description: 'The user behind the credential, null for anonymous requests.',
    extensions: scopes(...USER_READ_SCOPES),
    resolve: (_r, _a, ctx) => ctx.viewer.user,
  }),
  user: t.field({
    type: UserRef,
    nullable: true,
    extensions: scopes(...USER_READ_SCOPES),
    args: { id: t.arg({ type: 'UserID', description: 'ID of the User.' }), username: t.arg.string({ description: 'Username of the User.' }) },
    resolve: (_r, args, ctx) => findUser(ctx, args),
  }),
  users: t.connection(
    {
      type: UserRef,
      extensions: scopes(...USER_READ_SCOPES),
      args: {
        usernames: t.arg.stringList(),
        search: t.arg.string(),
        active: t.arg.boolean(),
        blocked: t.arg.boolean(),
        groupId: t.arg({ type: 'GroupID', description: 'Return users member of a given group or its subgroups and projects.' }),
        humans: t.arg.boolean({ description: 'Filter by regular users (no placeholder or import users). Ignored if false.' }),
      },
      resolve: async (_r, args, ctx) => pagedConnection(args, await listUsers(ctx, args)),
    },
    UserCoreConnection,
  ),
}));

const userAttributeFields = (t: InputFields) => ({
  password: t.string({ description: 'Password of the user.' }),
  admin: t.boolean({ description: 'User is an administrator.' }),
  bio: t.string({ description: 'Short biography.' }),
  canCreateGroup: t.boolean({ description: 'User can create top-level groups.' }),
  projectsLimit: t.int({ description: 'Number of projects the user can create.' }),
  skipConfirmation: t.boolean({ description: 'Confirm the email address without a confirmation mail.' }),
  state: t.field({ type: UserStateEnum, description: 'Active or blocked.' }),
});

const UserCreateInput = mutationInput('UserCreateInput', (t) => ({
  username: t.string({ required: true, description: 'Username of the user.' }),
  name: t.string({ required: true, description: 'Full name of the user.' }),
  email: t.string({ required: true, description: 'Email address of the user.' }),
  resetPassword: t.boolean({ description: 'Start with a random password (GitLab would mail a reset link); alternative to password.' }),
  forceRandomPassword: t.boolean({ description: 'Start with a random password; alternative to password.' }),
  ...userAttributeFields(t),
}));

const UserUpdateInput = mutationInput('UserUpdateInput', (t) => ({
  id: t.field({ type: 'UserID', required: true, description: 'Global ID of the user.' }),
  username: t.string({ description: 'Username of the user.' }),
  name: t.string({ description: 'Full name of the user.' }),
  email: t.string({ description: 'Email address of the user.' }),
  ...userAttributeFields(t),
}));

const UserPayload = (name: string) => payloadType(name, 'user', UserRef);

builder.mutationFields((t) => ({
  userCreate: t.field({
    type: UserPayload('UserCreatePayload'),
    description: 'Creates a user; administrators only.',
    args: { input: t.arg({ type: UserCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const { clientMutationId: _, ...attributes } = input;
      return asPayload('user', () => createUser(ctx, attributes), input);
    },
  }),
  userUpdate: t.field({
    type: UserPayload('UserUpdatePayload'),
    description: 'Changes a user; administrators, or the user for their own profile fields.',
    args: { input: t.arg({ type: UserUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const { clientMutationId: _, id, ...attributes } = input;
      return asPayload('user', () => updateUser(ctx, id, attributes), input);
    },
  }),
}));
