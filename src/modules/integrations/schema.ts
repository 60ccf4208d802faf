import { builder, gid } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import type { Context } from '../../core/context.ts';
import { ParamError } from '../../core/errors.ts';
import { GroupRef } from '../groups/index.ts';
import { testIntegration, type TestResult } from './delivery.ts';
import { camel, EVENT_FLAGS, KINDS, pascal, type EventFlag, type ParamDef } from './registry.ts';
import {
  disableIntegration,
  eventsOf,
  findIntegration,
  listIntegrations,
  propertiesOf,
  setUpIntegration,
  updateIntegration,
  type IntegrationView,
  type Settings,
} from './service.ts';

export const IntegrationRef = builder.objectRef<IntegrationView>('Integration').implement({
  description: "A group integration: its own settings, or the nearest ancestor group's when it inherits.",
  fields: (t) => ({
    id: t.id({ resolve: (v) => gid(`Integrations::${pascal(v.kind.slug)}`, v.row.id) }),
    databaseId: t.int({ resolve: (v) => v.row.id }),
    title: t.string({ resolve: (v) => v.kind.title }),
    slug: t.string({ resolve: (v) => v.kind.slug }),
    createdAt: t.field({ type: 'Time', resolve: (v) => v.row.createdAt }),
    updatedAt: t.field({ type: 'Time', resolve: (v) => v.row.updatedAt }),
    active: t.boolean({ resolve: (v) => v.row.active }),
    inherited: t.boolean({ description: 'The settings come from an ancestor group.', resolve: (v) => v.inherited }),
    ...Object.fromEntries(EVENT_FLAGS.map((flag) => [camel(flag), t.boolean({ resolve: (v) => eventsOf(v.row)[flag] })])),
    properties: t.field({ type: 'JSON', description: "Non-secret settings, by the spec's neutral names.", resolve: (v) => propertiesOf(v) }),
  }),
});

const groupRef = (input: { groupId?: number | null; groupPath?: string | number | null }) => ({
  id: input.groupId,
  fullPath: input.groupPath == null ? null : String(input.groupPath),
});

builder.objectFields(GroupRef, (t) => ({
  integrations: t.field({
    type: [IntegrationRef],
    description: 'Active integrations, own and inherited. Maintainers and above.',
    resolve: (group, _a, ctx) => listIntegrations(ctx, { id: group.id }),
  }),
  integration: t.field({
    type: IntegrationRef,
    args: { slug: t.arg.string({ required: true }) },
    description: "One integration's settings (secrets left out). Maintainers and above.",
    resolve: (group, { slug }, ctx) => findIntegration(ctx, { id: group.id }, slug),
  }),
}));

// One input type per kind, generated from the registry: `SlackIntegrationSettingsInput { webhook … }`.
const fieldOf = (t: PothosSchemaTypes.InputFieldBuilder<never, 'InputObject'>, param: ParamDef) => {
  const options = { description: param.description + (param.secret ? ' Secret: stored encrypted, never returned.' : '') };
  if (param.type === 'boolean') return t.boolean(options);
  if (param.type === 'integer') return t.int(options);
  return t.string(options);
};

const kindInputs = Object.fromEntries(
  KINDS.map((kind) => [
    kind.slug,
    builder.inputType(`${pascal(kind.slug)}IntegrationSettingsInput`, {
      description: `Settings of the ${kind.title} integration (${kind.kind}).`,
      fields: (t) => Object.fromEntries(kind.params.map((param) => [camel(param.name), fieldOf(t as never, param)])),
    }),
  ]),
);

const SettingsInput = builder.inputType('IntegrationSettingsInput', {
  description: 'The settings of the kind named by `slug`: exactly the field of that kind.',
  fields: (t) => Object.fromEntries(KINDS.map((kind) => [camel(kind.slug), t.field({ type: kindInputs[kind.slug] })])),
});

const groupFields = (t: Parameters<Parameters<typeof mutationInput>[1]>[0]) => ({
  groupPath: t.id({ description: 'Full path of the group.' }),
  groupId: t.int(),
  slug: t.string({ required: true, description: "GitLab's slug of the kind, e.g. `slack`." }),
});

const SetUpInput = mutationInput('IntegrationSetUpInput', (t) => ({
  ...groupFields(t),
  useInheritedSettings: t.boolean({ description: "Use the nearest ancestor group's settings instead." }),
  ...Object.fromEntries(EVENT_FLAGS.map((flag) => [camel(flag), t.boolean()])),
  settings: t.field({ type: SettingsInput }),
}));

const UpdateInput = mutationInput('IntegrationUpdateInput', (t) => ({
  ...groupFields(t),
  ...Object.fromEntries(EVENT_FLAGS.map((flag) => [camel(flag), t.boolean()])),
  settings: t.field({ type: SettingsInput, description: 'Only the settings to change.' }),
}));

const SlugInput = (name: string) => mutationInput(name, groupFields);

type SettingsArg = Record<string, Record<string, unknown> | null | undefined> | null | undefined;

/** The one kind's GraphQL fields back to the neutral names the service checks. */
function settingsFor(slug: string, settings: SettingsArg): Settings {
  const given = Object.entries(settings ?? {}).filter(([, v]) => v != null);
  const other = given.find(([field]) => field !== camel(slug));
  if (other) throw new ParamError(`settings.${other[0]} does not belong to the ${slug} integration`);
  const fields = settings?.[camel(slug)] ?? {};
  const kind = KINDS.find((k) => k.slug === slug);
  return Object.fromEntries((kind?.params ?? []).map((param) => [param.name, fields[camel(param.name)] as Settings[string]]));
}

/** The event flags an input names (camel-cased in GraphQL), by their record names. */
function eventsGiven(input: object): Partial<Record<EventFlag, boolean | null>> {
  const raw = input as Record<string, boolean | null | undefined>;
  return Object.fromEntries(EVENT_FLAGS.map((flag) => [flag, raw[camel(flag)]]));
}

/** Only the settings given: an update keeps what it does not name. */
function partialSettingsFor(slug: string, settings: SettingsArg): Settings {
  return Object.fromEntries(Object.entries(settingsFor(slug, settings)).filter(([, value]) => value != null));
}

const TestResultRef = builder.objectRef<TestResult>('IntegrationTestResult').implement({
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    message: t.exposeString('message'),
    status: t.exposeString('status', { description: '`sent`, `failed` or `recorded`.' }),
  }),
});

builder.mutationFields((t) => ({
  integrationSetUp: t.field({
    type: payloadType('IntegrationSetUpPayload', 'integration', IntegrationRef),
    description: 'Sets up or updates a group integration (REST `PUT /groups/:id/integrations/:slug`). Maintainers and above.',
    args: { input: t.arg({ type: SetUpInput, required: true }) },
    resolve: (_r, { input }, ctx: Context) =>
      asPayload(
        'integration',
        async () => {
          return setUpIntegration(ctx, {
            group: groupRef(input),
            slug: input.slug,
            useInheritedSettings: input.useInheritedSettings,
            events: eventsGiven(input),
            settings: settingsFor(input.slug, input.settings as SettingsArg),
          });
        },
        input,
      ),
  }),
  integrationUpdate: t.field({
    type: payloadType('IntegrationUpdatePayload', 'integration', IntegrationRef),
    description:
      'Changes the given settings and event flags of a group integration that is set up, keeping the others (secrets included). A change of a field that says where the integration sends (URL, host, server, subdomain) needs its secrets given again. Maintainers and above.',
    args: { input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_r, { input }, ctx: Context) =>
      asPayload(
        'integration',
        () => {
          return updateIntegration(ctx, {
            group: groupRef(input),
            slug: input.slug,
            events: eventsGiven(input),
            settings: partialSettingsFor(input.slug, input.settings as SettingsArg),
          });
        },
        input,
      ),
  }),
  integrationDisable: t.field({
    type: payloadType('IntegrationDisablePayload', 'integration', IntegrationRef),
    description: 'Disables a group integration and resets its settings. Maintainers and above.',
    args: { input: t.arg({ type: SlugInput('IntegrationDisableInput'), required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => disableIntegration(ctx, groupRef(input), input.slug), input),
  }),
  integrationTest: t.field({
    type: payloadType('IntegrationTestPayload', 'result', TestResultRef),
    description: 'Sends a sample notification through the integration now and reports the outcome.',
    args: { input: t.arg({ type: SlugInput('IntegrationTestInput'), required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('result', () => testIntegration(ctx, groupRef(input), input.slug), input),
  }),
}));
