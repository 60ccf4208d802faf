import { GraphQLError, parse, print, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { BoundedCache } from '../core/bounded-cache.ts';

/**
 * graphql-jit (with ajv and fast-json-stringify behind it: ~0.1 s and ~10 MB) is loaded before the
 * first compile, not at start: `loadJit` is awaited by whoever is about to compile.
 */
let jit: typeof import('graphql-jit') | undefined;

export async function loadJit(): Promise<void> {
  jit ??= await import('graphql-jit');
}

export const jitLoaded = () => jit !== undefined;

/** How operations execute: compiled by graphql-jit where it can (the default), or by the reference executor only. */
export type ExecutionEngine = 'jit' | 'graphql-js';

/**
 * graphql-jit's compiled form of one operation of a document, or null where graphql-jit cannot
 * compile it (the caller then runs the reference executor). graphql-jit annotates the AST nodes it
 * compiles (`@skip`/`@include` conditions), and documents are shared (the REST registry's
 * fragments serve several operations, Yoga's parse cache hands one document to every request), so
 * it compiles a private copy parsed from the source text: the same locations, for error messages.
 */
export function compileOperation(schema: GraphQLSchema, source: string, operationName?: string | null): CompiledQuery | null {
  if (!jit) throw new Error('graphql-jit is not loaded: await loadJit() first');
  try {
    const compiled = jit.compileQuery(schema, parse(source), operationName ?? undefined);
    return jit.isCompiledQuery(compiled) ? compiled : null;
  } catch {
    return null;
  }
}

/** graphql-jit answers a promise where a resolver is asynchronous, the result itself otherwise. */
const isPromise = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** Executions on /api/graphql by path, process-wide: tests check that the compiled path is taken. */
export const jitExecutions = { compiled: 0, reference: 0 };

/** Distinct documents kept (compiled, or seen once): GitLab's frontend sends a few hundred. */
const DOCUMENTS = 1_000;

/** A document seen once and not compiled yet. */
const SEEN_ONCE = 'seen once';

/**
 * Executes /api/graphql operations compiled by graphql-jit (a list of 100 releases takes less than
 * half the CPU of Yoga's own executor: bench/RESULTS.md), with the same results:
 * test/graphql-jit.test.ts and test/graphql-gitlab-documents.test.ts run documents both ways. Compiled queries are kept by document text and operation name
 * in a bounded LRU. A document is compiled the second time it is seen: compiling costs more than
 * running a query once, and clients that inline values in the text send one-off documents.
 * Documents graphql-jit cannot compile run on the executor Yoga had (subscriptions never come
 * here: Yoga sends them to `subscribe`).
 *
 * Goes before the plugins that wrap execution (operationChecksPlugin's deadline), so they wrap it.
 */
export function jitExecutionPlugin(engine: ExecutionEngine = 'jit'): Plugin {
  const cache = new BoundedCache<string, CompiledQuery | null | typeof SEEN_ONCE>(DOCUMENTS);
  const compiledFor = (args: ExecutionArgs): CompiledQuery | null => {
    const source = documentSource(args.document);
    const key = `${args.operationName ?? ''}\n${source}`;
    const entry = cache.get(key);
    if (entry === undefined) {
      cache.set(key, SEEN_ONCE);
      return null;
    }
    if (entry !== SEEN_ONCE) return entry;
    const compiled = compileOperation(args.schema, source, args.operationName);
    cache.set(key, compiled);
    return compiled;
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      if (engine !== 'jit') return;
      setExecuteFn((args) => {
        const compiled = compiledFor(args);
        const result = compiled?.query(args.rootValue, args.contextValue, args.variableValues ?? {});
        // Variables that do not coerce come back at once, without data. graphql-jit words those
        // errors its own way (without the scalar's message or the variable's location): the
        // reference executor answers them, as clients read them.
        if (!result || (!isPromise(result) && !('data' in result))) {
          jitExecutions.reference += 1;
          return executeFn(args);
        }
        jitExecutions.compiled += 1;
        return isPromise(result) ? result.then((r) => asReference(r, args.document)) : asReference(result, args.document);
      });
    },
  };
}

/**
 * A compiled result as the reference executor words it: errors first, and each error a graphql-js
 * one located in the request's document. Yoga rebuilds errors from their AST nodes or source
 * positions when it answers, and graphql-jit's errors carry neither, only line and column.
 */
function asReference(result: ExecutionResult, document: DocumentNode): ExecutionResult {
  if (!result.errors?.length) return result;
  const source = document.loc?.source;
  const errors = result.errors.map(
    (error) =>
      new GraphQLError(error.message, {
        source,
        positions: source && error.locations?.map(({ line, column }) => offsetOf(source.body, line, column)),
        path: error.path,
        originalError: error.originalError,
        extensions: error.extensions,
      }),
  );
  return { errors, data: result.data };
}

/** The character offset of a 1-based line and column, as graphql-js counts lines. */
function offsetOf(body: string, line: number, column: number): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let start = 0;
  for (let current = 1; current < line && lineBreak.exec(body); current++) start = lineBreak.lastIndex;
  return start + column - 1;
}

/** The text a document was parsed from (Yoga keeps locations); printed where it has none. */
const documentSource = (document: DocumentNode) => document.loc?.source.body ?? print(document);
