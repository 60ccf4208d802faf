#!/usr/bin/env node
// Runs the compiled CLI (dist/bundle/, see scripts/build.mjs), rebuilt first if src/ changed since.
import { ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
const { runCli } = await import('../dist/bundle/cli.js');
// Exit explicitly: a library in the migration path resets process.exitCode, which hid failures.
process.exit(await runCli(process.argv.slice(2)));
