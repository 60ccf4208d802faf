import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../src/kernel.ts';
import { openApiPaths } from '../src/rest/openapi.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

type Doc = {
  components: { schemas: Record<string, unknown> };
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
        requestBody?: { content: Record<string, { schema: { required?: string[]; properties: Record<string, unknown> } }> };
        responses: Record<string, unknown>;
      }
    >
  >;
};

type Spec = Parameters<Validator['validate']>[0];

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  // No credential at all, and a bad one: GitLab serves its API documentation to everyone.
  doc = (
    await t
      .api('get', '/openapi.json', null)
      .expect(200)
      .expect('Content-Type', /application\/json/)
  ).body;
  await t.api('get', '/openapi.json', 'not-a-token').expect(200);
});
afterAll(() => t.close());

/** Every schema object in the document, where JSON Schema lives in OpenAPI 3.1. */
function schemasOf(node: unknown, found: unknown[] = []): unknown[] {
  if (!node || typeof node !== 'object') return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema') found.push(value);
    else schemasOf(value, found);
  }
  return found;
}

describe('OpenAPI document', () => {
  it('validates against the OpenAPI 3.1 schema, and the validator rejects a broken copy', async () => {
    const result = await new Validator().validate(structuredClone(doc) as Spec);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
    // Positive control: the same document with one parameter in Swagger 2's `body` location must fail.
    const broken = structuredClone(doc);
    broken.paths['/projects/{id}/releases'].get.parameters[0].in = 'body';
    expect((await new Validator().validate(broken as Spec)).valid).toBe(false);
  });

  it('has only parameter and body schemas that compile as strict JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
    const schemas = schemasOf(doc.paths).filter((s) => !Object.hasOwn(s as object, '$ref'));
    expect(schemas.length).toBeGreaterThan(200);
    schemas.push(...Object.values(doc.components.schemas));
    // Most routes share their parameters' schemas (an id, a page): each distinct one compiles once.
    const distinct = new Set(schemas.map((schema) => JSON.stringify(schema)));
    for (const schema of distinct) expect(() => ajv.compile(JSON.parse(schema)), schema).not.toThrow();
    // Positive control: a misspelt type does not compile.
    expect(() => ajv.compile({ type: 'integr' })).toThrow();
  });

  it('describes every REST route, each path variant under its method', () => {
    expect(restRoutes.length).toBeGreaterThan(60);
    for (const route of restRoutes) {
      const variants = openApiPaths(route.path);
      expect(variants.length, route.path).toBeGreaterThan(0);
      for (const path of variants) expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(operations.length).toBe(restRoutes.reduce((n, r) => n + openApiPaths(r.path).length, 0) + 1);
  });

  it('turns Express paths into OpenAPI paths', () => {
    expect(openApiPaths('/projects/:id/releases/:tag_name')).toEqual(['/projects/{id}/releases/{tag_name}']);
    expect(openApiPaths('/projects/:id/repository/archive{.:format}')).toEqual([
      '/projects/{id}/repository/archive',
      '/projects/{id}/repository/archive.{format}',
    ]);
    expect(openApiPaths('/projects/:id/releases/permalink/latest/{*suffix_path}')).toEqual(['/projects/{id}/releases/permalink/latest/{suffix_path}']);
  });

  it('carries the declared parameters: types, enums, defaults, required flags, nesting', () => {
    const list = doc.paths['/projects/{id}/releases'].get;
    const byName = Object.fromEntries(list.parameters.map((p) => [p.name, p]));
    expect(byName.id).toMatchObject({ in: 'path', required: true });
    expect(byName.order_by).toEqual({
      name: 'order_by',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['released_at', 'created_at'], default: 'released_at' },
    });
    expect(byName.updated_before.schema).toEqual({ type: 'string', format: 'date-time' });
    expect(byName.include_html_description.schema).toEqual({ type: 'boolean', default: false });
    expect(byName.per_page.schema).toMatchObject({ type: 'integer', maximum: 100 });
    expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '404']);

    const create = doc.paths['/projects/{id}/releases'].post;
    const body = create.requestBody!.content['application/json'].schema;
    expect(body.required).toEqual(['tag_name']);
    expect(body.properties.assets).toEqual({
      type: 'object',
      properties: {
        links: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              url: { type: 'string' },
              direct_asset_path: { type: 'string' },
              filepath: { type: 'string' },
              link_type: { type: 'string', enum: ['other', 'runbook', 'image', 'package'] },
            },
            required: ['name', 'url'],
          },
        },
      },
    });
    expect(Object.keys(create.responses)).toContain('201');
    expect(create.parameters.map((p) => p.name)).toEqual(['id']);

    const member = doc.paths['/groups/{id}/members'].post.requestBody!.content['application/x-www-form-urlencoded'].schema;
    // The level whitelist is the members service's rule (GraphQL obeys it too); the route only documents it.
    expect(member.properties.access_level).toEqual({ type: 'integer', enum: [5, 10, 20, 30, 40, 50] });
    expect(Object.keys(doc.paths['/projects/{id}/repository/branches/{branch}'].delete.responses)).toContain('204');
    expect(Object.keys(doc.paths['/projects/{id}/releases/permalink/latest'].get.responses)).toContain('302');
    // Forms come JSON, urlencoded or multipart; CI job tokens are documented where they are accepted.
    expect(Object.keys(doc.paths['/groups/{id}/members'].post.requestBody!.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    const security = (path: string, method: string) => (doc.paths[path][method] as unknown as { security: object[] }).security;
    expect(security('/projects/{id}/releases', 'post')).toContainEqual({ jobToken: [] });
    expect(security('/projects/{id}/repository/files/{file_path}/raw', 'get')).toContainEqual({ jobToken: [] });
    expect(security('/projects/{id}/members', 'get')).not.toContainEqual({ jobToken: [] });
  });
});
