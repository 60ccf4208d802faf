import type { User } from '../../generated/prisma/client.ts';
import { USER_READ_SCOPES } from '../../auth/scopes.ts';
import { avatarUrl } from '../../core/avatars.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadClientMutationIdField, payloadErrorsField, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { changeUserState, createUser, deleteUser, findUser, listUsers, STATE_ACTIONS, type StateChange, updateUser } from './service.ts';

const UserStateEnum = builder.enumType('UserState', {
  values: {
    active: { value: 'active', description: 'User is active and can use the system.' },
    blocked: { value: 'blocked', description: 'User has been blocked by an administrator and cannot use the system.' },
    deactivated: { value: 'deactivated', description: 'User is no longer active and cannot use the system.' },
    banned: { value: 'banned', description: 'User is blocked, and their contributions are hidden.' },
    ldap_blocked: { value: 'ldap_blocked', description: 'User has been blocked by the system.' },
  } as const,
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
    avatarUrl: t.string({ nullable: true, resolve: (u, _a, ctx) => avatarUrl(ctx.deps.config.externalUrl, 'user', u.id, u.avatar) }),
    webUrl: t.string({ nullable: false, resolve: (u, _a, ctx) => `${ctx.deps.config.externalUrl}/${u.username}` }),
    webPath: t.string({ nullable: false, description: 'Web path of the user.', resolve: (u) => `/${u.username}` }),
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

/** GitLab's UserCoreConnection: the one connection type of users, for every field that lists them. */
export const UserCoreConnectionRef = builder.connectionObject({ type: UserRef, name: 'UserCoreConnection' }, { name: 'UserCoreEdge' });

/** GitLab's type of `currentUser`: the same fields as any user, for the viewer. */
export const CurrentUserRef = builder.prismaObject('User', {
  variant: 'CurrentUser',
  description: 'The currently authenticated GitLab user.',
  interfaces: [UserInterface],
  extensions: scopes(...USER_READ_SCOPES),
  fields: () => ({}),
});

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
    UserCoreConnectionRef,
  ),
}));

const userAttributeFields = (t: InputFields) => ({
  password: t.string({ description: 'Password of the user.' }),
  admin: t.boolean({ description: 'User is an administrator.' }),
  bio: t.string({ description: 'Short biography.' }),
  canCreateGroup: t.boolean({ description: 'User can create top-level groups.' }),
  projectsLimit: t.int({ description: 'Number of projects the user can create.' }),
  skipConfirmation: t.boolean({ description: 'Confirm the email address without a confirmation mail.' }),
  state: t.field({ type: UserStateEnum, description: 'State of the user.' }),
  avatar: t.field({ type: 'Upload', description: 'Image file for the avatar (200 KiB at most).' }),
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

const userIdField = (t: InputFields) => ({ id: t.field({ type: 'UserID', required: true, description: 'Global ID of the user.' }) });

type StatePayload = { change: StateChange | null; errors: string[]; clientMutationId?: string | null };

const capitalized = (word: string) => word[0].toUpperCase() + word.slice(1);

// forgegate's twins of GitLab's administrator REST actions on a user's state (GitLab's GraphQL has
// none): `userBlock`, `userUnblock`, `userBan`, `userUnban`, `userDeactivate`, `userActivate`.
for (const action of STATE_ACTIONS) {
  const name = `User${capitalized(action)}`;
  const payload = builder.objectRef<StatePayload>(`${name}Payload`).implement({
    fields: (t) => ({
      user: t.field({ type: UserRef, nullable: true, description: 'The user after the change.', resolve: (p) => p.change?.user ?? null }),
      stateChanged: t.boolean({
        nullable: true,
        description: "What GitLab's REST action answers: true when the state changed, false when there was none to change to, null when nothing needed doing.",
        resolve: (p) => p.change?.result ?? null,
      }),
      errors: payloadErrorsField(t),
      clientMutationId: payloadClientMutationIdField(t),
    }),
  });
  const input = mutationInput(`${name}Input`, userIdField);
  builder.mutationField(`user${capitalized(action)}`, (t) =>
    t.field({
      type: payload,
      description: `forgegate's: ${action}s a user (administrators only), as GitLab's \`POST /users/:id/${action}\`.`,
      args: { input: t.arg({ type: input, required: true }) },
      resolve: (_r, { input }, ctx) => asPayload('change', () => changeUserState(ctx, input.id, action), input),
    }),
  );
}

const UserDeleteInput = mutationInput('UserDeleteInput', (t) => ({
  ...userIdField(t),
  hardDelete: t.boolean({ description: 'Also delete the contributions (releases, epics) and the groups the user alone owns.' }),
}));

builder.mutationField('userDelete', (t) =>
  t.field({
    type: UserPayload('UserDeletePayload'),
    description: "forgegate's: deletes a user (administrators only), as GitLab's `DELETE /users/:id`.",
    args: { input: t.arg({ type: UserDeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('user', () => deleteUser(ctx, input.id, input.hardDelete === true), input),
  }),
);
