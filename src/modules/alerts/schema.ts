import { ParamError } from '../../core/errors.ts';
import { builder, databaseIdOf, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadClientMutationIdField, payloadErrorsField, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import { UserRef } from '../users/index.ts';
import {
  createIntegration,
  destroyIntegration,
  integrationUrl,
  listIntegrations,
  resetIntegrationKey,
  updateIntegration,
  type IntegrationWithKey,
} from './integrations.ts';
import { MAPPABLE_FIELDS, type AttributeMapping } from './payload.ts';
import {
  ALERT_SEVERITIES,
  ALERT_SORTS,
  ALERT_STATUSES,
  alertStatusCounts,
  createAlertIncident,
  findAlert,
  listAlerts,
  changedAlert,
  parseIid,
  readSettings,
  sendTestAlert,
  setAlertAssignees,
  setAlertStatus,
  updateSettings,
  watchAlerts,
} from './service.ts';
import type { AlertChange } from './stream.ts';

const upper = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as { [K in V as Uppercase<K>]: { value: K } };

const StatusEnum = builder.enumType('AlertManagementStatus', { values: upper(ALERT_STATUSES) });
const SeverityEnum = builder.enumType('AlertManagementSeverity', { values: upper(ALERT_SEVERITIES) });
const SortEnum = builder.enumType('AlertManagementAlertSort', { values: upper(ALERT_SORTS) });
const IntegrationTypeEnum = builder.enumType('AlertManagementIntegrationType', { values: upper(['http', 'prometheus'] as const) });
const FieldNameEnum = builder.enumType('AlertManagementPayloadAlertFieldName', { values: upper(MAPPABLE_FIELDS) });
const FieldTypeEnum = builder.enumType('AlertManagementPayloadAlertFieldType', { values: upper(['array', 'datetime', 'string', 'number'] as const) });
const AssigneeModeEnum = builder.enumType('MutationOperationMode', { values: upper(['replace', 'append', 'remove'] as const) });

const MappingRef = builder.objectRef<AttributeMapping>('AlertManagementPayloadAlertMappingField').implement({
  description: 'Which path of the payload feeds which alert field.',
  fields: (t) => ({
    fieldName: t.field({ type: FieldNameEnum, resolve: (m) => m.fieldName }),
    path: t.stringList({ resolve: (m) => m.path }),
    type: t.field({ type: FieldTypeEnum, resolve: (m) => m.type as 'string' }),
    label: t.string({ nullable: true, resolve: (m) => m.label ?? null }),
  }),
});

const IntegrationRef = builder.objectRef<IntegrationWithKey>('AlertManagementHttpIntegration').implement({
  description: 'An endpoint that receives alerts (HTTP, or the metrics format with type PROMETHEUS).',
  fields: (t) => ({
    id: t.id({ resolve: (i) => gid('AlertManagement::HttpIntegration', i.id) }),
    type: t.field({ type: IntegrationTypeEnum, resolve: (i) => i.type }),
    name: t.exposeString('name'),
    active: t.exposeBoolean('active'),
    token: t.string({
      nullable: true,
      description: 'The authorization key: only in the payload that created or reset it (stored as a digest).',
      resolve: (i) => i.plainToken ?? null,
    }),
    url: t.string({ resolve: (i, _a, ctx) => integrationUrl(ctx.deps.config.externalUrl, i, i.project) }),
    payloadExample: t.string({ nullable: true, resolve: (i) => i.payloadExample }),
    payloadAttributeMappings: t.field({ type: [MappingRef], resolve: (i) => (i.payloadAttributeMappings ?? []) as AttributeMapping[] }),
  }),
});

const IssueRef = builder.prismaObject('Issue', {
  description: 'A project issue; alerts open issues of type incident.',
  fields: (t) => ({
    id: t.id({ resolve: (i) => gid('Issue', i.id) }),
    iid: t.string({ resolve: (i) => String(i.iid) }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    state: t.exposeString('state', { description: 'opened or closed.' }),
    type: t.string({ description: 'INCIDENT for incidents.', resolve: (i) => i.issueType.toUpperCase() }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    closedAt: t.expose('closedAt', { type: 'Time', nullable: true }),
  }),
});

const AlertRef = builder.prismaObject('Alert', {
  name: 'AlertManagementAlert',
  fields: (t) => ({
    id: t.id({ resolve: (a) => gid('AlertManagement::Alert', a.id) }),
    iid: t.string({ resolve: (a) => String(a.iid) }),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    severity: t.expose('severity', { type: SeverityEnum }),
    status: t.expose('status', { type: StatusEnum }),
    service: t.exposeString('service', { nullable: true }),
    monitoringTool: t.exposeString('monitoringTool', { nullable: true }),
    hosts: t.exposeStringList('hosts'),
    environment: t.string({ nullable: true, description: 'Name of the environment the payload named.', resolve: (a) => a.environment }),
    runbook: t.exposeString('runbook', { nullable: true }),
    fingerprint: t.exposeString('fingerprint', { nullable: true }),
    eventCount: t.exposeInt('events'),
    startedAt: t.expose('startedAt', { type: 'Time' }),
    endedAt: t.expose('endedAt', { type: 'Time', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
    details: t.field({ type: 'JSON', description: 'The payload as received.', resolve: (a) => a.payload }),
    assignees: t.prismaField({
      type: [UserRef],
      select: { assignees: { select: { user: true } } },
      resolve: (_q, a) => (a as unknown as { assignees: { user: never }[] }).assignees.map((x) => x.user),
    }),
    issue: t.relation('issue', { type: IssueRef, nullable: true }),
  }),
});

const CountsRef = builder.objectRef<Awaited<ReturnType<typeof alertStatusCounts>>>('AlertManagementAlertStatusCountsType').implement({
  fields: (t) => ({
    all: t.exposeInt('all'),
    open: t.exposeInt('open'),
    triggered: t.exposeInt('triggered'),
    acknowledged: t.exposeInt('acknowledged'),
    resolved: t.exposeInt('resolved'),
    ignored: t.exposeInt('ignored'),
  }),
});

const SettingsRef = builder.objectRef<Awaited<ReturnType<typeof readSettings>>>('ProjectAlertManagementSettings').implement({
  description: "The project's incident settings for alerts.",
  fields: (t) => ({
    createIssue: t.exposeBoolean('createIssue', { description: 'A new alert opens an incident.' }),
    sendEmail: t.exposeBoolean('sendEmail'),
    autoCloseIncident: t.exposeBoolean('autoCloseIncident', { description: 'A resolved alert closes its incident.' }),
  }),
});

const iidArg = (iid: string | null | undefined) => (iid == null ? null : parseIid(iid));

builder.objectFields(ProjectRef, (t) => ({
  alertManagementAlerts: t.connection({
    type: AlertRef,
    description: 'Alerts of the project (Developer and above).',
    args: {
      iid: t.arg.string(),
      statuses: t.arg({ type: [StatusEnum] }),
      severities: t.arg({ type: [SeverityEnum] }),
      search: t.arg.string(),
      sort: t.arg({ type: SortEnum }),
      assigneeUsername: t.arg.string(),
    },
    resolve: async (project, args, ctx) => pagedConnection(args, await listAlerts(ctx, project, { ...args, iid: iidArg(args.iid) })),
  }),
  alertManagementAlert: t.field({
    type: AlertRef,
    nullable: true,
    args: { iid: t.arg.string({ required: true }) },
    resolve: (project, args, ctx) => findAlert(ctx, project, parseIid(args.iid)),
  }),
  alertManagementAlertStatusCounts: t.field({
    type: CountsRef,
    args: { search: t.arg.string() },
    resolve: (project, args, ctx) => alertStatusCounts(ctx, project, args.search),
  }),
  alertManagementIntegrations: t.connection({
    type: IntegrationRef,
    description: 'Alert endpoints of the project (Maintainer and above).',
    resolve: async (project, args, ctx) => pagedConnection(args, await listIntegrations(ctx, project)),
  }),
  alertManagementHttpIntegrations: t.connection({
    type: IntegrationRef,
    resolve: async (project, args, ctx) => pagedConnection(args, await listIntegrations(ctx, project, 'http')),
  }),
  alertManagementSettings: t.field({
    type: SettingsRef,
    description: 'Incident settings for alerts (Maintainer and above).',
    resolve: (project, _a, ctx) => readSettings(ctx, project),
  }),
}));

function integrationId(id: string | number): number {
  const value = databaseIdOf('AlertManagement::HttpIntegration', id);
  if (value === null) throw new ParamError(`${id} is not a valid AlertManagementHttpIntegrationID`);
  return value;
}

const MappingInput = builder.inputType('AlertManagementPayloadAlertFieldInput', {
  fields: (t) => ({
    fieldName: t.field({ type: FieldNameEnum, required: true }),
    path: t.stringList({ required: true }),
    type: t.field({ type: FieldTypeEnum, required: true }),
    label: t.string(),
  }),
});

const IntegrationPayload = (name: string) => payloadType(name, 'integration', IntegrationRef);

const HttpCreateInput = mutationInput('HttpIntegrationCreateInput', (t) => ({
  ...projectInputFields(t),
  name: t.string({ required: true }),
  active: t.boolean({ required: true }),
  payloadExample: t.string({ description: 'A sample payload (JSON object) the mapping is taken from.' }),
  payloadAttributeMappings: t.field({ type: [MappingInput] }),
}));
const httpIntegrationId = (t: InputFields) =>
  t.field({ type: 'AlertManagementHttpIntegrationID', required: true, description: 'ID of the integration to mutate.' });
const HttpUpdateInput = mutationInput('HttpIntegrationUpdateInput', (t) => ({
  id: httpIntegrationId(t),
  name: t.string(),
  active: t.boolean(),
  payloadExample: t.string(),
  payloadAttributeMappings: t.field({ type: [MappingInput] }),
}));
const PrometheusCreateInput = mutationInput('PrometheusIntegrationCreateInput', (t) => ({
  ...projectInputFields(t),
  active: t.boolean({ required: true }),
  apiUrl: t.string({ description: 'Deprecated; accepted and ignored.' }),
}));
const PrometheusUpdateInput = mutationInput('PrometheusIntegrationUpdateInput', (t) => ({
  id: t.id({ required: true }),
  active: t.boolean(),
  apiUrl: t.string({ description: 'Deprecated; accepted and ignored.' }),
}));
const idInput = (name: string) => mutationInput(name, (t) => ({ id: t.id({ required: true }) }));
const HttpResetInput = mutationInput('HttpIntegrationResetTokenInput', (t) => ({ id: httpIntegrationId(t) }));
const HttpDestroyInput = mutationInput('HttpIntegrationDestroyInput', (t) => ({ id: httpIntegrationId(t) }));
const PrometheusResetInput = idInput('PrometheusIntegrationResetTokenInput');

const mappingsOf = (m: { fieldName: string; path: string[]; type: string; label?: string | null }[] | null | undefined) => m ?? undefined;

builder.mutationFields((t) => ({
  httpIntegrationCreate: t.field({
    type: IntegrationPayload('HttpIntegrationCreatePayload'),
    args: { input: t.arg({ type: HttpCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'integration',
        () => createIntegration(ctx, input, 'http', { ...input, payloadAttributeMappings: mappingsOf(input.payloadAttributeMappings) }),
        input,
      ),
  }),
  httpIntegrationUpdate: t.field({
    type: IntegrationPayload('HttpIntegrationUpdatePayload'),
    args: { input: t.arg({ type: HttpUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'integration',
        () => updateIntegration(ctx, input.id, 'http', { ...input, payloadAttributeMappings: mappingsOf(input.payloadAttributeMappings) }),
        input,
      ),
  }),
  httpIntegrationResetToken: t.field({
    type: IntegrationPayload('HttpIntegrationResetTokenPayload'),
    args: { input: t.arg({ type: HttpResetInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => resetIntegrationKey(ctx, input.id, 'http'), input),
  }),
  httpIntegrationDestroy: t.field({
    type: IntegrationPayload('HttpIntegrationDestroyPayload'),
    args: { input: t.arg({ type: HttpDestroyInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => destroyIntegration(ctx, input.id, 'http'), input),
  }),
  prometheusIntegrationCreate: t.field({
    type: IntegrationPayload('PrometheusIntegrationCreatePayload'),
    args: { input: t.arg({ type: PrometheusCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => createIntegration(ctx, input, 'prometheus', { active: input.active }), input),
  }),
  prometheusIntegrationUpdate: t.field({
    type: IntegrationPayload('PrometheusIntegrationUpdatePayload'),
    args: { input: t.arg({ type: PrometheusUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('integration', () => updateIntegration(ctx, integrationId(input.id), 'prometheus', { active: input.active }), input),
  }),
  prometheusIntegrationResetToken: t.field({
    type: IntegrationPayload('PrometheusIntegrationResetTokenPayload'),
    args: { input: t.arg({ type: PrometheusResetInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => resetIntegrationKey(ctx, integrationId(input.id), 'prometheus'), input),
  }),
}));

const StatusInput = mutationInput('UpdateAlertStatusInput', (t) => ({
  ...projectInputFields(t),
  iid: t.string({ required: true }),
  status: t.field({ type: StatusEnum, required: true }),
}));
const AssigneesInput = mutationInput('AlertSetAssigneesInput', (t) => ({
  ...projectInputFields(t),
  iid: t.string({ required: true }),
  assigneeUsernames: t.stringList({ required: true }),
  operationMode: t.field({ type: AssigneeModeEnum }),
}));
const CreateIssueInput = mutationInput('AlertCreateIssueInput', (t) => ({
  ...projectInputFields(t),
  iid: t.string({ required: true }),
}));
const TestAlertInput = mutationInput('AlertManagementAlertTestInput', (t) => ({
  ...projectInputFields(t),
  integrationId: t.field({ type: 'AlertManagementHttpIntegrationID', required: true, description: 'Global ID of the endpoint.' }),
  payload: t.string({ required: true, description: 'The JSON payload, as a monitoring tool would post it.' }),
}));
const SettingsInput = mutationInput('AlertManagementSettingsUpdateInput', (t) => ({
  ...projectInputFields(t),
  createIssue: t.boolean(),
  sendEmail: t.boolean(),
  autoCloseIncident: t.boolean(),
}));

const AlertPayload = (name: string) =>
  builder
    .objectRef<{ alert: typeof AlertRef.$inferType | null; issue?: typeof IssueRef.$inferType | null; errors: string[]; clientMutationId?: string | null }>(
      name,
    )
    .implement({
      fields: (t) => ({
        alert: t.field({ type: AlertRef, nullable: true, resolve: (p) => p.alert }),
        issue: t.field({ type: IssueRef, nullable: true, resolve: (p) => p.issue ?? null }),
        errors: payloadErrorsField(t),
        clientMutationId: payloadClientMutationIdField(t),
      }),
    });

builder.mutationFields((t) => ({
  updateAlertStatus: t.field({
    type: AlertPayload('UpdateAlertStatusPayload'),
    args: { input: t.arg({ type: StatusInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('alert', () => setAlertStatus(ctx, input, parseIid(input.iid), input.status), input),
  }),
  alertSetAssignees: t.field({
    type: AlertPayload('AlertSetAssigneesPayload'),
    args: { input: t.arg({ type: AssigneesInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('alert', () => setAlertAssignees(ctx, input, parseIid(input.iid), input.assigneeUsernames, input.operationMode ?? 'replace'), input),
  }),
  createAlertIssue: t.field({
    type: AlertPayload('AlertCreateIssuePayload'),
    args: { input: t.arg({ type: CreateIssueInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const payload = await asPayload('created', () => createAlertIncident(ctx, input, parseIid(input.iid)), input);
      return {
        alert: payload.created?.alert ?? null,
        issue: payload.created?.issue ?? null,
        errors: payload.errors,
        clientMutationId: payload.clientMutationId,
      };
    },
  }),
  alertManagementAlertTest: t.field({
    type: builder
      .objectRef<{ alerts?: (typeof AlertRef.$inferType)[] | null; errors: string[]; clientMutationId?: string | null }>('AlertManagementAlertTestPayload')
      .implement({
        fields: (f) => ({
          alerts: f.field({
            type: [AlertRef],
            nullable: true,
            description: 'The alerts the test payload created or grouped.',
            resolve: (p) => p.alerts ?? null,
          }),
          errors: payloadErrorsField(f),
          clientMutationId: payloadClientMutationIdField(f),
        }),
      }),
    description: 'Sends a test alert with a JSON payload to an endpoint (Maintainer and above).',
    args: { input: t.arg({ type: TestAlertInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('alerts', () => sendTestAlert(ctx, input, input.integrationId, input.payload), input),
  }),
  alertManagementSettingsUpdate: t.field({
    type: payloadType('AlertManagementSettingsUpdatePayload', 'settings', SettingsRef),
    args: { input: t.arg({ type: SettingsInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('settings', () => updateSettings(ctx, input, input), input),
  }),
}));

builder.subscriptionFields((t) => ({
  alertManagementAlertUpdated: t.field({
    type: AlertRef,
    nullable: true,
    description: 'New and changed alerts of the project, as they happen (Developer and above); served over server-sent events.',
    args: { projectPath: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx) => watchAlerts(ctx, String(args.projectPath)),
    resolve: (change: AlertChange, _args, ctx) => changedAlert(ctx, change),
  }),
}));
