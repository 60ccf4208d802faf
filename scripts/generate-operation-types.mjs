// Writes src/generated/operations.ts (the REST routes' operation types) after install. Only the
// type checker reads it, so an install without dev dependencies (no codegen CLI) skips it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('@graphql-codegen/cli/package.json');
} catch {
  process.exit(0);
}
const result = spawnSync('npx', ['graphql-codegen', '--config', 'codegen.ts'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
