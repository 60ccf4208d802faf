import type { IntegrationSetUpInput } from '../../generated/operations.ts';
import { param, type Param, type ParamShape } from '../../rest/declare.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found } from '../../rest/shape.ts';
import { camel, flagParams, KINDS, PROJECT_ONLY_SLUGS, type KindDef, type ParamDef } from './registry.ts';

const BASE = '/groups/:id/integrations';
const SLUG = { id: param.ref(), slug: param.string({ required: true }) };

const groupInput = (ref: { id?: number; fullPath?: string }) => ({ groupId: ref.id, groupPath: ref.fullPath });

/**
 * A kind's parameter under its neutral name or any of GitLab's original names. Presence is checked
 * by the service (one rule for REST and GraphQL: `use_inherited_settings` needs none of them), so
 * `required` only documents it.
 */
function kindParam(def: ParamDef): Param<string | boolean | number | undefined> {
  const read = (p: Params, name: string) => (def.type === 'boolean' ? p.bool(name) : def.type === 'integer' ? p.int(name) : p.string(name));
  const type = def.type === 'boolean' ? 'boolean' : def.type === 'integer' ? 'integer' : 'string';
  return {
    required: def.required === true,
    schema: {
      type,
      description:
        def.description + (def.aliases?.length ? ` Also accepted as ${def.aliases.join(', ')}.` : '') + (def.secret ? ' Secret: never returned.' : ''),
      ...(def.values && { enum: [...def.values] }),
      ...(def.default !== undefined && { default: def.default }),
    },
    read: (p, name) => [name, ...(def.aliases ?? [])].map((n) => read(p, n)).find((v) => v !== undefined),
  };
}

function setUpParams(kind: KindDef): ParamShape {
  return {
    id: param.ref(),
    use_inherited_settings: param.bool({ description: "Use the nearest ancestor group's settings (default false)." }),
    ...Object.fromEntries(kind.params.map((def) => [def.name, kindParam(def)])),
    ...Object.fromEntries(flagParams(kind).map((flag) => [flag, param.bool()])),
  };
}

/** The checked REST values as the set-up mutation's input: event flags on top, the kind's settings under its own field. */
function setUpInput(kind: KindDef, v: Record<string, unknown>): IntegrationSetUpInput {
  const ref = v.id as { id?: number; fullPath?: string };
  return {
    ...groupInput(ref),
    slug: kind.slug,
    useInheritedSettings: v.use_inherited_settings as boolean | undefined,
    ...Object.fromEntries(flagParams(kind).map((flag) => [camel(flag), v[flag]])),
    settings: { [camel(kind.slug)]: Object.fromEntries(kind.params.map((def) => [camel(def.name), v[def.name]])) },
  } as IntegrationSetUpInput;
}

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: BASE,
      operation: 'GroupIntegrations',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => found(data.group, 'Group').integrations,
    }),
    route({
      method: 'GET',
      path: `${BASE}/:slug`,
      operation: 'GroupIntegration',
      params: SLUG,
      variables: (v) => ({ ...v.id, slug: v.slug }),
      result: (data) => found(data.group, 'Group').integration,
    }),
    // One route per kind, its parameters from the registry; a slug without a route answers 404.
    ...KINDS.map((kind) =>
      route({
        method: 'PUT',
        path: `${BASE}/${kind.slug}`,
        operation: 'IntegrationSetUp',
        params: setUpParams(kind),
        variables: (v) => ({ input: setUpInput(kind, v) }),
        result: (data) => expected(data.integrationSetUp?.integration, 'integration'),
      }),
    ),
    // GitLab routes project-only kinds on groups too, to refuse them with `400 Integration not available`.
    ...PROJECT_ONLY_SLUGS.map((slug) =>
      route({
        method: 'PUT',
        path: `${BASE}/${slug}`,
        operation: 'IntegrationSetUp',
        params: { id: param.ref() },
        variables: (v) => ({ input: { ...groupInput(v.id), slug } }),
        result: (data) => expected(data.integrationSetUp?.integration, 'integration'),
      }),
    ),
    route({
      method: 'DELETE',
      path: `${BASE}/:slug`,
      operation: 'IntegrationDisable',
      params: SLUG,
      variables: (v) => ({ input: { ...groupInput(v.id), slug: v.slug } }),
    }),
    route({
      method: 'POST',
      path: `${BASE}/:slug/test`,
      operation: 'IntegrationTest',
      params: SLUG,
      variables: (v) => ({ input: { ...groupInput(v.id), slug: v.slug } }),
      result: (data) => expected(data.integrationTest?.result, 'result'),
    }),
  ],
  { authenticate: 'always' },
);
