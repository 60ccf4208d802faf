import { builder } from './builder.ts';
import { withWholeLists } from './connections.ts';
import { withPayloadFailures } from './payloads.ts';

/**
 * The executable schema, from every type the areas registered on the builder (call once, after the
 * manifest is loaded). Pothos sorts types and fields lexicographically itself (`sortSchema`
 * defaults to true), so introspection and the printed schema read in a stable order. Its
 * connections read whole lists in the executions that ask for them, and its mutations report
 * their payloads' failures to the execution (both through `ExecutionRoot`).
 */
export const buildSchema = () => withPayloadFailures(withWholeLists(builder.toSchema()));
