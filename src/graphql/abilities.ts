import type { MaybePromise } from '@pothos/core';
import type { Context } from '../core/context.ts';

/**
 * What a field may need, named after GitLab's abilities (`read_code` → `readCode`), with the id of
 * the subject it is asked about: a field declares `authScopes: (parent) => ({ readCode: parent.projectId })`
 * and answers only when the viewer has it (see `hiddenUnless` for fields that answer null instead
 * of refusing). An area adds its own by augmenting this interface from its folder
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
 * answers at once when the list resolver has preloaded it, so the fields it guards need no promise.
 */
export function defineAbility<K extends keyof Abilities>(name: K, check: Check<K>) {
  checks[name] = check as (typeof checks)[K];
}

/** One ability bound to a request; an ability nobody registered is refused. */
function bound<K extends keyof Abilities>(ctx: Context, name: K) {
  const check = checks[name];
  return (subject: Abilities[K]) => (check ? check(ctx, subject) : false);
}

type ScopeLoaders = { [K in keyof Abilities]: (subject: Abilities[K]) => MaybePromise<boolean> };

/** The abilities as the scope-auth plugin asks them for one request (made on its first guarded field). */
export function abilitiesOf(ctx: Context): ScopeLoaders {
  const loaders: Partial<Record<keyof Abilities, unknown>> = {};
  for (const name of Object.keys(checks) as (keyof Abilities)[]) loaders[name] = bound(ctx, name);
  return loaders as ScopeLoaders;
}

/**
 * For a nullable field that answers null, not an error, to those without the abilities `scopes`
 * names for its parent (GitLab's entities and types hide such fields; a field that refuses, as
 * GitLab's `authorize` does, declares `authScopes` alone).
 */
export const hiddenUnless = <P>(scopes: (parent: P) => { [K in keyof Abilities]?: Abilities[K] }) => ({
  authScopes: scopes,
  unauthorizedResolver: () => null,
});

defineAbility('readCode', (ctx, projectId) => ctx.loaders.projectAccess.use(projectId, (access) => access.readCode));
