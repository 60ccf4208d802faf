// Compiles src/ to dist/: `npm start`, `npx forgegate` and the tests that start processes run node on
// plain JavaScript, which starts faster and holds less memory than a TypeScript loader (issue #12).
// Types are not checked here (`npm run typecheck` does that), so a build takes seconds.
//
//   node scripts/build.mjs             build (npm install runs it after the generators)
//   node scripts/build.mjs --if-stale  build only if src/ changed since the last build (npm start)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What the output depends on: the sources, the compiler settings and this script. */
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];
/** Written in dist/ by each build; its mtime is the moment the build read its inputs. */
const STAMP = '.build-stamp';

/**
 * The newest mtime among the inputs, folders included: a folder's mtime changes when a file in it
 * is added, removed or renamed, which changes the output as much as an edit does.
 */
function newestInput(root) {
  let newest = 0;
  const visit = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file)) visit(path.join(file, entry));
  };
  for (const input of INPUTS) visit(path.join(root, input));
  return newest;
}

/** True when dist/ is missing or an input changed after the last build read it (a few ms: stats only). */
export function isStale(root = ROOT) {
  const stamp = fs.statSync(path.join(root, 'dist', STAMP), { throwIfNoEntry: false });
  return !stamp || newestInput(root) > stamp.mtimeMs;
}

/** Every file under src/ that the compiler does not handle (operations.graphql), copied beside the JavaScript. */
function copyAssets(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, path.join(to, entry.name));
    else if (!entry.name.endsWith('.ts')) fs.cpSync(source, path.join(to, entry.name));
  }
}

function compiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('building dist/ needs TypeScript, a dev dependency: install without --omit=dev');
  }
}

/**
 * Builds into a folder of its own, then swaps it in: a failed build leaves the previous dist/ as it
 * was, and a file removed from src/ does not live on in dist/.
 */
export function build(root = ROOT) {
  const tsc = compiler();
  const dist = path.join(root, 'dist');
  const next = `${dist}.${process.pid}.next`;
  fs.rmSync(next, { recursive: true, force: true });
  fs.mkdirSync(next);
  // Stamped before compiling: a file saved while the compiler runs is newer, so the next check rebuilds.
  fs.writeFileSync(path.join(next, STAMP), '');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    fs.rmSync(next, { recursive: true, force: true });
    throw new Error(`building dist/ failed (tsc exited with ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  }
  copyAssets(path.join(root, 'src'), next);
  const previous = `${dist}.${process.pid}.previous`;
  if (fs.existsSync(dist)) fs.renameSync(dist, previous);
  fs.renameSync(next, dist);
  fs.rmSync(previous, { recursive: true, force: true });
}

/** Builds if an input changed since the last build; says so, since it takes a few seconds. */
export function ensureBuilt(root = ROOT) {
  if (!isStale(root)) return;
  console.error('forgegate: sources changed since dist/ was built; building…');
  build(root);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    if (process.argv.includes('--if-stale')) ensureBuilt();
    else build();
  } catch (error) {
    console.error(`forgegate: ${error.message}`);
    process.exit(1);
  }
}
