import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The module graph the architecture promises (docs/architecture.md): an area depends on another
// only through its index.ts, service.ts and entity.ts (never its rest.ts or schema.ts), areas never
// import each other in a circle, and the shared infrastructure imports no area.

const SRC = path.resolve(import.meta.dirname, '../src');
const MODULES = path.join(SRC, 'modules');
const INFRASTRUCTURE = ['core', 'auth', 'db', 'git', 'graphql', 'rest', 'http', 'jobs', 'flags', 'mail'];

/** One import of one file: both ends relative to src/ (`modules/releases/rest.ts`). */
type Import = { from: string; to: string };
type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import of a file (static, `export … from`, `import type` and dynamic `import()`). */
function importsOf(file: string): Import[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .map(({ fileName }) => ({ from: path.relative(SRC, file), to: path.relative(SRC, path.resolve(path.dirname(file), fileName)) }));
}

/** The area a file belongs to: its folder under src/modules (the manifest and module.ts belong to none). */
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1] ?? null;

const crossModule = (imports: Import[]) =>
  imports.filter(({ from, to }) => moduleOf(from) !== null && moduleOf(to) !== null && moduleOf(from) !== moduleOf(to));

/** An edge A → B for each area A with a file importing a file of area B. */
function moduleGraph(imports: Import[]): Graph {
  const graph: Graph = new Map();
  for (const { from, to } of crossModule(imports)) {
    const edges = graph.get(moduleOf(from)!) ?? new Set<string>();
    graph.set(moduleOf(from)!, edges.add(moduleOf(to)!));
  }
  return graph;
}

/** The first cycle a depth-first walk meets, as `[a, b, …, a]`, or null when the graph has none. */
function findCycle(graph: Graph): string[] | null {
  const done = new Set<string>();
  const walk = (node: string, trail: string[]): string[] | null => {
    const seen = trail.indexOf(node);
    if (seen >= 0) return [...trail.slice(seen), node];
    if (done.has(node)) return null;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const cycle = walk(next, [...trail, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = walk(node, []);
    if (cycle) return cycle;
  }
  return null;
}

/** Imports of another area's transport or schema internals (`rest.ts`, `schema.ts`). */
const intoInternals = (imports: Import[]) => crossModule(imports).filter(({ to }) => /\/(rest|schema)\.ts$/.test(to));

const fromInfrastructure = (imports: Import[]) => imports.filter(({ from, to }) => INFRASTRUCTURE.includes(from.split('/')[0]!) && to.startsWith('modules/'));

const render = (imports: Import[]) => imports.map(({ from, to }) => `${from} -> ${to}`);

const folders = ['modules', ...INFRASTRUCTURE].map((folder) => path.join(SRC, folder));
const imports = folders.flatMap(sourceFiles).flatMap(importsOf);
const graph = moduleGraph(imports);

describe('module graph', () => {
  it('reads the imports of every area (the edges the checks below rely on are there)', () => {
    expect(graph.size).toBeGreaterThan(20);
    expect([...graph.get('release-links')!]).toContain('releases');
    expect([...graph.get('tags')!]).toContain('commits');
    expect(importsOf(path.join(MODULES, 'releases/rest.ts')).map(({ to }) => to)).toContain('modules/commits/entity.ts');
  });

  it('finds a cycle in a graph that has one, and none in one that has none (the finder works)', () => {
    const cyclic: Graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(findCycle(cyclic)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['x', new Set(['x'])]]))).toEqual(['x', 'x']);
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b', 'c'])],
          ['b', new Set(['c'])],
        ]),
      ),
    ).toBeNull();
    const pair = moduleGraph([
      { from: 'modules/releases/rest.ts', to: 'modules/release-links/entity.ts' },
      { from: 'modules/release-links/service.ts', to: 'modules/releases/service.ts' },
    ]);
    expect(findCycle(pair)).toEqual(['release-links', 'releases', 'release-links']);
  });

  it('has no cycle between areas', () => {
    expect(findCycle(graph)?.join(' -> ') ?? null).toBeNull();
  });

  it("flags an import of another area's rest.ts or schema.ts, and not of its index, service or entity", () => {
    const samples: Import[] = [
      { from: 'modules/tags/rest.ts', to: 'modules/commits/rest.ts' },
      { from: 'modules/tags/schema.ts', to: 'modules/projects/schema.ts' },
      { from: 'modules/tags/rest.ts', to: 'modules/commits/entity.ts' },
      { from: 'modules/tags/schema.ts', to: 'modules/commits/index.ts' },
      { from: 'modules/tags/service.ts', to: 'modules/commits/service.ts' },
      { from: 'modules/tags/index.ts', to: 'modules/tags/rest.ts' },
    ];
    expect(render(intoInternals(samples))).toEqual(['modules/tags/rest.ts -> modules/commits/rest.ts', 'modules/tags/schema.ts -> modules/projects/schema.ts']);
  });

  it("has no area importing another area's rest.ts or schema.ts", () => {
    expect(render(intoInternals(imports))).toEqual([]);
  });

  it('has no shared infrastructure folder importing an area', () => {
    expect(render(fromInfrastructure([{ from: 'rest/route.ts', to: 'modules/tags/rest.ts' }]))).toEqual(['rest/route.ts -> modules/tags/rest.ts']);
    expect(render(fromInfrastructure(imports))).toEqual([]);
  });
});
