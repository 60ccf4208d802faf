import { GraphQLError, GraphQLScalarType, type ValueNode } from 'graphql';
import { isStorableDate, MAX_YEAR, MIN_YEAR } from '../core/input.ts';

/**
 * A date scalar that refuses instants PostgreSQL cannot store (`0000-01-01`, year 10000+) as a
 * bad argument, instead of failing in the database. The same rule as REST's `Params` dates.
 */
export function storableDates(scalar: GraphQLScalarType): GraphQLScalarType {
  const check = (value: unknown) => {
    if (value instanceof Date && !isStorableDate(value)) {
      throw new GraphQLError(`${scalar.name} must be between the years ${MIN_YEAR} and ${MAX_YEAR}`);
    }
    return value;
  };
  const config = scalar.toConfig();
  return new GraphQLScalarType({
    ...config,
    parseValue: (value: unknown) => check(config.parseValue!(value)),
    parseLiteral: (node: ValueNode, variables?: { [key: string]: unknown } | null) => check(config.parseLiteral!(node, variables)),
  });
}
