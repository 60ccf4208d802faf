import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.ts';

/** The executable schema, from every type the areas registered on the builder (call once, after the manifest is loaded). */
export const buildSchema = () => lexicographicSortSchema(builder.toSchema());
