import type { GraphQLResolveInfo } from 'graphql';
import type { DomainError } from '../core/errors.ts';

/**
 * The root value of one execution of an operation, made by whoever executes it (the REST facade,
 * /api/graphql's operation checks): how the operation reads its lists, and what it answers
 * beside its data.
 */
export class ExecutionRoot {
  /**
   * The failures its mutation payloads answered in `errors`, with their codes (`asPayload`):
   * the REST facade answers GitLab's status and body from them, /api/graphql reports them in
   * `extensions.payloadErrors`.
   */
  readonly payloadFailures: DomainError[] = [];

  constructor(
    /**
     * Connections selected without `first` or `last` answer their whole list, as GitLab's REST
     * answers nested lists (every link of a release, every label of an epic) where its GraphQL
     * pages them (graphql/connections.ts).
     */
    readonly wholeLists: boolean,
  ) {}
}

/** The execution's root, where its executor made one. */
export const executionRoot = (info: GraphQLResolveInfo): ExecutionRoot | null => (info.rootValue instanceof ExecutionRoot ? info.rootValue : null);
