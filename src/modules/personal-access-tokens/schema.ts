import type { ArgBuilder } from '@pothos/core';
import { builder, databaseIdOf, gid, scopes, scopesWithSelection } from '../../graphql/builder.ts';
import { defineAbility, hiddenUnless } from '../../graphql/abilities.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields, type Types } from '../../graphql/payloads.ts';
import { ParamError } from '../../core/errors.ts';
import { UserRef } from '../users/index.ts';
import {
  createImpersonationToken,
  createPersonalAccessToken,
  currentToken,
  findImpersonationToken,
  findPersonalAccessToken,
  isActive,
  listImpersonationTokens,
  listPersonalAccessTokens,
  mayReadTokensOf,
  revokeImpersonationToken,
  revokePersonalAccessToken,
  rotatePersonalAccessToken,
  TOKEN_SORTS,
  type IssuedToken,
  type TokenSort,
} from './service.ts';

export const PersonalAccessTokenRef = builder.prismaObject('PersonalAccessToken', {
  description: 'A personal or impersonation access token. The token itself is shown once, by the mutation that issues it.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (token) => gid('PersonalAccessToken', token.id) }),
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name', { nullable: false }),
    description: t.exposeString('description', { nullable: true }),
    scopes: t.exposeStringList('scopes'),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'Time', nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'Date', nullable: true, description: 'Last day the token works.' }),
    revoked: t.exposeBoolean('revoked', { nullable: false }),
    active: t.boolean({ nullable: false, description: 'Neither revoked nor expired.', resolve: isActive }),
    granular: t.boolean({ nullable: false, description: 'Always false: forgegate issues scoped tokens, not granular ones.', resolve: () => false }),
    impersonation: t.exposeBoolean('impersonation'),
    userId: t.exposeInt('userId'),
    user: t.field({ type: UserRef, resolve: async (token, _a, ctx) => (await ctx.loaders.user.load(token.userId))! }),
  }),
});

const TokenStateEnum = builder.enumType('AccessTokenState', {
  description: 'State of an access token.',
  values: { ACTIVE: { value: 'active' }, INACTIVE: { value: 'inactive' } } as const,
});

const TokenSortEnum = builder.enumType('AccessTokenSort', {
  description: 'Values for sorting access tokens.',
  values: Object.fromEntries(TOKEN_SORTS.map((value) => [value.toUpperCase(), { value }])) as { [K in TokenSort as Uppercase<K>]: { value: K } },
});

declare module '../../graphql/abilities.ts' {
  interface Abilities {
    /** A user's personal access tokens: by the user's id. */
    readUserPersonalAccessTokens: number;
  }
}
defineAbility('readUserPersonalAccessTokens', mayReadTokensOf);

const ImpersonationTokenStateEnum = builder.enumType('ImpersonationTokenState', {
  values: { ALL: { value: 'all' }, ACTIVE: { value: 'active' }, INACTIVE: { value: 'inactive' } } as const,
});

/** `gid://gitlab/PersonalAccessToken/7`, or `7` as the REST facade passes it. */
function tokenId(id: string | number): number {
  const value = databaseIdOf('PersonalAccessToken', id);
  if (value === null) throw new ParamError(`${id} is not a valid PersonalAccessTokenID`);
  return value;
}

/** The filters of a token list, GitLab's arguments of `User.personalAccessTokens`. */
const filterArgs = (arg: ArgBuilder<Types>) => ({
  state: arg({ type: TokenStateEnum }),
  revoked: arg.boolean(),
  search: arg.string({ description: 'Part of the name.' }),
  createdBefore: arg({ type: 'Time' }),
  createdAfter: arg({ type: 'Time' }),
  lastUsedBefore: arg({ type: 'Time' }),
  lastUsedAfter: arg({ type: 'Time' }),
  expiresBefore: arg({ type: 'Date' }),
  expiresAfter: arg({ type: 'Date' }),
  sort: arg({ type: TokenSortEnum, description: 'Default: by id, oldest first.' }),
});

builder.objectField(UserRef, 'personalAccessTokens', (t) =>
  t.connection({
    type: PersonalAccessTokenRef,
    nullable: true,
    description: "The user's personal access tokens (the access tokens page): the user and administrators only, null for others.",
    ...hiddenUnless('readUserPersonalAccessTokens', (user: { id: number }) => user.id),
    args: filterArgs(t.arg),
    resolve: async (user, { first, last, before, after, ...filter }, ctx) =>
      listConnection({ first, last, before, after }, await ctx.loaders.userTokens(filter).load(user.id)),
  }),
);

builder.queryFields((t) => ({
  personalAccessTokens: t.connection({
    type: PersonalAccessTokenRef,
    description: "The viewer's personal access tokens; administrators see everyone's (filter by userId).",
    args: { userId: t.arg.int(), ...filterArgs(t.arg) },
    resolve: async (_r, args, ctx) => pagedConnection(args, await listPersonalAccessTokens(ctx, args)),
  }),
  personalAccessToken: t.field({
    type: PersonalAccessTokenRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => findPersonalAccessToken(ctx, tokenId(id)),
  }),
  currentPersonalAccessToken: t.field({
    type: PersonalAccessTokenRef,
    description: 'The token this request authenticated with.',
    extensions: scopesWithSelection('api', 'read_api', 'read_user', 'self_rotate'),
    resolve: (_r, _a, ctx) => currentToken(ctx),
  }),
  impersonationTokens: t.connection({
    type: PersonalAccessTokenRef,
    description: 'Administrators only: the impersonation tokens of a user.',
    args: { userId: t.arg.int({ required: true }), state: t.arg({ type: ImpersonationTokenStateEnum, defaultValue: 'all' }) },
    resolve: async (_r, { userId, state, ...page }, ctx) =>
      pagedConnection(page, await listImpersonationTokens(ctx, userId, state === 'all' || state == null ? null : state)),
  }),
  impersonationToken: t.field({
    type: PersonalAccessTokenRef,
    description: 'Administrators only: one impersonation token of a user.',
    args: { userId: t.arg.int({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, { userId, id }, ctx) => findImpersonationToken(ctx, userId, tokenId(id)),
  }),
}));

/** A payload that also carries the issued token's clear text, once (GitLab's `token` field). */
function issuedTokenPayload<K extends 'personalAccessToken' | 'impersonationToken'>(name: string, key: K) {
  const ref = payloadType(name, key, PersonalAccessTokenRef);
  builder.objectField(ref, 'token', (t) =>
    t.string({
      nullable: true,
      description: 'The token itself. Shown only here; only its digest is stored.',
      resolve: (payload) => (payload[key] as IssuedToken | null)?.value ?? null,
    }),
  );
  return ref;
}

const attributeFields = (t: InputFields) => ({
  name: t.string({ required: true }),
  description: t.string(),
  scopes: t.stringList({ required: true, description: 'Scopes of the token, e.g. api, read_repository.' }),
});

const CreateInput = mutationInput('PersonalAccessTokenCreateInput', (t) => ({
  userId: t.int({ description: 'Administrators: the user to create the token for. Omitted: the current user, `k8s_proxy` scope only.' }),
  ...attributeFields(t),
  expiresAt: t.field({ type: 'Date', description: 'Last day the token works. Default: a year (for another user) or today (for oneself).' }),
}));

// GitLab's `PersonalAccessTokenID!`; ours may be left out (REST's `/personal_access_tokens/self`).
const RevokeInput = mutationInput('PersonalAccessTokenRevokeInput', (t) => ({
  id: t.field({ type: 'PersonalAccessTokenID', description: 'Global ID of the token. Omitted: the token of this request.' }),
}));

const RotateInput = mutationInput('PersonalAccessTokenRotateInput', (t) => ({
  id: t.field({ type: 'PersonalAccessTokenID', description: 'Global ID of the token. Omitted: the token of this request.' }),
  expiresAt: t.field({ type: 'Date', description: 'Last day the new token works. Default: in a week.' }),
}));

const ImpersonationCreateInput = mutationInput('ImpersonationTokenCreateInput', (t) => ({
  userId: t.int({ required: true }),
  ...attributeFields(t),
  expiresAt: t.field({ type: 'Date', description: 'Default: the maximum lifetime (365 days).' }),
}));

const ImpersonationRevokeInput = mutationInput('ImpersonationTokenRevokeInput', (t) => ({ userId: t.int({ required: true }), id: t.id({ required: true }) }));

builder.mutationFields((t) => ({
  personalAccessTokenCreate: t.field({
    type: issuedTokenPayload('PersonalAccessTokenCreatePayload', 'personalAccessToken'),
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('personalAccessToken', () => createPersonalAccessToken(ctx, input), input),
  }),
  personalAccessTokenRevoke: t.field({
    type: payloadType('PersonalAccessTokenRevokePayload', 'personalAccessToken', PersonalAccessTokenRef),
    args: { input: t.arg({ type: RevokeInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('personalAccessToken', () => revokePersonalAccessToken(ctx, input.id ?? null), input),
  }),
  personalAccessTokenRotate: t.field({
    type: issuedTokenPayload('PersonalAccessTokenRotatePayload', 'personalAccessToken'),
    args: { input: t.arg({ type: RotateInput, required: true }) },
    extensions: scopes('api', 'self_rotate'),
    resolve: (_r, { input }, ctx) => asPayload('personalAccessToken', () => rotatePersonalAccessToken(ctx, input.id ?? null, input.expiresAt), input),
  }),
  impersonationTokenCreate: t.field({
    type: issuedTokenPayload('ImpersonationTokenCreatePayload', 'impersonationToken'),
    description: 'Administrators only: a token that acts as the user for the API and git, hidden from their own token list.',
    args: { input: t.arg({ type: ImpersonationCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('impersonationToken', () => createImpersonationToken(ctx, input), input),
  }),
  impersonationTokenRevoke: t.field({
    type: payloadType('ImpersonationTokenRevokePayload', 'impersonationToken', PersonalAccessTokenRef),
    args: { input: t.arg({ type: ImpersonationRevokeInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('impersonationToken', () => revokeImpersonationToken(ctx, input.userId, tokenId(input.id)), input),
  }),
}));
