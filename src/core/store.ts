import type { Db } from '../db/client.ts';
import { selectList, type SqlReader } from '../db/rows.ts';
import type { Namespace, Project, User } from '../generated/prisma/client.ts';

/** Projects with their namespaces, aliased `p` and `n` (the aliases project conditions are written for). */
export const PROJECTS_JOIN = 'projects p JOIN namespaces n ON n.id = p.namespace_id';
/**
 * A project's columns with its namespace's, as `readProjects` reads them; under `prefix`, an object
 * of its own in the row (`project.`: the row's `project`).
 */
export const projectWithNamespaceColumns = (prefix = '') =>
  `${selectList('Project', 'p', { prefix })}, ${selectList('Namespace', 'n', { prefix: `${prefix}namespace.` })}`;

/**
 * A project with its namespace in one statement, the read every project-scoped request starts with
 * (Prisma's `include` takes two; bench/RESULTS.md, "Figures behind the code").
 */
const PROJECTS_WITH_NAMESPACE = `SELECT ${projectWithNamespaceColumns()} FROM ${PROJECTS_JOIN}`;

const PROJECTS_BY_ID = `${PROJECTS_WITH_NAMESPACE} WHERE p.id = ANY($1)`;

/** Projects with their namespace, from a statement selecting `projectWithNamespaceColumns()`. */
export const readProjects = (sql: SqlReader, statement: string, values: unknown[]) => sql.rows<Project & { namespace: Namespace }>(statement, values);

/** Projects with their namespace, by id. */
export const projectsWithNamespace = (sql: SqlReader, ids: readonly number[]) => readProjects(sql, PROJECTS_BY_ID, [ids]);

/** The select list of a User as Prisma reads it (see `selectList`). */
export const userColumns = (alias: string, prefix = '') => selectList('User', alias, { prefix });

const USERS_BY_ID = `SELECT ${userColumns('u')} FROM users u WHERE u.id = ANY($1)`;

/** Users by id: authors, assignees, members, over the pool (SqlReader), the rows Prisma would read. */
export const usersById = (sql: SqlReader, ids: readonly number[]) => sql.rows<User>(USERS_BY_ID, [ids]);

// E-mail addresses are compared case aside as `lower(email)`, which `users_lower_email_idx` serves.
// Prisma writes an insensitive equality as ILIKE, which only a trigram index could serve, reading
// every entry of the address's trigrams (most addresses share their domain's).
const USERS_BY_EMAIL = `SELECT ${userColumns('u')} FROM users u WHERE lower(u.email) = ANY(SELECT lower(e) FROM unnest($1::text[]) e)`;

/** Users by e-mail address, case aside (commit authors). */
export const usersByEmail = (sql: SqlReader, emails: readonly string[]) => sql.rows<User>(USERS_BY_EMAIL, [emails]);

/** The ids of the users whose e-mail is `email`, case aside; in the transaction `db` when given one. */
export async function userIdsWithEmail(db: Pick<Db, '$queryRaw'>, email: string): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
  return rows.map((r) => r.id);
}

/**
 * Next per-parent iid (milestones of a project, epics of a group, alerts of a project, …),
 * incremented atomically in one statement so concurrent creates, in any process, never share one.
 * `scope` names the kind and the parent's kind, e.g. `milestones:project`.
 */
export async function nextIid(db: Pick<Db, '$queryRaw'>, scope: string, ownerId: number): Promise<number> {
  const [row] = await db.$queryRaw<{ last: number }[]>`
    INSERT INTO internal_ids (scope, owner_id, last) VALUES (${scope}, ${ownerId}, 1)
    ON CONFLICT (scope, owner_id) DO UPDATE SET last = internal_ids.last + 1
    RETURNING last`;
  return row.last;
}

/**
 * `count` consecutive iids taken at once (an import's chunk), as `count` calls of `nextIid` would
 * take them, in one statement: the first of them.
 */
export async function nextIids(db: Pick<Db, '$queryRaw'>, scope: string, ownerId: number, count: number): Promise<number> {
  const [row] = await db.$queryRaw<{ last: number }[]>`
    INSERT INTO internal_ids (scope, owner_id, last) VALUES (${scope}, ${ownerId}, ${count})
    ON CONFLICT (scope, owner_id) DO UPDATE SET last = internal_ids.last + ${count}
    RETURNING last`;
  return row.last - count + 1;
}

/** Hands `iid` back while it is still the last one taken in its scope (see `withNextIid`). */
export async function handBackIid(db: Pick<Db, '$executeRaw'>, scope: string, ownerId: number, iid: number): Promise<void> {
  await db.$executeRaw`UPDATE internal_ids SET last = last - 1 WHERE scope = ${scope} AND owner_id = ${ownerId} AND last = ${iid}`;
}

/**
 * Makes `iid` taken in its scope (an import keeping the source's iids), so the next `nextIid` hands
 * out a later one. One statement, whatever was taken before.
 */
export async function reserveIid(db: Pick<Db, '$executeRaw'>, scope: string, ownerId: number, iid: number): Promise<void> {
  await db.$executeRaw`
    INSERT INTO internal_ids (scope, owner_id, last) VALUES (${scope}, ${ownerId}, ${iid})
    ON CONFLICT (scope, owner_id) DO UPDATE SET last = GREATEST(internal_ids.last, EXCLUDED.last)`;
}
