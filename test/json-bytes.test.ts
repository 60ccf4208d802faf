// Answers are written by jsonBytes a piece at a time: the bytes must be JSON.stringify's, encoded
// as UTF-8, for every kind of value JSON.stringify treats in its own way.
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../src/http/json-bytes.ts';
import { createTestApp, seedProject } from './helpers/app.ts';
import { prng as random } from './helpers/random.ts';

const stringified = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
};

const LEAVES: unknown[] = [
  null,
  undefined,
  true,
  false,
  0,
  -0,
  1.5,
  NaN,
  Infinity,
  'plain',
  '',
  'é ü ß',
  '日本語',
  '🚀 emoji',
  '\ud800 lone',
  'quote " back \\ nl \n',
  '\u2028\u2029',
  new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
  new Date(NaN),
  () => 1,
  Symbol('s'),
  { toJSON: () => 'custom' },
  { toJSON: () => undefined },
  new String('boxed'),
  new Number(3),
  Object.assign(Object.create(null), { bare: 1 }),
  new Map([[1, 2]]),
  Buffer.from('hi'),
  Object.assign([1, 2], { toJSON: () => 'array with toJSON' }),
];

function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.4) return LEAVES[Math.floor(next() * LEAVES.length)];
  // Up to 7 keys: objects written whole and envelopes walked key by key (4 keys or fewer).
  const length = Math.floor(next() * 8);
  if (pick < 0.7) return Array.from({ length }, () => value(next, depth + 1));
  return Object.fromEntries(Array.from({ length }, (_, i) => [next() < 0.2 ? `${i}` : `k${i}é`, value(next, depth + 1)]));
}

describe('jsonBytes', () => {
  it("writes JSON.stringify's bytes for every kind of value, at any depth", () => {
    for (const leaf of LEAVES) {
      expect(jsonBytes(leaf), String(typeof leaf)).toEqual(stringified(leaf));
      expect(jsonBytes([leaf, { leaf, other: 1 }])).toEqual(stringified([leaf, { leaf, other: 1 }]));
      expect(jsonBytes({ first: leaf })).toEqual(stringified({ first: leaf }));
    }
    for (let seed = 1; seed <= 500; seed++) {
      const generated = { data: value(random(seed), 0), list: [value(random(seed + 1000), 1)] };
      expect(jsonBytes(generated), `seed ${seed}`).toEqual(stringified(generated));
    }
    // Answers as large as a page of releases, where the pieces matter.
    const page = Array.from({ length: 300 }, (_, i) => ({
      name: `release ${i} ✓`,
      url: `https://example.com/${i}`.repeat(40),
      at: new Date(i * 1e9),
      gone: undefined,
    }));
    expect(jsonBytes({ data: { nodes: page } })).toEqual(stringified({ data: { nodes: page } }));
    expect(jsonBytes(page)!.length).toBeGreaterThan(200_000);
    expect(() => jsonBytes({ n: 1n })).toThrow(TypeError);
  });

  it('serves REST and GraphQL answers with text beyond ASCII, byte for byte', async () => {
    const t = await createTestApp();
    try {
      const { project } = await seedProject(t);
      const description = 'Zürich → 東京 🚀 "quoted" \u2028';
      await t.api('post', `/projects/${project.id}/releases`).send({ tag_name: 'v1', ref: 'main', name: 'Ünïcode', description }).expect(201);
      const rest = await t.api('get', `/projects/${project.id}/releases`).expect(200);
      expect(rest.headers['content-type']).toBe('application/json');
      expect(Number(rest.headers['content-length'])).toBe(Buffer.byteLength(rest.text));
      expect(rest.body[0]).toMatchObject({ name: 'Ünïcode', description });
      const gql = await t.graphql(`{ project(fullPath: "${project.path_with_namespace}") { releases { nodes { name description } } } }`);
      expect(gql.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(gql.headers['content-length'])).toBe(Buffer.byteLength(gql.text));
      expect(gql.text).toBe(JSON.stringify({ data: { project: { releases: { nodes: [{ name: 'Ünïcode', description }] } } } }));
    } finally {
      await t.close();
    }
  });
});
