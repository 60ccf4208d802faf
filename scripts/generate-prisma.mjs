// Runs `prisma generate` offline: the CLI wants a native schema engine it cannot download here,
// and generation never uses it, so a no-op binary stands in (see shared notes/stack.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// The schema is one file per area under prisma/schema/ (Prisma's multi-file schema).
if (!existsSync('prisma/schema')) process.exit(0);
const result = spawnSync('npx', ['prisma', 'generate', '--schema', 'prisma/schema'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
process.exit(result.status ?? 1);
