// Package protection rules: GitLab's GraphQL reference (`PackagesProtectionRule`, its enums,
// `createPackagesProtectionRule`, `updatePackagesProtectionRule`, `deletePackagesProtectionRule`,
// `Project.packagesProtectionRules`).
import { CONNECTION_NAME, connection } from './releases.ts';
import type { ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const BY_PROJECT_ID = 'ours: REST runs the mutation with the project of its path (`:id`)';
const PROJECT_PATH = "GitLab's `ID!`: ours may be left out when `projectId` names the project (REST); a GitLab document's `ID!` variable still fits";
const RULE_SCOPE = 'ours: REST names the rule by its project and id; GitLab needs only the global id';
const PAYLOAD = { clientMutationId: 'String', errors: '[String!]!', packageProtectionRule: 'PackagesProtectionRule' };

export const types: ReferenceType[] = [
  {
    name: 'PackagesProtectionRule',
    fields: {
      id: 'PackagesProtectionRuleID!',
      minimumAccessLevelForDelete: 'PackagesProtectionRuleAccessLevelForDelete',
      minimumAccessLevelForPush: 'PackagesProtectionRuleAccessLevel',
      packageNamePattern: 'String!',
      packageType: 'PackagesProtectionRulePackageType!',
    },
    kept: {
      databaseId: "ours: the numeric id GitLab's REST answers as `id`",
      projectId: "ours: GitLab's REST rule entity has `project_id`",
    },
  },
  { name: 'PackagesProtectionRuleAccessLevel', values: ['ADMIN', 'MAINTAINER', 'OWNER'] },
  { name: 'PackagesProtectionRuleAccessLevelForDelete', values: ['ADMIN', 'OWNER'] },
  {
    name: 'PackagesProtectionRulePackageType',
    values: ['CONAN', 'GENERIC', 'HELM', 'MAVEN', 'NPM', 'NUGET', 'PYPI'],
    kept: {
      CARGO: "ours: forgegate's REST protection rules take the Cargo format too (registries in front of forgegate ask about it); GitLab's enum lacks it",
      TERRAFORM_MODULE: "ours: forgegate's REST protection rules take Terraform modules too; GitLab's enum lacks it",
    },
  },
  { name: 'PackagesProtectionRuleID' },
  {
    name: 'PackagesProtectionRuleAction',
    notGitLab: 'the action asked about in `Project.packageProtection` (push or delete), a question GitLab answers inside its package registry',
  },
  {
    name: 'PackagesProtectionDecision',
    notGitLab: 'the answer of `Project.packageProtection`: whether a rule forbids a push or delete, for package registries in front of forgegate',
  },
  {
    name: 'CreatePackagesProtectionRuleInput',
    fields: {
      clientMutationId: 'String',
      minimumAccessLevelForDelete: 'PackagesProtectionRuleAccessLevelForDelete',
      minimumAccessLevelForPush: 'PackagesProtectionRuleAccessLevel',
      packageNamePattern: 'String!',
      packageType: 'PackagesProtectionRulePackageType!',
      projectPath: 'ID!',
    },
    kept: { projectPath: PROJECT_PATH, projectId: BY_PROJECT_ID },
  },
  { name: 'CreatePackagesProtectionRulePayload', fields: PAYLOAD },
  {
    name: 'UpdatePackagesProtectionRuleInput',
    fields: {
      clientMutationId: 'String',
      id: 'PackagesProtectionRuleID!',
      minimumAccessLevelForDelete: 'PackagesProtectionRuleAccessLevelForDelete',
      minimumAccessLevelForPush: 'PackagesProtectionRuleAccessLevel',
      packageNamePattern: 'String',
      packageType: 'PackagesProtectionRulePackageType',
    },
    kept: { projectId: RULE_SCOPE, projectPath: RULE_SCOPE },
  },
  { name: 'UpdatePackagesProtectionRulePayload', fields: PAYLOAD },
  {
    name: 'DeletePackagesProtectionRuleInput',
    fields: { clientMutationId: 'String', id: 'PackagesProtectionRuleID!' },
    kept: { projectId: RULE_SCOPE, projectPath: RULE_SCOPE },
  },
  { name: 'DeletePackagesProtectionRulePayload', fields: PAYLOAD },
  ...connection('ProjectPackagesProtectionRulesConnection', 'PackagesProtectionRuleConnection'),
  {
    name: 'Project',
    fields: { packagesProtectionRules: { type: 'PackagesProtectionRuleConnection', args: PAGE } },
    kept: {
      packagesProtectionRules: CONNECTION_NAME,
      packageProtection:
        'ours: may this user push or delete this package? (GitLab decides inside its own registry; ours serve registries in front of forgegate)',
    },
  },
  {
    name: 'Mutation',
    fields: {
      createPackagesProtectionRule: { type: 'CreatePackagesProtectionRulePayload', args: { input: 'CreatePackagesProtectionRuleInput!' } },
      deletePackagesProtectionRule: { type: 'DeletePackagesProtectionRulePayload', args: { input: 'DeletePackagesProtectionRuleInput!' } },
      updatePackagesProtectionRule: { type: 'UpdatePackagesProtectionRulePayload', args: { input: 'UpdatePackagesProtectionRuleInput!' } },
    },
  },
];
