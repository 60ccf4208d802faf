import fs from 'node:fs';
import { type GraphQLScalarType, parse, printSchema } from 'graphql';
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

  it('answers Time as ISO 8601 text, the bytes JSON wrote for the Date, and still refuses an invalid Date', () => {
    const time = schema.getType('Time') as GraphQLScalarType;
    for (const date of [new Date(Date.UTC(2021, 2, 9, 14, 58, 50, 7)), new Date(Date.UTC(1, 0, 1)), new Date(8.64e15)]) {
      const answered = time.serialize(date);
      // A string, not the Date: JSON.stringify then writes it without calling back into toJSON.
      expect(typeof answered).toBe('string');
      expect(JSON.stringify({ at: answered })).toBe(JSON.stringify({ at: date }));
    }
    expect(time.serialize('2021-03-09T14:58:50Z')).toBe('2021-03-09T14:58:50.000Z');
    expect(() => time.serialize(new Date(Number.NaN))).toThrow(/invalid Date/);
    // Calendar dates were already text.
    expect((schema.getType('Date') as GraphQLScalarType).serialize(new Date(Date.UTC(2021, 2, 9)))).toBe('2021-03-09');
  });
});
