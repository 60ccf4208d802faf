// Personal access tokens, impersonation tokens and job tokens: GitLab's GraphQL reference
// (`PersonalAccessToken`, `personalAccessTokenCreate`, `personalAccessTokenRevoke`,
// `personalAccessTokenRotate`). Impersonation and job tokens are REST-only in GitLab.
import { CONNECTION_NAME, connection } from './releases.ts';
import type { ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const REST_ONLY = (what: string) => `${what}: GitLab serves it through REST only; our REST routes run this`;
const LEGACY = "ours: forgegate issues scoped (not granular) tokens, as GitLab's REST and settings page do";
const SELF =
  "GitLab's `PersonalAccessTokenID!`: ours may be left out for the token of the request (REST's `/personal_access_tokens/self`); a GitLab document's `PersonalAccessTokenID!` variable still fits";
const THE_TOKEN = "ours: the token's record beside GitLab's `token` text (REST answers it)";

export const types: ReferenceType[] = [
  {
    name: 'PersonalAccessToken',
    fields: {
      active: 'Boolean!',
      createdAt: 'Time!',
      description: 'String',
      expiresAt: 'Date',
      granular: 'Boolean!',
      id: 'ID!',
      lastUsedAt: 'Time',
      name: 'String!',
      revoked: 'Boolean!',
      scopes: '[String!]',
    },
    kept: {
      scopes:
        "GitLab's `[PersonalAccessTokenScope!]!` objects (granular permissions); ours are the scope names of scoped tokens (`api`, `read_api`…), as REST answers them",
      lastUsedIps: "GitLab's, missing: forgegate does not record the addresses a token is used from",
      databaseId: "ours: the numeric id GitLab's REST answers as `id`",
      impersonation: "ours: GitLab's REST token entity has `impersonation`",
      user: "ours: the token's owner (GitLab's REST has `user_id`)",
      userId: "ours: GitLab's REST token entity has `user_id`",
    },
  },
  { name: 'PersonalAccessTokenID' },
  {
    name: 'PersonalAccessTokenCreateInput',
    fields: { clientMutationId: 'String', description: 'String', expiresAt: 'Date', name: 'String!' },
    kept: {
      granularScopes: `GitLab's, missing: ${LEGACY}`,
      scopes: LEGACY,
      userId: "ours: an administrator creates a user's token (GitLab's REST `POST /users/:id/personal_access_tokens`)",
    },
  },
  {
    name: 'PersonalAccessTokenCreatePayload',
    fields: { clientMutationId: 'String', errors: '[String!]!', token: 'String' },
    kept: { personalAccessToken: THE_TOKEN },
  },
  {
    name: 'PersonalAccessTokenRevokeInput',
    fields: { clientMutationId: 'String', id: 'PersonalAccessTokenID!' },
    kept: { id: SELF },
  },
  {
    name: 'PersonalAccessTokenRevokePayload',
    fields: { clientMutationId: 'String', errors: '[String!]!' },
    kept: { personalAccessToken: THE_TOKEN },
  },
  {
    name: 'PersonalAccessTokenRotateInput',
    fields: { clientMutationId: 'String', expiresAt: 'Date', id: 'PersonalAccessTokenID!' },
    kept: { id: SELF },
  },
  {
    name: 'PersonalAccessTokenRotatePayload',
    fields: { clientMutationId: 'String', errors: '[String!]!', token: 'String' },
    kept: { personalAccessToken: THE_TOKEN },
  },
  { name: 'AccessTokenState', values: ['ACTIVE', 'INACTIVE'] },
  {
    name: 'AccessTokenSort',
    values: [
      'CREATED_ASC',
      'CREATED_DESC',
      'EXPIRES_ASC',
      'EXPIRES_DESC',
      'ID_ASC',
      'ID_DESC',
      'LAST_USED_ASC',
      'LAST_USED_DESC',
      'NAME_ASC',
      'NAME_DESC',
      'UPDATED_ASC',
      'UPDATED_DESC',
    ],
  },
  ...connection('QueryPersonalAccessTokensConnection', 'PersonalAccessTokenConnection'),
  ...connection('UserCorePersonalAccessTokensConnection', 'PersonalAccessTokenConnection'),
  {
    name: 'UserCore',
    fields: {
      personalAccessTokens: {
        type: 'PersonalAccessTokenConnection',
        args: {
          ...PAGE,
          createdAfter: 'Time',
          createdBefore: 'Time',
          expiresAfter: 'Date',
          expiresBefore: 'Date',
          lastUsedAfter: 'Time',
          lastUsedBefore: 'Time',
          revoked: 'Boolean',
          search: 'String',
          sort: 'AccessTokenSort',
          state: 'AccessTokenState',
        },
      },
    },
    kept: { personalAccessTokens: CONNECTION_NAME },
  },
  { name: 'ImpersonationTokenState', notGitLab: REST_ONLY('the `state` filter of impersonation tokens') },
  { name: 'ImpersonationTokenCreateInput', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'ImpersonationTokenCreatePayload', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'ImpersonationTokenRevokeInput', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'ImpersonationTokenRevokePayload', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'QueryImpersonationTokensConnection', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'QueryImpersonationTokensConnectionEdge', notGitLab: REST_ONLY('impersonation tokens') },
  { name: 'JobToken', notGitLab: 'a CI job token bound to a project and a user, which an administrator issues for jobs run outside forgegate' },
  { name: 'JobTokenCreateInput', notGitLab: 'issues a JobToken (see it)' },
  { name: 'JobTokenCreatePayload', notGitLab: 'the payload of jobTokenCreate (see JobToken)' },
  {
    name: 'Query',
    kept: {
      currentPersonalAccessToken: REST_ONLY('`GET /personal_access_tokens/self`'),
      personalAccessToken: REST_ONLY('`GET /personal_access_tokens/:id`'),
      personalAccessTokens: REST_ONLY('`GET /personal_access_tokens`'),
      impersonationToken: REST_ONLY('`GET /users/:id/impersonation_tokens/:token_id`'),
      impersonationTokens: REST_ONLY('`GET /users/:id/impersonation_tokens`'),
    },
  },
  {
    name: 'Mutation',
    fields: {
      personalAccessTokenCreate: { type: 'PersonalAccessTokenCreatePayload', args: { input: 'PersonalAccessTokenCreateInput!' } },
      personalAccessTokenRevoke: { type: 'PersonalAccessTokenRevokePayload', args: { input: 'PersonalAccessTokenRevokeInput!' } },
      personalAccessTokenRotate: { type: 'PersonalAccessTokenRotatePayload', args: { input: 'PersonalAccessTokenRotateInput!' } },
    },
    kept: {
      impersonationTokenCreate: REST_ONLY('`POST /users/:id/impersonation_tokens`'),
      impersonationTokenRevoke: REST_ONLY('`DELETE /users/:id/impersonation_tokens/:token_id`'),
      jobTokenCreate: 'ours: issues a JobToken (administrators)',
    },
  },
];
