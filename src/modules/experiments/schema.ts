import { builder, scopes } from '../../graphql/builder.ts';
import type { FlagStatus } from '../../flags/index.ts';
import { FeatureFlagDefinitionRef, FeatureFlagGateRef, FeatureFlagStateEnum } from '../features/index.ts';
import { listExperiments, type Experiment } from './service.ts';

const ExperimentStatusRef = builder.objectRef<FlagStatus>('ExperimentStatus').implement({
  description: 'Whether an experiment runs: for everyone (ON), for some actors (CONDITIONAL) or for nobody (OFF).',
  fields: (t) => ({
    state: t.field({ type: FeatureFlagStateEnum, resolve: (s) => s.state }),
    gates: t.field({ type: [FeatureFlagGateRef], resolve: (s) => s.gateValues }),
  }),
});

const ExperimentRef = builder.objectRef<Experiment>('Experiment').implement({
  description: 'An experiment: its definition and its current rollout.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The definition name without `_experiment_percentage`.' }),
    definition: t.field({ type: FeatureFlagDefinitionRef, resolve: (e) => e.status.definition }),
    currentStatus: t.field({ type: ExperimentStatusRef, resolve: (e) => e.status }),
  }),
});

builder.queryField('experiments', (t) =>
  t.field({
    type: [ExperimentRef],
    extensions: scopes('api', 'read_api'),
    description: 'Every experiment and its rollout status; administrators only.',
    resolve: (_r, _a, ctx) => listExperiments(ctx),
  }),
);
