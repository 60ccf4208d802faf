import fs from 'node:fs';
import { parse, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationDocuments, restRoutes, schema, webRoutes } from '../src/kernel.ts';
import { OperationRegistry } from '../src/rest/operations.ts';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after a change)', () => {
    expect(`${printSchema(schema)}\n`).toBe(fs.readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
  });

  it('validates every REST operation and gives every route one', () => {
    const registry = new OperationRegistry(schema, operationDocuments);
    // Processes validate an operation on its first use; this is where a broken document is caught.
    expect(() => registry.validateAll()).not.toThrow();
    for (const route of [...restRoutes, ...webRoutes]) expect(registry.has(route.operation), `${route.method} ${route.path}`).toBe(true);
  });

  it('refuses an invalid operation on its first use and when all are validated, naming it', async () => {
    const broken = [...operationDocuments, parse('query BrokenOnPurpose { project(fullPath: "a") { noSuchField } }')];
    expect(() => new OperationRegistry(schema, broken).validateAll()).toThrow(/operation BrokenOnPurpose is invalid: Cannot query field "noSuchField"/);
    await expect(new OperationRegistry(schema, broken).run('BrokenOnPurpose', {}, {} as never)).rejects.toThrow(/operation BrokenOnPurpose is invalid/);
  });
});
