import { builder } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import {
  createRule,
  deleteRule,
  deleteRulesEnabled,
  levelName,
  listRules,
  packageProtectionFor,
  PACKAGE_TYPES,
  protectionSubject,
  updateRule,
  type DeleteLevel,
  type PushLevel,
} from './service.ts';

const upperValues = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as { [K in V as Uppercase<K>]: { value: K } };

const PackageTypeEnum = builder.enumType('PackagesProtectionRulePackageType', { values: upperValues(PACKAGE_TYPES) });
const PushLevelEnum = builder.enumType('PackagesProtectionRuleAccessLevel', {
  description: 'Minimum role to push a matching package (MAINTAINER, OWNER, or ADMIN for instance administrators).',
  values: upperValues(['maintainer', 'owner', 'admin'] as const),
});
const DeleteLevelEnum = builder.enumType('PackagesProtectionRuleAccessLevelForDelete', {
  description: 'Minimum role to delete a matching package.',
  values: upperValues(['owner', 'admin'] as const),
});
const ActionEnum = builder.enumType('PackagesProtectionRuleAction', { values: upperValues(['push', 'delete'] as const) });

export const PackagesProtectionRuleRef = builder.prismaObject('PackageProtectionRule', {
  name: 'PackagesProtectionRule',
  description: 'A package protection rule: who may push or delete the packages whose name matches a pattern.',
  fields: (t) => ({
    id: t.field({ type: 'PackagesProtectionRuleID', nullable: false, resolve: (rule) => rule.id }),
    databaseId: t.exposeInt('id'),
    projectId: t.exposeInt('projectId'),
    packageNamePattern: t.exposeString('packageNamePattern', {
      nullable: false,
      description: 'Package name pattern; `*` matches any run of characters.',
    }),
    packageType: t.expose('packageType', { type: PackageTypeEnum, nullable: false }),
    minimumAccessLevelForPush: t.field({
      type: PushLevelEnum,
      nullable: true,
      description: 'Null: Developer applies.',
      resolve: (rule) => levelName(rule.minimumAccessLevelForPush) as PushLevel | null,
    }),
    minimumAccessLevelForDelete: t.field({
      type: DeleteLevelEnum,
      nullable: true,
      description: 'Null: Maintainer applies. Always null while the feature flag `packages_protected_packages_delete` is off.',
      resolve: async (rule, _a, ctx) =>
        (await deleteRulesEnabled(ctx, rule.projectId)) ? (levelName(rule.minimumAccessLevelForDelete) as DeleteLevel | null) : null,
    }),
  }),
});

const DecisionRef = builder.objectRef<Awaited<ReturnType<typeof packageProtectionFor>>>('PackagesProtectionDecision').implement({
  description: 'Whether a protection rule forbids a push or delete of a package, and which one.',
  fields: (t) => ({
    protected: t.exposeBoolean('protected'),
    rule: t.field({
      type: PackagesProtectionRuleRef,
      nullable: true,
      description: "The strictest matching rule above the user's level.",
      resolve: (d) => d.rule,
    }),
    accessLevel: t.exposeInt('accessLevel', { description: "The user's access level in the project (60 for administrators)." }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  packagesProtectionRules: t.connection({
    type: PackagesProtectionRuleRef,
    description: 'Package protection rules of the project. Maintainers and owners only.',
    resolve: async (project, args, ctx) => pagedConnection(args, await listRules(ctx, project)),
  }),
  packageProtection: t.field({
    type: DecisionRef,
    description: 'For a package registry: may this user (default: you; others need Maintainer) push or delete this package?',
    args: {
      packageName: t.arg.string({ required: true }),
      packageType: t.arg({ type: PackageTypeEnum, required: true }),
      action: t.arg({ type: ActionEnum, required: true }),
      userId: t.arg.int(),
    },
    resolve: async (project, args, ctx) => {
      const user = await protectionSubject(ctx, project, args.userId);
      return packageProtectionFor(ctx, { project: project, user, ...args });
    },
  }),
}));

const levelFields = (t: InputFields) => ({
  minimumAccessLevelForPush: t.field({ type: PushLevelEnum, description: 'Null: Developer applies.' }),
  minimumAccessLevelForDelete: t.field({
    type: DeleteLevelEnum,
    description: 'Only while the feature flag `packages_protected_packages_delete` is on; ignored otherwise.',
  }),
});

const CreateInput = mutationInput('CreatePackagesProtectionRuleInput', (t) => ({
  ...projectInputFields(t),
  packageNamePattern: t.string({ required: true }),
  packageType: t.field({ type: PackageTypeEnum, required: true }),
  ...levelFields(t),
}));

const ruleLocation = (t: InputFields) => ({
  id: t.field({ type: 'PackagesProtectionRuleID', required: true, description: 'Global ID of the package protection rule.' }),
  ...projectInputFields(t),
});

const UpdateInput = mutationInput('UpdatePackagesProtectionRuleInput', (t) => ({
  ...ruleLocation(t),
  packageNamePattern: t.string(),
  packageType: t.field({ type: PackageTypeEnum }),
  ...levelFields(t),
}));

const DeleteInput = mutationInput('DeletePackagesProtectionRuleInput', ruleLocation);

const RulePayload = (name: string) => payloadType(name, 'packageProtectionRule', PackagesProtectionRuleRef);

builder.mutationFields((t) => ({
  createPackagesProtectionRule: t.field({
    type: RulePayload('CreatePackagesProtectionRulePayload'),
    description: 'Creates a protection rule to restrict access to project packages.',
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('packageProtectionRule', () => createRule(ctx, input, input), input),
  }),
  updatePackagesProtectionRule: t.field({
    type: RulePayload('UpdatePackagesProtectionRulePayload'),
    description: 'Updates a package protection rule; a level given as null is cleared.',
    args: { input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('packageProtectionRule', () => updateRule(ctx, input.id, input, input), input),
  }),
  deletePackagesProtectionRule: t.field({
    type: RulePayload('DeletePackagesProtectionRulePayload'),
    description: 'Deletes a package protection rule.',
    args: { input: t.arg({ type: DeleteInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('packageProtectionRule', () => deleteRule(ctx, input.id, input), input),
  }),
}));
