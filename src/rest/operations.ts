import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  execute,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type FragmentDefinitionNode,
  type ASTNode,
  visit,
} from 'graphql';
import type { Context } from '../graphql/context.ts';
import { DomainError, ParamError } from '../graphql/errors.ts';
import { checkOperationScopes } from '../graphql/operation-checks.ts';

const modulesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../modules');

/** Every `src/modules/<area>/operations.graphql`, parsed once. */
export function loadOperationDocuments(dir = modulesDir): DocumentNode[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'operations.graphql')))
    .map((d) => parse(fs.readFileSync(path.join(dir, d.name, 'operations.graphql'), 'utf8')));
}

/**
 * The named operations the REST facade runs, parsed and validated against the schema at start,
 * then executed in-process with the request's context: no HTTP round trip, no re-parsing.
 */
export class OperationRegistry {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    documents: DocumentNode[] = loadOperationDocuments(),
  ) {
    // Fragments are shared across modules (a user fragment serves members, projects, ...).
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of documents.flatMap((d) => d.definitions)) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    for (const definition of documents.flatMap((d) => d.definitions)) {
      if (definition.kind === Kind.OPERATION_DEFINITION) this.register(definition, fragments);
    }
  }

  private register(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>) {
    const name = operation.name?.value;
    if (!name) throw new Error('REST operations must be named');
    if (this.documents.has(name)) throw new Error(`duplicate REST operation ${name}`);
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
    const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] };
    const errors = validate(this.schema, single);
    if (errors.length) throw new Error(`operation ${name} is invalid: ${errors.map((e) => e.message).join('; ')}`);
    this.documents.set(name, single);
  }

  has(name: string) {
    return this.documents.has(name);
  }

  operation(name: string): OperationDefinitionNode {
    return this.documents.get(name)!.definitions[0] as OperationDefinitionNode;
  }

  /** Runs an operation and returns its data, or throws the domain error it failed with. */
  async run(name: string, variables: Record<string, unknown>, ctx: Context): Promise<any> {
    const document = this.documents.get(name);
    if (!document) throw new Error(`unknown REST operation ${name}`);
    checkOperationScopes(this.schema, document, name, ctx.viewer);
    const result = (await execute({
      schema: this.schema,
      document,
      variableValues: variables,
      contextValue: ctx,
      operationName: name,
    })) as ExecutionResult;
    if (result.errors?.length) throw toDomainError(result.errors[0]);
    if (ctx.payloadErrors.length) throw ctx.payloadErrors[0];
    return result.data;
  }
}

function toDomainError(error: NonNullable<ExecutionResult['errors']>[number]): Error {
  const original = error.originalError;
  if (original instanceof DomainError) return original;
  if (error instanceof DomainError) return error;
  // Errors without a path come from variable coercion, before execution: the request carried a bad value.
  if (!error.path) return new ParamError(error.message);
  return original ?? error;
}
