import {
  execute,
  Kind,
  print,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type FragmentDefinitionNode,
  type ASTNode,
  visit,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Context } from '../core/context.ts';
import { DomainError, ParamError } from '../core/errors.ts';
import { ExecutionRoot } from '../graphql/execution-root.ts';
import { compileOperation, jitLoaded, loadJit, type ExecutionEngine } from '../graphql/jit.ts';
import { checkDocumentSize, checkOperation, checkOperationScopesCached, withDeadline } from '../graphql/operation-checks.ts';

/**
 * The named operations the REST facade runs, each assembled with its fragments and validated
 * against the schema on first use, then executed in-process with the request's context: no HTTP
 * round trip, no re-parsing. Validating all ~300 at start would lengthen every process's start
 * for operations most processes never run (bench/RESULTS.md, "Figures behind the code"); `validateAll` (test/schema.test.ts) keeps
 * a broken document from reaching a commit.
 *
 * Each operation is compiled by graphql-jit on first use (faster than graphql-js, same data:
 * test/rest-jit.test.ts runs REST routes both ways), as /api/graphql's are. The
 * registry's documents share fragment nodes between operations: `compileOperation` compiles a
 * private copy. A skipped field comes back as a key holding `undefined`: shapers treat such keys
 * as absent (JSON drops them). An operation graphql-jit cannot compile runs on graphql-js.
 */
/**
 * An operation set: definitions indexed at start (duplicate and unnamed operations fail there),
 * each operation assembled with its fragments, validated and compiled against one schema on first
 * use, for the same reason: assembling all ~300 at start walks every fragment spread.
 */
type Prepared = {
  operations: Map<string, OperationDefinitionNode>;
  fragments: Map<string, FragmentDefinitionNode>;
  documents: Map<string, DocumentNode>;
  validated: Set<string>;
  compiled: Map<string, CompiledQuery | null>;
};

/**
 * Validating and compiling depend on the schema and the documents only, so every registry built
 * from the same two in one process shares the work (a server builds one; the tests build one per
 * app).
 */
const preparedSets = new WeakMap<GraphQLSchema, WeakMap<DocumentNode[], Prepared>>();

function prepared(schema: GraphQLSchema, documents: DocumentNode[]): Prepared {
  let bySchema = preparedSets.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    preparedSets.set(schema, bySchema);
  }
  let set = bySchema.get(documents);
  if (!set) {
    set = { ...indexed(documents), documents: new Map(), validated: new Set(), compiled: new Map() };
    bySchema.set(documents, set);
  }
  return set;
}

function indexed(documents: DocumentNode[]): Pick<Prepared, 'operations' | 'fragments'> {
  // Fragments are shared across modules (a user fragment serves members, projects, ...).
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations = new Map<string, OperationDefinitionNode>();
  for (const definition of documents.flatMap((d) => d.definitions)) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const name = definition.name?.value;
    if (!name) throw new Error('REST operations must be named');
    if (operations.has(name)) throw new Error(`duplicate REST operation ${name}`);
    operations.set(name, definition);
  }
  return { operations, fragments };
}

/** The operation with the fragments it uses, as a document of its own. */
function assembledOperation(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): DocumentNode {
  const used = new Map<string, FragmentDefinitionNode>();
  const collect = (node: ASTNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (!fragment || used.has(fragment.name.value)) return;
        used.set(fragment.name.value, fragment);
        collect(fragment);
      },
    });
  collect(operation);
  return { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] };
}

export class OperationRegistry {
  private readonly set: Prepared;

  constructor(
    private readonly schema: GraphQLSchema,
    documents: DocumentNode[],
    /** GRAPHQL_TIMEOUT_MS: the same execution limit as /api/graphql. */
    private readonly timeoutMs = 30_000,
    private readonly engine: ExecutionEngine = 'jit',
  ) {
    this.set = prepared(schema, documents);
  }

  /** The operation's document with the fragments it uses, assembled and validated against the schema the first time it is asked for. */
  document(name: string): DocumentNode {
    const { operations, fragments, documents, validated } = this.set;
    const known = documents.get(name);
    if (known && validated.has(name)) return known;
    const operation = operations.get(name);
    if (!operation) throw new Error(`unknown REST operation ${name}`);
    const document = known ?? assembledOperation(operation, fragments);
    documents.set(name, document);
    checkDocumentSize(document);
    const errors = validate(this.schema, document);
    if (errors.length) throw new Error(`operation ${name} is invalid: ${errors.map((e) => e.message).join('; ')}`);
    validated.add(name);
    return document;
  }

  /** Validates every operation now; throws for the first invalid one, naming it. */
  validateAll() {
    for (const name of this.set.operations.keys()) this.document(name);
  }

  /** The compiled form of an operation, or null where graphql-jit cannot compile it (graphql-js runs it). */
  private compiledFor(name: string, document: DocumentNode): CompiledQuery | null {
    if (this.engine !== 'jit') return null;
    let compiled = this.set.compiled.get(name);
    if (compiled !== undefined) return compiled;
    compiled = compileOperation(this.schema, print(document), name);
    this.set.compiled.set(name, compiled);
    return compiled;
  }

  /** Operations graphql-jit could not compile (they run on graphql-js); compiles every operation. */
  async notCompiled(): Promise<string[]> {
    if (this.engine === 'jit') await loadJit();
    return [...this.set.operations.keys()].filter((name) => !this.compiledFor(name, this.document(name)));
  }

  has(name: string) {
    return this.set.operations.has(name);
  }

  /** The credential's scope, expiry and revocation for this operation; throws the first failure. */
  checkCredential(name: string, ctx: Context) {
    checkOperationScopesCached(this.schema, this.document(name), name, ctx.viewer);
  }

  /** Runs an operation and returns its data, or throws the domain error it failed with. */
  async run(name: string, variables: Record<string, unknown>, ctx: Context): Promise<unknown> {
    const document = this.document(name);
    // GitLab's REST answers carry nested lists whole: a connection read without `first` is all of it.
    const root = new ExecutionRoot(true);
    checkOperation(this.schema, document, name, variables, ctx.viewer, root);
    if (this.engine === 'jit' && !jitLoaded()) await loadJit();
    const compiled = this.compiledFor(name, document);
    const execution = compiled
      ? compiled.query(root, ctx, withoutUndefined(variables) as Record<string, unknown>)
      : execute({ schema: this.schema, document, rootValue: root, variableValues: variables, contextValue: ctx, operationName: name });
    const result = (await withDeadline(Promise.resolve(execution), this.timeoutMs)) as ExecutionResult;
    if (result.errors?.length) throw toDomainError(result.errors[0]);
    // A mutation's validation or conflict failure is GitLab's 400/409/422 with its body over REST.
    if (root.payloadFailures.length) throw root.payloadFailures[0];
    return result.data;
  }
}

/**
 * graphql-js takes a variable or input field holding `undefined` as not given; graphql-jit passes
 * it on as null, which services tell apart from "not sent". Plain objects only (dates, buffers and
 * the like are passed as they are).
 */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) copy[key] = withoutUndefined(v);
  }
  return copy;
}

function toDomainError(error: NonNullable<ExecutionResult['errors']>[number]): Error {
  const original = error.originalError;
  if (original instanceof DomainError) return original;
  if (error instanceof DomainError) return error;
  // Errors without a path come from variable coercion, before execution: the request carried a
  // bad value. Name the parameter GitLab's way instead of quoting GraphQL's type system.
  if (!error.path) {
    const variable = /Variable "\$(\w+)"/.exec(error.message)?.[1];
    return new ParamError(variable ? `${variable.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} is invalid` : 'a parameter is invalid');
  }
  return original ?? error;
}
