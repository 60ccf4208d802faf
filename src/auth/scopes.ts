export const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'read_repository',
  'write_repository',
  'sudo',
  'admin_mode',
] as const;

export type Scope = (typeof TOKEN_SCOPES)[number];

export const ROOT_TOKEN_SCOPES: Scope[] = [...TOKEN_SCOPES];

/** What a GraphQL root field accepts unless it says otherwise. */
export const READ_SCOPES: Scope[] = ['api', 'read_api'];
export const WRITE_SCOPES: Scope[] = ['api'];
