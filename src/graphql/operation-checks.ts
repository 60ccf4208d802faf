import {
  getNamedType,
  getOperationAST,
  GraphQLError,
  isCompositeType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Scope } from '../auth/scopes.ts';
import { READ_SCOPES, WRITE_SCOPES } from '../auth/scopes.ts';
import { Viewer } from '../auth/viewer.ts';
import type { Context } from '../core/context.ts';
import { DomainError, ParamError, ServiceUnavailableError } from '../core/errors.ts';
import { findUnstorableText } from '../core/input.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { MAX_PAGE_SIZE } from '../core/listing.ts';
import { isConnectionType } from './connections.ts';
import { ExecutionRoot } from './execution-root.ts';
import { collectFields, measureOperations, recurringFields, type Shape } from './selections.ts';

/** GitLab's complexity ceilings (`GitlabSchema`): anonymous, signed-in, administrator. */
export const MAX_COMPLEXITY = { anonymous: 200, authenticated: 250, admin: 300 } as const;

export const maxComplexityFor = (viewer: Viewer) =>
  viewer.isAdmin ? MAX_COMPLEXITY.admin : viewer.user ? MAX_COMPLEXITY.authenticated : MAX_COMPLEXITY.anonymous;

/** A query over its cost ceiling, refused before it runs: graphql-ruby's message. */
export class QueryComplexityError extends DomainError {
  constructor(complexity: number, max: number) {
    const message = `Query has complexity of ${complexity}, which exceeds max complexity of ${max}`;
    super('QUERY_TOO_COMPLEX', 400, { message }, message);
  }
}

/** The operation ran past GRAPHQL_TIMEOUT_MS (GitLab stops queries after 30 s). */
export class QueryTimeoutError extends DomainError {
  constructor() {
    const message = 'Request timed out. Please try a less complex query or a smaller set of records.';
    super('QUERY_TIMEOUT', 503, { message }, message);
  }
}

/**
 * A document refused for its shape, before it runs: 400 whatever the client accepts (Yoga answers
 * validation errors to `application/json` clients with 200, as the GraphQL over HTTP spec has it,
 * unless they say they are not the spec's).
 */
class DocumentRefusal extends DomainError {
  constructor(code: string, message: string) {
    super(code, 400, { message }, message);
    Object.assign(this.extensions, { http: { status: 400, spec: false } });
  }
}

/**
 * How deep GraphQL variables may nest: the default nesting limit of Ruby's JSON parser, which
 * GitLab's request parsing uses. Coercing variables, checking them for NUL bytes and serializing
 * them back in errors all recurse over them.
 */
export const MAX_VARIABLES_DEPTH = 100;

export class VariablesTooDeepError extends DocumentRefusal {
  constructor() {
    super('VARIABLES_TOO_DEEP', `Variables are nested deeper than ${MAX_VARIABLES_DEPTH} levels`);
  }
}

/** Whether objects and arrays nest deeper than `max` in `value`, found without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [inner, depth] = next;
    if (inner === null || typeof inner !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(inner)) pending.push([child, depth + 1]);
  }
  return false;
}

/** GitLab's depth ceilings (`GitlabSchema`): anonymous, signed-in. */
export const MAX_DEPTH = { anonymous: 15, authenticated: 20 } as const;

const maxDepthFor = (viewer: Viewer) => (viewer.user ? MAX_DEPTH.authenticated : MAX_DEPTH.anonymous);

/** graphql-ruby's message for a query nested past the viewer's depth. */
export class QueryDepthError extends DocumentRefusal {
  constructor(depth: number, max: number) {
    const message = `Query has depth of ${depth}, which exceeds max depth of ${max}`;
    super('QUERY_TOO_DEEP', message);
  }
}

/**
 * Selections one operation may hold once its fragments are expanded. GitLab's own frontend
 * documents and the REST operations hold at most a few hundred; a kilobyte of fragments that
 * spread each other twice holds millions, and every walk over it (the checks here, validation,
 * compilation, execution) would take seconds of the event loop.
 */
export const MAX_SELECTIONS = 10_000;

export class QueryTooLargeError extends DocumentRefusal {
  constructor(selections: number) {
    const message = `Query has ${selections} selections once its fragments are expanded, which exceeds max selections of ${MAX_SELECTIONS}`;
    super('QUERY_TOO_LARGE', message);
  }
}

/** A field name repeated down one branch more than this is a cycle being unrolled (GitLab's RecursionAnalyzer). */
export const RECURSION_THRESHOLD = 2;

export class RecursiveQueryError extends DocumentRefusal {
  constructor(fields: Array<[string, number]>) {
    const listed = fields.map(([name, times]) => `"${name}"=>${times}`).join(', ');
    const message = `Recursive query - too many of fields '{${listed}}' detected in single branch of the query`;
    super('QUERY_RECURSIVE', message);
  }
}

type Walk = {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** The operation reads connections without `first`/`last` whole (`withWholeLists`, graphql/connections.ts). */
  wholeLists?: boolean;
};

/** How an operation reads its connections: pages (GitLab's GraphQL), or whole lists where it asks (the REST facade). */
export type Reading = { wholeLists?: boolean };

/**
 * Fields of one selection set with the type they are selected on, fragments inlined (each
 * fragment once per selection set, as graphql-js executes it; see collectFields).
 */
function* fieldsOf(walk: Walk, set: SelectionSetNode, parent: GraphQLCompositeType): Generator<{ node: FieldNode; parent: GraphQLCompositeType }> {
  const collect = { fragment: (name: string) => walk.fragments.get(name), included: (selection: SelectionNode) => included(walk, selection) };
  for (const { field, on } of collectFields(set, collect)) {
    const type = on ? walk.schema.getType(on.name.value) : parent;
    if (type && isCompositeType(type)) yield { node: field, parent: type };
  }
}

function fieldDef(parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  return 'getFields' in parent ? parent.getFields()[name] : undefined;
}

/** The value of an argument, from a literal or a variable (only what the checks need). */
function argValue(walk: Walk, node: ValueNode | undefined): unknown {
  if (!node) return undefined;
  if (node.kind === Kind.VARIABLE) return walk.variables[node.name.value];
  if (node.kind === Kind.INT) return Number(node.value);
  if (node.kind === Kind.BOOLEAN) return node.value;
  if (node.kind === Kind.STRING || node.kind === Kind.ENUM) return node.value;
  return node.kind === Kind.NULL ? null : true;
}

/** `@skip(if: true)` and `@include(if: false)` selections do not run, so they neither cost nor need scopes. */
function included(walk: Walk, selection: SelectionNode): boolean {
  for (const directive of selection.directives ?? []) {
    const condition = argValue(walk, directive.arguments?.find((a) => a.name.value === 'if')?.value);
    if (directive.name.value === 'skip' && condition === true) return false;
    if (directive.name.value === 'include' && condition === false) return false;
  }
  return true;
}

/** Relay plumbing (connections, edges, page info) is part of the field that returned it. */
const isConnectionPlumbing = (type: GraphQLCompositeType) => /(Connection|Edge)$/.test(type.name) || type.name === 'PageInfo';

/**
 * GitLab's query complexity (graphql-ruby with GitLab's field and resolver rules): a field costs 1
 * plus its selections; a connection costs its selections plus 1 (+1 with `sort`, +5 with
 * `search`), multiplied by 1 + n/100 where n is the page it can return (`first`/`last`, at most
 * 100): a connection of 100 doubles what it holds, and nested connections multiply. Introspection
 * is free (bounded by the schema, and GraphiQL needs it). A whole list (`wholeLists`, a connection
 * without `first`/`last`) costs what it holds once: its size is the data's, not the document's,
 * and it is read in the one batch that loads it for every parent, as GitLab's REST answers it.
 */
function selectionComplexity(walk: Walk, set: SelectionSetNode, parent: GraphQLCompositeType): number {
  let total = 0;
  for (const { node, parent: on } of fieldsOf(walk, set, parent)) {
    if (node.name.value.startsWith('__')) continue;
    const def = fieldDef(on, node.name.value);
    if (!def) continue;
    const type = getNamedType(def.type);
    const children = node.selectionSet && isCompositeType(type) ? selectionComplexity(walk, node.selectionSet, type) : 0;
    if (!isCompositeType(type) || !isConnectionType(type)) {
      total += 1 + children;
      continue;
    }
    const arg = (name: string) => argValue(walk, node.arguments?.find((a) => a.name.value === name)?.value);
    const [first, last] = [arg('first'), arg('last')];
    const sizes = [first, last, MAX_PAGE_SIZE].filter((n): n is number => typeof n === 'number' && n >= 0);
    const limit = walk.wholeLists && first == null && last == null ? 0 : Math.min(...sizes);
    const base = children + 1 + (arg('sort') != null ? 1 : 0) + (arg('search') != null ? 5 : 0);
    total += Math.floor(base * (1 + limit / 100));
  }
  return total;
}

function prepare(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  reading: Reading = {},
) {
  const operation = getOperationAST(document, operationName);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // Variables left out take their declared defaults (`$html: Boolean = false`).
  const values: Record<string, unknown> = {};
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (definition.defaultValue) values[name] = argValue({ schema, fragments, variables: {} }, definition.defaultValue);
  }
  for (const [name, value] of Object.entries(variables ?? {})) if (value !== undefined) values[name] = value;
  return { operation, walk: { schema, fragments, variables: values, wholeLists: reading.wholeLists } as Walk };
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode) {
  return operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : schema.getSubscriptionType();
}

/** The complexity of one operation of a document, with its variables, read as `reading` says. */
export function operationComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown>,
  reading: Reading = {},
): number {
  const { operation, walk } = prepare(schema, document, operationName, variables, reading);
  const root = operation && rootType(schema, operation);
  return operation && root ? selectionComplexity(walk, operation.selectionSet, root) : 0;
}

const declaredScopes = (holder: { extensions?: { scopes?: unknown } | null }) => holder.extensions?.scopes as Scope[] | undefined;

/**
 * Every field a query reads needs one of the scopes it accepts: the field's own `scopes`, else
 * its type's, else api/read_api. So a `read_repository` token passes `project → repository →
 * blobs` (declared open to it) but not `project → releases` or `project → projectMembers`, over
 * GraphQL and over the REST routes that run these operations alike. Connection plumbing accepts
 * what its field accepted.
 */
function checkSelectionScopes(walk: Walk, set: SelectionSetNode, parent: GraphQLCompositeType, accepted: readonly Scope[], viewer: Viewer) {
  for (const { node, parent: on } of fieldsOf(walk, set, parent)) {
    if (node.name.value.startsWith('__')) continue;
    const def = fieldDef(on, node.name.value);
    if (!def) continue;
    const scopes = isConnectionPlumbing(on) ? accepted : (declaredScopes(def) ?? declaredScopes(on as never) ?? READ_SCOPES);
    viewer.requireScope(scopes);
    if (def.extensions?.scopesCoverSelection) continue;
    const type = getNamedType(def.type);
    if (node.selectionSet && isCompositeType(type)) checkSelectionScopes(walk, node.selectionSet, type, scopes, viewer);
  }
}

/**
 * Token scopes of an operation. Queries: every field (see checkSelectionScopes). Mutations: each
 * root field needs a scope it declares (api by default); what its payload returns is the
 * mutation's own result and is covered by that stronger scope.
 */
export function checkOperationScopes(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined | null, viewer: Viewer) {
  if (!viewer.token) return;
  const { operation, walk } = prepare(schema, document, operationName, undefined);
  const root = operation && rootType(schema, operation);
  if (!operation || !root) return viewer.requireScope(WRITE_SCOPES);
  if (operation.operation !== 'mutation') checkSelectionScopes(walk, operation.selectionSet, root, READ_SCOPES, viewer);
  else {
    for (const { node } of fieldsOf(walk, operation.selectionSet, root)) {
      if (node.name.value.startsWith('__')) continue;
      const def = fieldDef(root, node.name.value);
      viewer.requireScope((def && declaredScopes(def)) ?? WRITE_SCOPES);
    }
  }
  // An operation that names no scoped field (`{ __typename }`) still needs a usable token.
  viewer.requireUsableCredential();
}

/** NUL bytes in string literals of the document (variables are checked as values). */
function literalWithNul(document: DocumentNode): boolean {
  return /\\u0000|\0/.test(document.loc?.source.body ?? '');
}

/** Variables the checks depend on: page sizes, `sort`, `search` and `@skip`/`@include` conditions. */
function costVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      if (node.value.kind === Kind.VARIABLE && ['first', 'last', 'sort', 'search', 'if'].includes(node.name.value)) names.add(node.value.name.value);
    },
  });
  return [...names].sort();
}

/**
 * Per document (Yoga and the REST registry hand out the same parsed document for the same
 * operation): the variables its cost depends on, its costs by their values, and its scope verdict
 * per token scope set. The walks then run once per distinct case, not once per request.
 */
type DocumentChecks = {
  shapes: Map<OperationDefinitionNode, Shape>;
  costVariables: string[];
  nulLiteral: boolean;
  costs: Map<string, number>;
  scopes: Map<string, Error | null>;
};
const checked = new WeakMap<DocumentNode, DocumentChecks>();
const CACHE_ENTRIES = 256;

function checksOf(document: DocumentNode): DocumentChecks {
  let entry = checked.get(document);
  if (!entry) {
    entry = {
      shapes: measureOperations(document),
      costVariables: costVariables(document),
      nulLiteral: literalWithNul(document),
      costs: new Map(),
      scopes: new Map(),
    };
    checked.set(document, entry);
  }
  return entry;
}

function remember<V>(cache: Map<string, V>, key: string, compute: () => V): V {
  if (cache.has(key)) return cache.get(key)!;
  const value = compute();
  if (cache.size >= CACHE_ENTRIES) cache.clear();
  cache.set(key, value);
  return value;
}

/**
 * `checkOperationScopes`, remembered per document and token scope set. Only the scope verdict is
 * remembered: whether this token is expired or revoked is asked of the viewer every time, after
 * the scopes (GitLab's order).
 */
export function checkOperationScopesCached(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, viewer: Viewer) {
  if (!viewer.token) return;
  const scopes = viewer.token.scopes as Scope[];
  const key = `${operationName ?? ''}\n${[...scopes].sort().join(' ')}`;
  const error = remember(checksOf(document).scopes, key, () => {
    // The same scopes without the credential's own problems.
    const scopesOnly = new Viewer(viewer.user, viewer.token, viewer.sudoer, viewer.job);
    try {
      checkOperationScopes(schema, document, operationName, scopesOnly);
      return null;
    } catch (e) {
      return e as Error;
    }
  });
  if (error) throw error;
  viewer.requireUsableCredential();
}

function cachedComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  reading: Reading,
) {
  const entry = checksOf(document);
  const key = JSON.stringify([operationName ?? '', reading.wholeLists === true, ...entry.costVariables.map((name) => variables?.[name] ?? null)]);
  return remember(entry.costs, key, () => operationComplexity(schema, document, operationName, variables, reading));
}

/**
 * A document's size, checked before it is validated or walked (for /api/graphql and the REST
 * facade alike): no operation may hold more than MAX_SELECTIONS once its fragments are expanded.
 * Measured once per document.
 */
export function checkDocumentSize(document: DocumentNode) {
  for (const shape of checksOf(document).shapes.values()) if (shape.selections > MAX_SELECTIONS) throw new QueryTooLargeError(shape.selections);
}

/**
 * The operation nests its fields no deeper than the viewer may ask (GitLab counts introspection
 * too), and repeats no field down one branch past GitLab's threshold.
 */
function checkNesting(document: DocumentNode, operationName: string | null | undefined, viewer: Viewer) {
  const operation = getOperationAST(document, operationName);
  const shape = operation && checksOf(document).shapes.get(operation);
  if (!operation || !shape) return;
  const max = maxDepthFor(viewer);
  if (shape.depth > max) throw new QueryDepthError(shape.depth, max);
  const recurring = [...recurringFields(document, operation)].filter(([, times]) => times > RECURSION_THRESHOLD);
  if (recurring.length) throw new RecursiveQueryError(recurring);
}

/**
 * Everything checked before an operation runs, for /api/graphql and the REST facade alike: the
 * document's size, scopes, depth and recursion, no NUL byte or unpaired surrogate in any text, and
 * the complexity ceiling of the viewer, for the operation read as `reading` says.
 */
export function checkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  viewer: Viewer,
  reading: Reading = {},
) {
  checkDocumentSize(document);
  checkOperationScopesCached(schema, document, operationName, viewer);
  checkNesting(document, operationName, viewer);
  const text = findUnstorableText(variables ?? {});
  if (text || checksOf(document).nulLiteral) throw new ParamError(text ? `$${text.name} ${text.problem}` : 'the query contains a null byte');
  const complexity = cachedComplexity(schema, document, operationName, variables, reading);
  const max = maxComplexityFor(viewer);
  if (complexity > max) throw new QueryComplexityError(complexity, max);
}

/** Reports machine-readable codes of payload errors in `extensions.payloadErrors`. */
export const describePayloadErrors = (errors: DomainError[]) => errors.map((e) => ({ code: e.code, status: e.status, message: e.message, body: e.body }));

/** Runs `work` but answers `QueryTimeoutError` if it has not settled within `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryTimeoutError()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

type ErrorLike = GraphQLError & { originalError?: unknown };

/**
 * The operation checks for /api/graphql, plus what happens after: a database that is down turns
 * the answer into 503 with Retry-After (never a masked 500), unexpected errors are logged with the
 * request id (Yoga masks them for the client), payload errors are reported with their codes.
 */
export function operationChecksPlugin(schema: GraphQLSchema, timeoutMs: number): Plugin<Context> {
  return {
    // Before anything reads the variables: coercing them recurses.
    onParams({ params, setResult }) {
      if (nestsDeeperThan(params.variables, MAX_VARIABLES_DEPTH)) setResult({ errors: [new VariablesTooDeepError()] });
    },
    // Before graphql-js validates it: validation walks what the size check bounds.
    onValidate({ params, setResult }) {
      try {
        checkDocumentSize(params.documentAST);
      } catch (error) {
        setResult([error as DomainError]);
      }
    },
    onExecute({ args, setResultAndStopExecution, executeFn, setExecuteFn }) {
      const ctx = args.contextValue as Context;
      const root = new ExecutionRoot(false);
      try {
        checkOperation(schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | undefined, ctx.viewer, root);
      } catch (error) {
        const failure = error as DomainError;
        // An expired or revoked token is a 401 over GraphQL too, like an unknown one.
        setResultAndStopExecution({ errors: [failure], ...(failure.status === 401 && { extensions: { http: { status: 401 } } }) });
        return;
      }
      setExecuteFn(
        (executeArgs) =>
          withDeadline(Promise.resolve(executeFn({ ...executeArgs, rootValue: root })), timeoutMs).catch((error: unknown) => {
            if (error instanceof QueryTimeoutError) return { errors: [error] };
            throw error;
          }) as never,
      );
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result || 'data' in result)) return;
          const errors = (result.errors ?? []) as ErrorLike[];
          if (errors.some((e) => isDatabaseUnavailable(e.originalError ?? e))) {
            ctx.deps.log.warn({ requestId: ctx.requestId }, 'database unavailable');
            setResult({ errors: [new ServiceUnavailableError()] });
            return;
          }
          for (const error of errors) {
            if (error.originalError && !(error.originalError instanceof GraphQLError)) {
              ctx.deps.log.error({ err: error.originalError, requestId: ctx.requestId, path: error.path }, 'unhandled GraphQL error');
            }
          }
          if (!root.payloadFailures.length || !('data' in result)) return;
          setResult({ ...result, extensions: { ...result.extensions, payloadErrors: describePayloadErrors(root.payloadFailures) } });
        },
      };
    },
    onExecutionResult({ result, setResult, context }) {
      if (!result || Symbol.asyncIterator in result || !result.errors?.some((error) => !isAnswerable(error))) return;
      const ctx = (context as unknown as { req: { forgegate?: Context; requestId?: string } }).req;
      const log = ctx.forgegate?.deps.log;
      const errors = result.errors.map((error) => answerable(error, (err) => log?.error({ err, requestId: ctx.requestId }, 'unhandled GraphQL error')));
      setResult({ ...result, errors });
    },
  };
}

const isAnswerable = (error: unknown) => error instanceof GraphQLError && error.message !== '';

/** Yoga's wording for an error it masks. */
const UNEXPECTED = 'Unexpected error.';

/**
 * An error as clients may read it. Yoga masks what a resolver throws (logged with the request id
 * in onExecuteDone), but an error handed to it as a result rather than thrown, or one without a
 * message, would be answered as `{}`: it is logged here and answered with Yoga's message and 500.
 */
function answerable(error: GraphQLError, logUnexpected: (err: unknown) => void): GraphQLError {
  if (isAnswerable(error)) return error;
  logUnexpected(error);
  return new GraphQLError(UNEXPECTED, { extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } } });
}
