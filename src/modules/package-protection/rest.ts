import type { PackagesProtectionRuleEntityFragment } from '../../generated/operations.ts';
import { param, rule } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, found, nodesOf } from '../../rest/shape.ts';
import { globalId, projectInput } from '../../rest/sources.ts';
import { DELETE_LEVELS, PACKAGE_TYPES, PUSH_LEVELS, type DeleteLevel, type PushLevel } from './service.ts';

const lower = <V extends string>(value: V | null | undefined) => (value == null ? null : (value.toLowerCase() as Lowercase<V>));

/** GitLab's rule entity: enum values in lower case. */
const ruleEntity = (rule: PackagesProtectionRuleEntityFragment) => ({
  ...rule,
  package_type: lower(rule.package_type),
  minimum_access_level_for_delete: lower(rule.minimum_access_level_for_delete),
  minimum_access_level_for_push: lower(rule.minimum_access_level_for_push),
});

/** A level the JSON body may set to null (PATCH clears it), as its GraphQL enum value. */
const level = <V extends PushLevel | DeleteLevel>(value: V | null | undefined) => (value == null ? value : enumValue(value));

const RULE = {
  package_name_pattern: param.string({ description: 'For example `@my-scope/my-package-*`; `*` is a wildcard.' }),
  package_type: param.oneOf(PACKAGE_TYPES),
  minimum_access_level_for_delete: param.nullable(param.oneOf(Object.keys(DELETE_LEVELS) as DeleteLevel[], { description: 'Null: Maintainer applies.' })),
  minimum_access_level_for_push: param.nullable(param.oneOf(Object.keys(PUSH_LEVELS) as PushLevel[], { description: 'Null: Developer applies.' })),
};

const RULES_PATH = '/projects/:id/packages/protection/rules';
const RULE_ID = { id: param.ref(), package_protection_rule_id: param.int({ required: true }) };

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: RULES_PATH,
      operation: 'ProjectPackagesProtectionRules',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => nodesOf(found(data.project, 'Project').packagesProtectionRules).map(ruleEntity),
    }),
    route({
      method: 'POST',
      path: RULES_PATH,
      operation: 'CreatePackagesProtectionRule',
      status: 201,
      params: {
        id: param.ref(),
        ...RULE,
        package_name_pattern: param.string({ required: true }),
        package_type: param.oneOf(PACKAGE_TYPES, { required: true }),
      },
      // GitLab's REST API declares it; its GraphQL mutation has the model's rule only (422, `ruleProblems`).
      rules: [rule.atLeastOneOf('minimum_access_level_for_push', 'minimum_access_level_for_delete')],
      variables: (v) => ({
        input: {
          ...projectInput(v.id),
          packageNamePattern: v.package_name_pattern,
          packageType: enumValue(v.package_type),
          minimumAccessLevelForPush: level(v.minimum_access_level_for_push),
          minimumAccessLevelForDelete: level(v.minimum_access_level_for_delete),
        },
      }),
      result: (data) => ruleEntity(expected(data.createPackagesProtectionRule?.packageProtectionRule, 'rule')),
    }),
    route({
      method: 'PATCH',
      path: `${RULES_PATH}/:package_protection_rule_id`,
      operation: 'UpdatePackagesProtectionRule',
      params: { ...RULE_ID, ...RULE },
      variables: (v) => ({
        input: {
          id: globalId('Packages::Protection::Rule', v.package_protection_rule_id),
          ...projectInput(v.id),
          packageNamePattern: v.package_name_pattern,
          packageType: v.package_type && enumValue(v.package_type),
          minimumAccessLevelForPush: level(v.minimum_access_level_for_push),
          minimumAccessLevelForDelete: level(v.minimum_access_level_for_delete),
        },
      }),
      result: (data) => ruleEntity(expected(data.updatePackagesProtectionRule?.packageProtectionRule, 'rule')),
    }),
    route({
      method: 'DELETE',
      path: `${RULES_PATH}/:package_protection_rule_id`,
      operation: 'DeletePackagesProtectionRule',
      params: RULE_ID,
      variables: (v) => ({ input: { id: globalId('Packages::Protection::Rule', v.package_protection_rule_id), ...projectInput(v.id) } }),
    }),
  ],
  { authenticate: 'always' },
);
