import { getOperationAST, Kind, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Scope } from '../auth/scopes.ts';
import { READ_SCOPES, WRITE_SCOPES } from '../auth/scopes.ts';
import type { Viewer } from '../auth/viewer.ts';
import type { Context } from './context.ts';
import type { DomainError } from './errors.ts';

function rootFieldNames(selectionSet: SelectionSetNode, document: DocumentNode, out = new Set<string>()) {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) out.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) rootFieldNames(selection.selectionSet, document, out);
    else {
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) rootFieldNames(fragment.selectionSet, document, out);
    }
  }
  return out;
}

/**
 * Token scopes per operation: each root field needs one of the scopes it declares
 * (`extensions.scopes`), by default api/read_api for queries and api for mutations. Runs for
 * /api/graphql and for the REST facade alike, so `read_api` tokens can read but never write.
 */
export function checkOperationScopes(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined | null, viewer: Viewer) {
  const operation = getOperationAST(document, operationName);
  if (!operation || !viewer.token) return;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : null;
  if (!root) return viewer.requireScope(WRITE_SCOPES);
  const defaults = operation.operation === 'query' ? READ_SCOPES : WRITE_SCOPES;
  const fields = root.getFields();
  for (const name of rootFieldNames(operation.selectionSet, document)) {
    if (name.startsWith('__')) continue;
    viewer.requireScope((fields[name]?.extensions?.scopes as Scope[] | undefined) ?? defaults);
  }
}

/** Reports machine-readable codes of payload errors in `extensions.payloadErrors`. */
export const describePayloadErrors = (errors: DomainError[]) =>
  errors.map((e) => ({ code: e.code, status: e.status, message: e.message, body: e.body }));

export function operationChecksPlugin(schema: GraphQLSchema): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as Context;
      try {
        checkOperationScopes(schema, args.document, args.operationName, ctx.viewer);
      } catch (error) {
        setResultAndStopExecution({ errors: [error as DomainError] });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (!ctx.payloadErrors.length || !('data' in result)) return;
          setResult({ ...result, extensions: { ...result.extensions, payloadErrors: describePayloadErrors(ctx.payloadErrors) } });
        },
      };
    },
  };
}
