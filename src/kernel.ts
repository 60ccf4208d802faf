// Reads the module manifest once and hands each engine its part: the REST route tables and
// operation documents, the GraphQL schema, per-request loaders and event listeners. This is the
// one place outside src/modules that knows the areas exist.
import fs from 'node:fs';
import { parse, type DocumentNode } from 'graphql';
import type { Subscribers } from './core/events.ts';
import type { LoaderFactories } from './core/loaders.ts';
import type { JobDefinitions } from './jobs/definitions.ts';
import { buildSchema } from './graphql/schema.ts';
import { modules } from './modules/index.ts';

const names = new Set<string>();
for (const m of modules) {
  if (names.has(m.name)) throw new Error(`module ${m.name} is registered twice`);
  names.add(m.name);
}

export const schema = buildSchema();

export const restRoutes = modules.flatMap((m) => m.routes ?? []);

/** The REST routes of each area, under its name (the OpenAPI document's tags). */
export const restAreas = modules.map((m) => ({ name: m.name, routes: m.routes ?? [] }));

export const webRoutes = modules.flatMap((m) => m.webRoutes ?? []);

export const machineEndpoints = modules.flatMap((m) => (m.machineEndpoints ? [m.machineEndpoints] : []));

/** Every area's `operations.graphql`, parsed once. */
export const operationDocuments: DocumentNode[] = modules.flatMap((m) => (m.operations ? [parse(fs.readFileSync(m.operations, 'utf8'))] : []));

export const loaderFactories: LoaderFactories = Object.assign({}, ...modules.map((m) => m.loaders ?? {}));

export const subscribers: Subscribers = {};
for (const m of modules) {
  for (const [event, list] of Object.entries(m.subscribers ?? {}) as [keyof Subscribers, NonNullable<Subscribers[keyof Subscribers]>][]) {
    subscribers[event] ??= [];
    subscribers[event].push(...(list as never[]));
  }
}

/** Each area's job queues and handlers (registered, and their queues created, at start). */
export const jobDefinitions: JobDefinitions[] = modules.flatMap((m) => (m.jobs ? [m.jobs] : []));
