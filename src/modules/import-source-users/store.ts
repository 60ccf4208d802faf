import type { Db } from '../../db/client.ts';

export type Assignee = { id: number; username: string; email: string };

/**
 * Active users, not themselves a placeholder or an import user, whose username or e-mail is one of
 * those given (lower-cased), in one statement.
 */
export function activeRealUsers(db: Db, usernames: string[], emails: string[]): Promise<Assignee[]> {
  return db.$queryRaw<Assignee[]>`
    SELECT u.id, u.username, u.email FROM users u
    WHERE u.state = 'active'
      AND (lower(u.username) = ANY(${usernames}::text[]) OR lower(u.email) = ANY(${emails}::text[]))
      AND NOT EXISTS (SELECT 1 FROM import_source_users s WHERE s.placeholder_user_id = u.id)
      AND NOT EXISTS (SELECT 1 FROM namespace_import_users n WHERE n.user_id = u.id)`;
}
