import { ROOT_TOKEN_SCOPES } from '../../auth/scopes.ts';
import { issueToken } from '../../auth/tokens.ts';
import { ConflictError } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { AppDeps } from '../../deps.ts';
import { createUserRecord } from './service.ts';

/**
 * On first start (no users yet) creates the administrator `root`, and, when INITIAL_ROOT_TOKEN is
 * set, gives it a personal access token with exactly that value so scripts can drive a new instance.
 */
export async function ensureRootUser(deps: Pick<AppDeps, 'db' | 'config' | 'secrets' | 'log'>): Promise<void> {
  if ((await deps.db.user.count()) > 0) return;
  let root: Awaited<ReturnType<typeof createUserRecord>>;
  try {
    root = await createUserRecord(deps.db, { username: 'root', name: 'Administrator', email: 'admin@example.com', admin: true });
  } catch (error) {
    // Several processes starting together on a new database: one creates root, the others stop here.
    if ((error instanceof ConflictError || isUniqueViolation(error)) && (await deps.db.user.count({ where: { username: 'root' } })) > 0) return;
    throw error;
  }
  deps.log.info({ userId: root.id }, 'created administrator root');
  if (!deps.config.initialRootToken) return;
  await issueToken(deps.db, deps.secrets.tokenDigestKey, {
    userId: root.id,
    name: 'initial root token',
    scopes: ROOT_TOKEN_SCOPES,
    value: deps.config.initialRootToken,
  });
  deps.log.info('created the initial root token from INITIAL_ROOT_TOKEN');
}
