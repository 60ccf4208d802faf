import type { User } from '../../generated/prisma/client.ts';
import { USER_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, payloadType } from '../../graphql/payloads.ts';
import { createUser, findUser, listUsers, updateUser } from './service.ts';

const UserStateEnum = builder.enumType('UserState', {
  values: { active: { value: 'active' }, blocked: { value: 'blocked' } } as const,
});

/** Private attributes are for the user and administrators only (CVE-2020-26413). */
const selfOrAdmin = (user: User, ctx: Context) => ctx.viewer.isAdmin || ctx.viewer.userId === user.id;

export const UserRef = builder.prismaObject('User', {
  name: 'UserCore',
  extensions: scopes(...USER_READ_SCOPES),
  fields: (t) => ({
    id: t.id({ resolve: (u) => gid('User', u.id) }),
    databaseId: t.exposeInt('id'),
    username: t.exposeString('username'),
    name: t.exposeString('name'),
    state: t.expose('state', { type: UserStateEnum }),
    locked: t.boolean({ resolve: () => false }),
    bot: t.boolean({ resolve: () => false }),
    bio: t.exposeString('bio'),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    avatarUrl: t.string({ nullable: true, resolve: () => null }),
    webUrl: t.string({ resolve: (u, _a, ctx) => `${ctx.deps.config.externalUrl}/${u.username}` }),
    publicEmail: t.string({ nullable: true, resolve: () => null }),
    email: t.string({ nullable: true, description: 'Visible to the user and administrators.', resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.email : null) }),
    isAdmin: t.boolean({ nullable: true, description: 'Visible to the user and administrators.', resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.isAdmin : null) }),
    canCreateGroup: t.boolean({ nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.canCreateGroup : null) }),
    projectsLimit: t.int({ nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.projectsLimit : null) }),
    confirmedAt: t.field({ type: 'Time', nullable: true, resolve: (u, _a, ctx) => (selfOrAdmin(u, ctx) ? u.confirmedAt : null) }),
  }),
});

builder.queryFields((t) => ({
  currentUser: t.field({
    type: UserRef,
    nullable: true,
    description: 'The user behind the credential, null for anonymous requests.',
    extensions: scopes(...USER_READ_SCOPES),
    resolve: (_r, _a, ctx) => ctx.viewer.user,
  }),
  user: t.field({
    type: UserRef,
    nullable: true,
    extensions: scopes(...USER_READ_SCOPES),
    args: { id: t.arg.int(), username: t.arg.string() },
    resolve: (_r, args, ctx) => findUser(ctx, args),
  }),
  users: t.connection({
    type: UserRef,
    extensions: scopes(...USER_READ_SCOPES),
    args: {
      usernames: t.arg.stringList(),
      search: t.arg.string(),
      active: t.arg.boolean(),
      blocked: t.arg.boolean(),
    },
    resolve: (_r, args, ctx) => pagedConnection(args, listUsers(ctx, args)),
  }),
}));

const UserInputFields = builder.inputType('UserAttributesInput', {
  fields: (t) => ({
    username: t.string(),
    name: t.string(),
    email: t.string(),
    password: t.string(),
    admin: t.boolean(),
    bio: t.string(),
    canCreateGroup: t.boolean(),
    projectsLimit: t.int(),
    skipConfirmation: t.boolean(),
    state: t.field({ type: UserStateEnum }),
  }),
});

const UserPayload = (name: string) => payloadType(name, 'user', UserRef);

builder.mutationFields((t) => ({
  userCreate: t.field({
    type: UserPayload('UserCreatePayload'),
    args: {
      username: t.arg.string({ required: true }),
      name: t.arg.string({ required: true }),
      email: t.arg.string({ required: true }),
      resetPassword: t.arg.boolean({ description: 'Start with a random password (GitLab would mail a reset link); alternative to password.' }),
      forceRandomPassword: t.arg.boolean({ description: 'Start with a random password; alternative to password.' }),
      attributes: t.arg({ type: UserInputFields }),
    },
    resolve: (_r, { attributes, ...required }, ctx) => asPayload(ctx, 'user', () => createUser(ctx, { ...attributes, ...required })),
  }),
  userUpdate: t.field({
    type: UserPayload('UserUpdatePayload'),
    args: { id: t.arg.int({ required: true }), attributes: t.arg({ type: UserInputFields, required: true }) },
    resolve: (_r, { id, attributes }, ctx) => asPayload(ctx, 'user', () => updateUser(ctx, id, attributes)),
  }),
}));
