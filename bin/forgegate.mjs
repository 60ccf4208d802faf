#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli.ts');
// Exit explicitly: a library in the migration path resets process.exitCode, which hid failures.
process.exit(await runCli(process.argv.slice(2)));
