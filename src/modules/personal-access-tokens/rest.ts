import { gid } from '../../graphql/builder.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, page } from '../../rest/shape.ts';

type Issued<K extends string> = ({ [key in K]?: object | null } & { token?: string | null }) | null | undefined;

/** The token entity with its clear text, as the create and rotate routes answer it, once. */
function withToken<K extends 'personalAccessToken' | 'impersonationToken'>(payload: Issued<K>, key: K) {
  return { ...expected(payload?.[key], 'token'), token: expected(payload?.token, 'token value') };
}

/** What a new token is: its name, description, scopes (an array or a comma-separated list) and expiry. */
const ATTRIBUTES = {
  name: param.string({ required: true }),
  description: param.string(),
  scopes: param.stringArray({ required: true, description: 'api, read_api, read_user, read_repository, write_repository, …' }),
};

/** The `:id` of the path as the `PersonalAccessTokenID` the mutations take. */
const tokenGid = (id: number) => gid('PersonalAccessToken', id);

const USER_ID = { user_id: param.int({ required: true }) };
const IMPERSONATION_TOKEN = { ...USER_ID, impersonation_token_id: param.int({ required: true }) };
const USER_TOKENS = '/users/:user_id/impersonation_tokens';

export const routes = defineRoutes(
  [
    route({
      method: 'POST',
      path: '/users/:user_id/personal_access_tokens',
      operation: 'PersonalAccessTokenCreate',
      status: 201,
      params: { ...USER_ID, ...ATTRIBUTES, expires_at: param.date({ description: 'Default: the maximum lifetime (365 days).' }) },
      variables: (v) => ({ input: { userId: v.user_id, name: v.name, description: v.description, scopes: v.scopes, expiresAt: v.expires_at } }),
      result: (data) => withToken(data.personalAccessTokenCreate, 'personalAccessToken'),
    }),
    route({
      method: 'POST',
      path: '/user/personal_access_tokens',
      operation: 'PersonalAccessTokenCreate',
      status: 201,
      params: { ...ATTRIBUTES, expires_at: param.date({ description: 'Default: the day after creation.' }) },
      variables: (v) => ({ input: { name: v.name, description: v.description, scopes: v.scopes, expiresAt: v.expires_at } }),
      result: (data) => withToken(data.personalAccessTokenCreate, 'personalAccessToken'),
    }),
    route({
      method: 'GET',
      path: USER_TOKENS,
      operation: 'ImpersonationTokens',
      paginated: true,
      params: { ...USER_ID, state: param.oneOf(['all', 'active', 'inactive'], { default: 'all' }) },
      variables: (v) => ({ userId: v.user_id, state: enumValue(v.state) }),
      result: (data) => page(data.impersonationTokens),
    }),
    route({
      method: 'GET',
      path: `${USER_TOKENS}/:impersonation_token_id`,
      operation: 'ImpersonationToken',
      params: IMPERSONATION_TOKEN,
      variables: (v) => ({ userId: v.user_id, id: v.impersonation_token_id }),
      result: (data) => data.impersonationToken,
    }),
    route({
      method: 'POST',
      path: USER_TOKENS,
      operation: 'ImpersonationTokenCreate',
      status: 201,
      params: { ...USER_ID, ...ATTRIBUTES, expires_at: param.date({ description: 'Default: the maximum lifetime (365 days).' }) },
      variables: (v) => ({ input: { userId: v.user_id, name: v.name, description: v.description, scopes: v.scopes, expiresAt: v.expires_at } }),
      result: (data) => withToken(data.impersonationTokenCreate, 'impersonationToken'),
    }),
    route({
      method: 'DELETE',
      path: `${USER_TOKENS}/:impersonation_token_id`,
      operation: 'ImpersonationTokenRevoke',
      params: IMPERSONATION_TOKEN,
      variables: (v) => ({ input: { userId: v.user_id, id: v.impersonation_token_id } }),
    }),
    route({
      method: 'GET',
      path: '/personal_access_tokens',
      operation: 'PersonalAccessTokens',
      paginated: true,
      params: {
        user_id: param.int(),
        state: param.oneOf(['active', 'inactive']),
        revoked: param.bool(),
        search: param.string(),
        created_before: param.dateTime(),
        created_after: param.dateTime(),
        last_used_before: param.dateTime(),
        last_used_after: param.dateTime(),
        expires_before: param.date(),
        expires_after: param.date(),
      },
      variables: (v) => ({
        userId: v.user_id,
        state: v.state && enumValue(v.state),
        revoked: v.revoked,
        search: v.search,
        createdBefore: v.created_before,
        createdAfter: v.created_after,
        lastUsedBefore: v.last_used_before,
        lastUsedAfter: v.last_used_after,
        expiresBefore: v.expires_before,
        expiresAfter: v.expires_after,
      }),
      result: (data) => page(data.personalAccessTokens),
    }),
    // `self` routes first: `/personal_access_tokens/:id` would otherwise take them.
    route({
      method: 'GET',
      path: '/personal_access_tokens/self',
      operation: 'CurrentPersonalAccessToken',
      result: (data) => data.currentPersonalAccessToken,
    }),
    route({
      method: 'DELETE',
      path: '/personal_access_tokens/self',
      operation: 'PersonalAccessTokenRevoke',
      variables: () => ({ input: {} }),
    }),
    route({
      method: 'POST',
      path: '/personal_access_tokens/self/rotate',
      operation: 'PersonalAccessTokenRotate',
      params: { expires_at: param.date({ description: 'Default: in a week.' }) },
      variables: (v) => ({ input: { expiresAt: v.expires_at } }),
      result: (data) => withToken(data.personalAccessTokenRotate, 'personalAccessToken'),
    }),
    route({
      method: 'GET',
      path: '/personal_access_tokens/:id',
      operation: 'PersonalAccessToken',
      params: { id: param.int({ required: true }) },
      variables: (v) => ({ id: v.id }),
      result: (data) => data.personalAccessToken,
    }),
    route({
      method: 'DELETE',
      path: '/personal_access_tokens/:id',
      operation: 'PersonalAccessTokenRevoke',
      params: { id: param.int({ required: true }) },
      variables: (v) => ({ input: { id: tokenGid(v.id) } }),
    }),
    route({
      method: 'POST',
      path: '/personal_access_tokens/:id/rotate',
      operation: 'PersonalAccessTokenRotate',
      params: { id: param.int({ required: true }), expires_at: param.date({ description: 'Default: in a week.' }) },
      variables: (v) => ({ input: { id: tokenGid(v.id), expiresAt: v.expires_at } }),
      result: (data) => withToken(data.personalAccessTokenRotate, 'personalAccessToken'),
    }),
  ],
  { authenticate: 'always' },
);
