// Feature flags and experiments: GitLab serves them through REST only (`/features`, `/experiments`,
// administrators); our REST routes run these types' fields and mutations.
import type { ReferenceType } from './types.ts';

const FLAGS = "GitLab's feature flags are REST-only (`/features`, administrators); our REST routes run this";
const EXPERIMENTS = "GitLab's experiments are REST-only (`GET /experiments`); our REST route runs this";

export const types: ReferenceType[] = [
  ...['FeatureFlag', 'FeatureFlagDefinition', 'FeatureFlagGate', 'FeatureFlagGateKey', 'FeatureFlagState'].map((name) => ({ name, notGitLab: FLAGS })),
  ...['Delete', 'Set'].flatMap((verb) => [
    { name: `FeatureFlag${verb}Input`, notGitLab: FLAGS },
    { name: `FeatureFlag${verb}Payload`, notGitLab: FLAGS },
  ]),
  { name: 'Experiment', notGitLab: EXPERIMENTS },
  { name: 'ExperimentStatus', notGitLab: EXPERIMENTS },
  { name: 'Query', kept: { featureFlags: FLAGS, featureFlagDefinitions: FLAGS, experiments: EXPERIMENTS } },
  { name: 'Mutation', kept: { featureFlagDelete: FLAGS, featureFlagSet: FLAGS } },
];
