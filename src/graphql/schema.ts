import { builder } from './builder.ts';

/**
 * The executable schema, from every type the areas registered on the builder (call once, after the
 * manifest is loaded). Pothos sorts types and fields lexicographically itself (`sortSchema`
 * defaults to true), so introspection and the printed schema read in a stable order.
 */
export const buildSchema = () => builder.toSchema();
