/**
 * Every scope a personal or impersonation token may carry (GitLab's list). Some grant nothing
 * here yet (registry, runner, cluster agent scopes) but are accepted so GitLab clients can ask for them.
 */
export const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'create_runner',
  'manage_runner',
  'k8s_proxy',
  'self_rotate',
  'ai_features',
  'sudo',
  'admin_mode',
] as const;

export type Scope = (typeof TOKEN_SCOPES)[number];

/** Scopes only administrators' tokens may carry. */
export const ADMIN_ONLY_SCOPES: Scope[] = ['sudo', 'admin_mode'];

export const ROOT_TOKEN_SCOPES: Scope[] = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode'];

/** What a GraphQL root field accepts unless it says otherwise. */
export const READ_SCOPES: Scope[] = ['api', 'read_api'];
/** Every mutation, repository writes included: on GitLab `write_repository` is for git over HTTP, never for the API. */
export const WRITE_SCOPES: Scope[] = ['api'];

/** Token scopes that let git over HTTP fetch (GitLab's download_code ability) and push (push_code); not API scopes. */
export const GIT_READ_SCOPES: Scope[] = ['api', 'read_api', 'read_repository', 'write_repository'];
export const GIT_WRITE_SCOPES: Scope[] = ['api', 'write_repository'];
/** Reads of repository content that `read_repository` tokens may make (GitLab: the repository files API). */
export const REPOSITORY_READ_SCOPES: Scope[] = ['api', 'read_api', 'read_repository'];
/** Reads of users that `read_user` tokens may make (GitLab: /user, /users). */
export const USER_READ_SCOPES: Scope[] = ['api', 'read_api', 'read_user'];
