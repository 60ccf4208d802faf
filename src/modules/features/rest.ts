import type { FeatureEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected } from '../../rest/shape.ts';

/** GraphQL's enum (ON) as GitLab's entity writes the state (on). */
export const featureEntity = (flag: FeatureEntityFragment) => ({ ...flag, state: flag.state?.toLowerCase() ?? null });

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/features',
      operation: 'Features',
      result: (data) => expected(data.featureFlags, 'featureFlags').map(featureEntity),
    }),
    route({
      method: 'GET',
      path: '/features/definitions',
      operation: 'FeatureDefinitions',
      result: (data) => expected(data.featureFlagDefinitions, 'featureFlagDefinitions'),
    }),
    route({
      method: 'POST',
      path: '/features/:name',
      operation: 'FeatureSet',
      status: 201,
      params: {
        name: param.string({ required: true }),
        value: param.string({ required: true, description: '`true` or `false`, or a whole percentage of actors' }),
        key: param.oneOf(['percentage_of_actors', 'percentage_of_time']),
      },
      variables: (v) => ({ input: { name: v.name, value: v.value, key: v.key && enumValue(v.key) } }),
      result: (data) => featureEntity(expected(data.featureFlagSet?.featureFlag, 'featureFlag')),
    }),
    route({
      method: 'DELETE',
      path: '/features/:name',
      operation: 'FeatureDelete',
      params: { name: param.string({ required: true }) },
      variables: (v) => ({ input: { name: v.name } }),
    }),
  ],
  { authenticate: 'always' },
);
