import { builder } from './builder.ts';
import { withWholeLists } from './connections.ts';

/**
 * The executable schema, from every type the areas registered on the builder (call once, after the
 * manifest is loaded). Pothos sorts types and fields lexicographically itself (`sortSchema`
 * defaults to true), so introspection and the printed schema read in a stable order. Its
 * connections read whole lists in the operations that ask for them (`WHOLE_LISTS`).
 */
export const buildSchema = () => withWholeLists(builder.toSchema());
