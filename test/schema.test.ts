import fs from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationDocuments, restRoutes, schema, webRoutes } from '../src/kernel.ts';
import { OperationRegistry } from '../src/rest/operations.ts';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after a change)', () => {
    expect(`${printSchema(schema)}\n`).toBe(fs.readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
  });

  it('validates every REST operation and gives every route one', () => {
    const registry = new OperationRegistry(schema, operationDocuments);
    for (const route of [...restRoutes, ...webRoutes]) expect(registry.has(route.operation), `${route.method} ${route.path}`).toBe(true);
  });
});
