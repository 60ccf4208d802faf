import { builder, scopes } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import type { FlagDefinition, FlagStatus } from '../../flags/index.ts';
import type { GateValue } from '../../flags/gates.ts';
import { deleteFeature, listFeatureDefinitions, listFeatures, setFeature } from './service.ts';

export const FeatureFlagStateEnum = builder.enumType('FeatureFlagState', {
  description: "Summary of a flag's gates: ON (boolean gate open), CONDITIONAL (open for some actors), OFF.",
  values: { ON: { value: 'on' }, OFF: { value: 'off' }, CONDITIONAL: { value: 'conditional' } } as const,
});

const FeatureFlagGateKeyEnum = builder.enumType('FeatureFlagGateKey', {
  values: {
    BOOLEAN: { value: 'boolean' },
    PERCENTAGE_OF_ACTORS: { value: 'percentage_of_actors' },
    PERCENTAGE_OF_TIME: { value: 'percentage_of_time' },
  } as const,
});

export const FeatureFlagGateRef = builder.objectRef<GateValue>('FeatureFlagGate').implement({
  description: 'One gate of a flag; gates that are not set are left out, except the boolean gate.',
  fields: (t) => ({
    key: t.exposeString('key', { description: '`boolean` or `percentage_of_actors`.' }),
    value: t.field({ type: 'JSON', description: 'A boolean for the boolean gate, an integer percentage otherwise.', resolve: (g) => g.value }),
  }),
});

export const FeatureFlagDefinitionRef = builder.objectRef<FlagDefinition>('FeatureFlagDefinition').implement({
  description: 'A flag as its definition file declares it.',
  fields: (t) => ({
    name: t.exposeString('name'),
    introducedByUrl: t.exposeString('introduced_by_url', { nullable: true }),
    rolloutIssueUrl: t.exposeString('rollout_issue_url', { nullable: true }),
    milestone: t.exposeString('milestone', { nullable: true }),
    type: t.exposeString('type'),
    group: t.exposeString('group'),
    defaultEnabled: t.exposeBoolean('default_enabled'),
  }),
});

export const FeatureFlagRef = builder.objectRef<FlagStatus>('FeatureFlag').implement({
  description: 'A feature flag and its gates (administrators only).',
  fields: (t) => ({
    name: t.exposeString('name'),
    state: t.field({ type: FeatureFlagStateEnum, resolve: (f) => f.state }),
    gates: t.field({ type: [FeatureFlagGateRef], resolve: (f) => f.gateValues }),
    definition: t.field({ type: FeatureFlagDefinitionRef, nullable: true, resolve: (f) => f.definition }),
  }),
});

builder.queryField('featureFlags', (t) =>
  t.field({
    type: [FeatureFlagRef],
    extensions: scopes('api', 'read_api'),
    description: 'Flags an administrator has set, by name; administrators only.',
    resolve: (_r, _a, ctx) => listFeatures(ctx),
  }),
);

builder.queryField('featureFlagDefinitions', (t) =>
  t.field({
    type: [FeatureFlagDefinitionRef],
    extensions: scopes('api', 'read_api'),
    description: 'Every flag definition, by name; administrators only.',
    resolve: (_r, _a, ctx) => listFeatureDefinitions(ctx),
  }),
);

const FeatureFlagSetInput = mutationInput('FeatureFlagSetInput', (t) => ({
  name: t.string({ required: true }),
  value: t.string({ required: true, description: '`true` or `false`, or a whole percentage of actors (0 closes, 100 opens the boolean gate).' }),
  key: t.field({ type: FeatureFlagGateKeyEnum, required: false, description: 'What a percentage applies to; only PERCENTAGE_OF_ACTORS is supported.' }),
}));

const FeatureFlagDeleteInput = mutationInput('FeatureFlagDeleteInput', (t) => ({ name: t.string({ required: true }) }));

const FeatureFlagPayload = (name: string) => payloadType(name, 'featureFlag', FeatureFlagRef);

builder.mutationField('featureFlagSet', (t) =>
  t.field({
    type: FeatureFlagPayload('FeatureFlagSetPayload'),
    extensions: scopes('api'),
    description: "Sets a flag's gate, as `POST /features/:name`; administrators only.",
    args: { input: t.arg({ type: FeatureFlagSetInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('featureFlag', () => setFeature(ctx, { name: input.name, value: input.value, key: input.key === 'boolean' ? undefined : input.key }), input),
  }),
);

builder.mutationField('featureFlagDelete', (t) =>
  t.field({
    type: FeatureFlagPayload('FeatureFlagDeletePayload'),
    extensions: scopes('api'),
    description: 'Forgets what was set, as `DELETE /features/:name`: the flag answers its default again.',
    args: { input: t.arg({ type: FeatureFlagDeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('featureFlag', () => deleteFeature(ctx, input.name), input),
  }),
);
