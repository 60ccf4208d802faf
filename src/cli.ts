// npx forgegate <command>: administrator jobs on the configured database.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { createDb, type Db } from './db/client.ts';
import { issueJobToken } from './auth/job-tokens.ts';
import { TOKEN_SCOPES, type Scope } from './auth/scopes.ts';
import { issueToken } from './auth/tokens.ts';
import { loadSecrets } from './secrets.ts';
import { createUserRecord } from './modules/users/service.ts';

const USAGE = `usage: forgegate <command> [options]
  migrate                                   apply pending migrations
  create-user --username U --name N --email E [--password P] [--admin]
  create-token --username U --name N [--scopes api,read_api] [--expires-at YYYY-MM-DD]
                                            prints the new token once
  create-job-token --username U --project group/project [--minutes 60]
                                            prints a CI job token bound to the project, once`;

async function createJobTokenFor(db: Db, digestKey: string, userId: number, fullPath?: string, minutes?: string) {
  const slash = fullPath?.lastIndexOf('/') ?? -1;
  if (!fullPath || slash < 1) throw new Error('--project group/project is required');
  const project = await db.project.findFirst({ where: { path: fullPath.slice(slash + 1), namespace: { fullPath: fullPath.slice(0, slash) } } });
  if (!project) throw new Error(`no project ${fullPath}`);
  if (minutes !== undefined && !/^\d{1,4}$/.test(minutes)) throw new Error('--minutes must be a number');
  const { token } = await issueJobToken(db, digestKey, { projectId: project.id, userId, minutes: minutes === undefined ? undefined : Number(minutes) });
  return token;
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' },
      admin: { type: 'boolean' }, scopes: { type: 'string' }, 'expires-at': { type: 'string' },
      project: { type: 'string' }, minutes: { type: 'string' },
    },
  });
  if (!command || !['migrate', 'create-user', 'create-token', 'create-job-token'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const secrets = loadSecrets(config);
  const database = await openDatabase(config, secrets);
  try {
    const applied = await applyMigrations(database.url);
    if (command === 'migrate') {
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    const { db, pool } = createDb(database.url);
    try {
      if (command === 'create-user') {
        if (!values.username || !values.name || !values.email) throw new Error('--username, --name and --email are required');
        const user = await createUserRecord(db, { username: values.username, name: values.name, email: values.email, password: values.password, admin: values.admin });
        console.log(`created user ${user.username} (id ${user.id})`);
        return 0;
      }
      const user = await db.user.findUnique({ where: { username: values.username ?? '' } });
      if (!user) throw new Error(`no user ${values.username}`);
      if (command === 'create-job-token') {
        console.log(await createJobTokenFor(db, secrets.tokenDigestKey, user.id, values.project, values.minutes));
        return 0;
      }
      const scopes = (values.scopes ?? 'api').split(',').map((s) => s.trim());
      const unknown = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw new Error(`unknown scopes: ${unknown.join(', ')}`);
      const expiresAt = values['expires-at'] ? new Date(`${values['expires-at']}T00:00:00Z`) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new Error('--expires-at must be YYYY-MM-DD');
      const { token } = await issueToken(db, secrets.tokenDigestKey, { userId: user.id, name: values.name ?? 'cli', scopes: scopes as Scope[], expiresAt });
      console.log(token);
      return 0;
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  } finally {
    await database.stop();
  }
}

// Exit explicitly: a library in the migration path resets process.exitCode, which hid failures.
let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`);
  code = 1;
}
process.exit(code);
