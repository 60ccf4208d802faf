import SchemaBuilder, {
  BasePlugin,
  PothosSchemaError,
  type FieldNullability,
  type InputFieldMap,
  type MaybePromise,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import type { Context } from '../core/context.ts';
import { ForbiddenError } from '../core/errors.ts';

/**
 * What a field may need, named after GitLab's abilities (`read_code` → `readCode`), with the id of
 * the subject it is asked about. An area adds its own by augmenting this interface from its folder
 * (`declare module '../../graphql/abilities.ts' { interface Abilities { adminEpic: number } }`) and
 * registering the check with `defineAbility`.
 */
export interface Abilities {
  /** Code of a project (files, commits, tags, archives, evidences): by the project's id. */
  readCode: number;
}

type Check<K extends keyof Abilities> = (ctx: Context, subject: Abilities[K]) => MaybePromise<boolean>;

const checks: { [K in keyof Abilities]?: Check<K> } = {};

/**
 * Registers how an ability is decided. A check that reads a settled loader (`SettledLoader.use`)
 * answers at once when the list above has preloaded it, so the fields it guards need no promise.
 */
export function defineAbility<K extends keyof Abilities>(name: K, check: Check<K>) {
  checks[name] = check as (typeof checks)[K];
}

/** A field's permission (the `authorize` option): what those without the ability get, and whether the viewer has it. */
export type FieldAuthorization<Parent, Ctx = Context> = {
  ability: keyof Abilities;
  /** `hide`: the field answers null (GitLab's entities and types omit it); `refuse`: a 403, as GitLab's `authorize`. */
  otherwise: 'hide' | 'refuse';
  allows: (ctx: Ctx, parent: Parent) => MaybePromise<boolean>;
};

function authorization<K extends keyof Abilities, P>(ability: K, subject: (parent: P) => Abilities[K], otherwise: 'hide' | 'refuse'): FieldAuthorization<P> {
  return {
    ability,
    otherwise,
    allows: (ctx, parent) => {
      // Looked up when asked: areas register their abilities after their fields are declared.
      const check = checks[ability];
      if (!check) throw new Error(`ability ${ability} has no check (defineAbility)`);
      return check(ctx, subject(parent));
    },
  };
}

/** For a nullable field that answers null to those without `ability` on the subject its parent names. */
export const hiddenUnless = <K extends keyof Abilities, P>(ability: K, subject: (parent: P) => Abilities[K]) => ({
  authorize: authorization(ability, subject, 'hide'),
});

/** For a field that refuses (403) those without `ability` on the subject its parent names. */
export const refusedUnless = <K extends keyof Abilities, P>(ability: K, subject: (parent: P) => Abilities[K]) => ({
  authorize: authorization(ability, subject, 'refuse'),
});

declare global {
  export namespace PothosSchemaTypes {
    export interface FieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveShape,
      ResolveReturnShape,
    > {
      /** The ability the field needs (`hiddenUnless`, `refusedUnless`). */
      authorize?: FieldAuthorization<ParentShape, Types['Context']>;
    }

    export interface Plugins<Types extends SchemaTypes> {
      abilities: AbilitiesPlugin<Types>;
    }
  }
}

/** The resolver of a guarded field: the check, then the resolver, at once where the check answers at once. */
function guarded<Ctx>(rule: FieldAuthorization<unknown, Ctx>, resolve: GraphQLFieldResolver<unknown, Ctx, object>): GraphQLFieldResolver<unknown, Ctx, object> {
  const denied =
    rule.otherwise === 'hide'
      ? () => null
      : () => {
          throw new ForbiddenError();
        };
  return (parent, args, ctx, info) => {
    const allowed = rule.allows(ctx, parent);
    if (allowed === true) return resolve(parent, args, ctx, info);
    if (allowed === false) return denied();
    return allowed.then((yes) => (yes ? resolve(parent, args, ctx, info) : denied()));
  };
}

/**
 * Field-level authorization in the schema: a field declares the ability it needs (`authorize`) and
 * its resolver runs only for those who have it, for GraphQL and so for the REST routes that run
 * its operations. Fields without `authorize` keep their resolver (or none) untouched.
 */
export class AbilitiesPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types['Context'], object>, fieldConfig: PothosOutputFieldConfig<Types>) {
    const rule = fieldConfig.pothosOptions.authorize;
    if (!rule) return resolver;
    if (rule.otherwise === 'hide' && !fieldConfig.type.nullable) {
      throw new PothosSchemaError(`${fieldConfig.parentType}.${fieldConfig.name} answers null to those without ${rule.ability}: it must be nullable`);
    }
    // The resolver is called with the field's parent shape, the one the rule was declared for.
    return guarded(rule as FieldAuthorization<unknown, Types['Context']>, resolver);
  }
}

SchemaBuilder.registerPlugin('abilities', AbilitiesPlugin);

export default 'abilities' as const;

defineAbility('readCode', (ctx, projectId) => ctx.loaders.projectAccess.use(projectId, (access) => access.readCode));
