// npm run db:new-migration -- <name>: diffs the schema in prisma/schema/ against the migration history
// and writes prisma/migrations/<timestamp>_<name>/migration.sql. Uses DATABASE_URL, or the
// embedded PostgreSQL in DATA_DIR, for the shadow database the diff needs.
import { loadConfig } from '../src/config.ts';
import { loadSecrets } from '../src/secrets.ts';
import { openDatabase } from '../src/db/database.ts';
import { createMigration } from '../src/db/migrate.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:new-migration -- <snake_case_name>');
  process.exit(2);
}
const config = loadConfig();
const database = await openDatabase(config, loadSecrets(config));
try {
  const created = await createMigration(database.url, name);
  console.log(created ? `created prisma/migrations/${created}` : 'schema unchanged: no migration created');
} finally {
  await database.stop();
}
