import { APP_VERSION } from '../version.ts';
import type { JsonSchema } from './declare.ts';
import { redirect, type Method, type Route } from './route.ts';

/** Where the document is served (under /api/v4), without authentication like GitLab's public API docs. */
export const OPENAPI_PATH = '/openapi.json';

type Operation = Record<string, unknown>;
type PathItem = Partial<Record<Lowercase<Method>, Operation>>;

const WRITES: readonly Method[] = ['POST', 'PUT', 'PATCH'];

const ERRORS: Record<number, string> = {
  400: 'A parameter is missing or invalid, or the change is refused: `{"error": "..."}` or `{"message": ...}`',
  401: 'No valid credential where one is needed',
  403: 'The viewer may not do this, or the token lacks the scope',
  404: 'Not found, or not visible to the viewer',
  409: 'Conflict with the current state (a name taken, a ref moved)',
  422: 'The change cannot be processed',
};

/**
 * Express 5 path → the OpenAPI paths it matches: `:name` and `*name` become `{name}`; each
 * optional group `{...}` gives a path with and one without it. A variant that ends in `/` only
 * (an empty wildcard) is the same endpoint as its parent and is left out.
 */
export function openApiPaths(path: string): string[] {
  const open = path.indexOf('{');
  if (open === -1) return [path.replace(/[:*]([A-Za-z_]\w*)/g, '{$1}')];
  const close = path.indexOf('}', open);
  const before = path.slice(0, open);
  const after = path.slice(close + 1);
  const variants = [...openApiPaths(before + after), ...openApiPaths(before + path.slice(open + 1, close) + after)];
  return variants.filter((p) => p === '/' || !p.endsWith('/'));
}

const pathParamsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** Every parameter of the Express path, including those of optional groups a variant leaves out. */
const routePathParams = (route: Route) => [...route.path.matchAll(/[:*](\w+)/g)].map((m) => m[1]);

function parameters(route: Route, path: string, inBody: boolean) {
  const pathParams = pathParamsOf(path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: route.params[name]?.schema ?? { type: 'string' },
  }));
  const queryParams = inBody
    ? []
    : Object.entries(route.params)
        .filter(([name]) => !routePathParams(route).includes(name))
        .map(([name, spec]) => ({
          name,
          in: 'query',
          required: spec.required,
          schema: spec.schema,
          ...(spec.schema.type === 'object' && { style: 'deepObject', explode: true }),
        }));
  const paging = route.paginated
    ? [
        { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'per_page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      ]
    : [];
  return [...pathParams, ...queryParams, ...paging];
}

function bodySchema(route: Route): JsonSchema | null {
  const entries = Object.entries(route.params).filter(([name]) => !routePathParams(route).includes(name));
  if (!entries.length) return null;
  const required = entries.filter(([, spec]) => spec.required).map(([name]) => name);
  return { type: 'object', properties: Object.fromEntries(entries.map(([name, spec]) => [name, spec.schema])), ...(required.length && { required }) };
}

function successResponse(route: Route, status: number): Operation {
  if (route.respond === redirect) {
    return { description: 'Redirect', headers: { Location: { schema: { type: 'string' } } } };
  }
  if (route.method === 'HEAD') return { description: 'The metadata, as headers only' };
  if (route.respond) return { description: 'The content, written by the route (raw bytes, an archive or a JSON file)' };
  if (status === 204 || !route.result) return { description: 'No content' };
  if (route.paginated) {
    return {
      description: 'One page of the list; the pagination headers give the rest',
      headers: Object.fromEntries(
        ['X-Page', 'X-Per-Page', 'X-Next-Page', 'X-Prev-Page', 'X-Total', 'X-Total-Pages', 'Link'].map((h) => [h, { schema: { type: 'string' } }]),
      ),
      content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
    };
  }
  return { description: 'Success', content: { 'application/json': { schema: {} } } };
}

function errorCodes(route: Route): number[] {
  const hasParams = route.paginated || Object.keys(route.params).length > 0;
  const writes = route.method !== 'GET' && route.method !== 'HEAD';
  return [...(hasParams || writes ? [400] : []), 401, 403, 404, ...(writes ? [409, 422] : [])];
}

function operation(route: Route, path: string, tag: string): Operation {
  const inBody = WRITES.includes(route.method);
  const status = route.respond === redirect ? 302 : (route.status ?? (route.result ? 200 : 204));
  const body = inBody ? bodySchema(route) : null;
  const rules = route.rules.map((r) => r.description);
  const responses: Record<string, unknown> = { [status]: successResponse(route, status) };
  for (const code of errorCodes(route)) {
    responses[code] = { $ref: `#/components/responses/Error${code}` };
  }
  const id = `${route.method.toLowerCase()}${path
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}`;
  return {
    operationId: id,
    summary: route.operation,
    description: [`Runs the GraphQL operation \`${route.operation}\`.`, ...rules].join(' '),
    tags: [tag],
    parameters: parameters(route, path, inBody),
    ...(body && {
      requestBody: {
        required: Array.isArray(body.required),
        content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body }, 'multipart/form-data': { schema: body } },
      },
    }),
    responses,
    security: [{}, { privateToken: [] }, { bearer: [] }, ...(route.jobToken ? [{ jobToken: [] }] : [])],
  };
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route tables and their declared
 * parameters: one operation per route and path variant, tagged with the area it belongs to.
 */
export function openApiDocument(areas: readonly { name: string; routes?: readonly Route[] }[], externalUrl: string) {
  const paths: Record<string, PathItem> = {
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenapiJson',
        summary: 'This document',
        tags: ['meta'],
        security: [{}],
        responses: { 200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  };
  for (const area of areas) {
    for (const route of area.routes ?? []) {
      for (const path of openApiPaths(route.path)) {
        const method = route.method.toLowerCase() as Lowercase<Method>;
        paths[path] ??= {};
        const item = paths[path];
        if (item[method]) throw new Error(`OpenAPI: two routes for ${route.method} ${path}`);
        item[method] = operation(route, path, area.name);
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'forgegate REST API v4',
      version: APP_VERSION,
      description: 'GitLab-compatible REST API. Each route runs a named GraphQL operation of the same server.',
    },
    servers: [{ url: `${externalUrl}/api/v4` }],
    tags: [...new Set(['meta', ...areas.filter((a) => a.routes?.length).map((a) => a.name)])].map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          description: "GitLab's error body: `message` (a string, a list or a field → messages map) or `error`",
          properties: {
            message: {},
            error: { type: 'string' },
            error_description: { type: 'string' },
            scope: { type: 'string' },
          },
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([code, description]) => [
          `Error${code}`,
          { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
      securitySchemes: {
        privateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
        bearer: { type: 'http', scheme: 'bearer' },
        jobToken: { type: 'apiKey', in: 'header', name: 'JOB-TOKEN' },
      },
    },
  };
}
