import type { Db } from '../db/client.ts';
import { selectList, type SqlReader } from '../db/rows.ts';
import type { JobToken, PersonalAccessToken, User } from '../generated/prisma/client.ts';
import { userColumns } from '../core/store.ts';
import { AccessLevel } from './access-levels.ts';

// What a membership grants (unexpired, of the resource or of a group above it) is defined once, by
// the views `project_authorizations`, `group_authorizations` and `group_memberships_below`.

const UNEXPIRED = "(m.expires_at IS NULL OR m.expires_at >= (now() AT TIME ZONE 'UTC')::date)";

/** The user's unexpired membership of the project `project` itself (not through a group), null for none. */
export const directLevelOf = (project: string, user: string) =>
  `(SELECT m.access_level FROM members m WHERE m.project_id = ${project} AND m.user_id = ${user} AND ${UNEXPIRED})`;

/** The user's level in the namespace `namespace` (through it or a group above it, or a group shared with theirs), null for none. */
export const groupLevelOf = (namespace: string, user: string) =>
  `(SELECT MAX(a.access_level) FROM group_authorizations a WHERE a.namespace_id = ${namespace} AND a.user_id = ${user})`;

// The levels in given projects are the union `project_authorizations` defines (the project's own
// membership, and the group level of the project's namespace), read here from the namespace's id
// rather than through the view: joined to the project, the view's namespaces are merge-joined in id
// order, which for a group newer than the planner's statistics walks every namespace first (~200 ms
// at 300,000 groups, bench/RESULTS.md); as a subquery's parameter the id is one index lookup.
const PROJECT_LEVELS = `SELECT p.id, GREATEST(${directLevelOf('p.id', '$1')}, ${groupLevelOf('p.namespace_id', '$1')}) AS level
  FROM projects p WHERE p.id = ANY($2)`;
const GROUP_LEVELS =
  'SELECT namespace_id AS id, MAX(access_level) AS level FROM group_authorizations WHERE user_id = $1 AND namespace_id = ANY($2) GROUP BY namespace_id';
// Distinct: the view has a row per membership below, hundreds for one group.
const BELOW_MEMBERSHIP = 'SELECT DISTINCT namespace_id AS id FROM group_memberships_below WHERE user_id = $1 AND namespace_id = ANY($2)';

// Null: no level in that project (its row is read whether or not the user has one).
type Level = { id: number; level: number | null };

/** A user's highest level in each of the projects, null where none grants one. */
export const projectLevels = (sql: SqlReader, userId: number, ids: number[]) => sql.rows<Level>(PROJECT_LEVELS, [userId, ids]);
/** A user's highest level in each of the groups that grants one. */
export const groupLevels = (sql: SqlReader, userId: number, ids: number[]) => sql.rows<Level>(GROUP_LEVELS, [userId, ids]);
/** The groups with a membership of the user somewhere below them. */
export const groupsWithMembershipBelow = (sql: SqlReader, userId: number, ids: number[]) => sql.rows<{ id: number }>(BELOW_MEMBERSHIP, [userId, ids]);

// Conditions over `projects p JOIN namespaces n` (PROJECTS_JOIN), for the user bound at `user`
// (a placeholder of the statement's Conditions). Memberships are an EXISTS over
// `project_authorizations`, not a list of ids: the statement is the same whatever their number.

export const PUBLIC_PROJECTS = "p.visibility = 'public'";

/** Projects a signed-in user may read: public and internal ones, their own namespace's, their memberships'. */
export const projectsReadableBy = (user: string) => `p.visibility IN ('public', 'internal') OR n.owner_id = ${user}
      OR EXISTS (SELECT 1 FROM project_authorizations a WHERE a.project_id = p.id AND a.user_id = ${user} AND a.access_level >= ${AccessLevel.GUEST})`;

/** Projects of the user's memberships, direct or through a group, and of their namespace. */
export const projectsOfMember = (user: string) =>
  `n.owner_id = ${user} OR EXISTS (SELECT 1 FROM project_authorizations a WHERE a.project_id = p.id AND a.user_id = ${user})`;

export const NO_PROJECTS = 'FALSE';

// Every credentialed request starts with one of these: over the pool, one statement each, the
// rows Prisma's `include: { user: true }` would give in two statements (bench/RESULTS.md, "Figures behind the code").
const TOKEN_BY_DIGEST = `SELECT ${selectList('PersonalAccessToken', 't')}, ${userColumns('u', 'user.')}
  FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1`;
const JOB_TOKEN_BY_DIGEST = `SELECT ${selectList('JobToken', 'j')}, ${userColumns('u', 'user.')}
  FROM job_tokens j JOIN users u ON u.id = j.user_id WHERE j.digest = $1`;

async function withUser<T>(sql: SqlReader, statement: string, digest: string): Promise<(T & { user: User }) | null> {
  const [row] = await sql.rows<T & { user: User }>(statement, [digest]);
  return row ?? null;
}

/** A personal or impersonation token by digest, with its user. */
export const tokenByDigest = (sql: SqlReader, digest: string) => withUser<PersonalAccessToken>(sql, TOKEN_BY_DIGEST, digest);
/** A CI job token by digest, with its user. */
export const jobTokenByDigest = (sql: SqlReader, digest: string) => withUser<JobToken>(sql, JOB_TOKEN_BY_DIGEST, digest);

/** Revokes every token rotated from `tokenId`, directly or down the chain. */
export async function revokeRotatedSuccessors(db: Db, tokenId: number): Promise<void> {
  await db.$executeRaw`
    WITH RECURSIVE successors AS (
      SELECT id FROM personal_access_tokens WHERE previous_personal_access_token_id = ${tokenId}
      UNION ALL
      SELECT t.id FROM personal_access_tokens t JOIN successors s ON t.previous_personal_access_token_id = s.id
    )
    UPDATE personal_access_tokens SET revoked = true WHERE id IN (SELECT id FROM successors) AND NOT revoked`;
}

/**
 * Sets a token's `last_used_at` unless it moved less than `intervalSeconds` ago: the condition is
 * in the UPDATE, so concurrent requests in any number of processes write it once.
 */
export async function markTokenUsed(db: Db, id: number, intervalSeconds: number): Promise<void> {
  await db.$executeRaw`
    UPDATE personal_access_tokens SET last_used_at = now() AT TIME ZONE 'UTC'
    WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= now() AT TIME ZONE 'UTC' - make_interval(secs => ${intervalSeconds}))`;
}
