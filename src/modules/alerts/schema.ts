import { createHash } from 'node:crypto';
import type { Alert, AlertIntegrationType, AlertNote, AlertSeverity, AlertStatus, Issue, Todo } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { ParamError } from '../../core/errors.ts';
import { loadExisting } from '../../core/loaders.ts';
import { builder, databaseIdOf, gid } from '../../graphql/builder.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import {
  asPayload,
  mutationInput,
  payloadClientMutationIdField,
  payloadErrorsField,
  payloadType,
  type InputFields,
  type Types,
} from '../../graphql/payloads.ts';
import { TodoConnectionRef, TodoRef } from '../epics/index.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import { projectFullPath } from '../projects/service.ts';
import { renderMarkdown } from '../releases/markdown.ts';
import { UserCoreConnectionRef, UserRef } from '../users/index.ts';
import {
  createIntegration,
  destroyIntegration,
  INTEGRATION_CLASSES,
  integrationUrl,
  listIntegrations,
  resetIntegrationKey,
  samplePayloadFields,
  updateIntegration,
  type IntegrationWithKey,
} from './integrations.ts';
import { discussionIdOf, SYSTEM_NOTE_ICONS, type SystemAction } from './notes.ts';
import { MAPPABLE_FIELDS, payloadFields, type AttributeMapping, type Json, type PayloadField } from './payload.ts';
import {
  ALERT_DOMAINS,
  ALERT_SEVERITIES,
  ALERT_SORTS,
  ALERT_STATUSES,
  alertStatusCounts,
  changedAlert,
  createAlertIncident,
  createAlertNote,
  createAlertTodo,
  listAlerts,
  parseIid,
  readSettings,
  sendTestAlert,
  setAlertAssignees,
  setAlertStatus,
  updateSettings,
  watchAlerts,
  type AlertDomain,
  type AlertSort,
} from './service.ts';
import type { AlertChange } from './stream.ts';

const upper = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as { [K in V as Uppercase<K>]: { value: K } };
const same = <V extends string>(values: readonly V[]) => Object.fromEntries(values.map((value) => [value, { value }])) as { [K in V]: { value: K } };

const StatusEnum = builder.enumType('AlertManagementStatus', { values: upper(ALERT_STATUSES) });
const SeverityEnum = builder.enumType('AlertManagementSeverity', { values: upper(ALERT_SEVERITIES) });
// GitLab keeps its first, lower-case names of the generic sorts beside the upper-case ones.
const SortEnum = builder.enumType('AlertManagementAlertSort', {
  values: { ...upper(ALERT_SORTS), ...same(['created_asc', 'created_desc', 'updated_asc', 'updated_desc'] as const) },
});
const DomainEnum = builder.enumType('AlertManagementDomainFilter', { values: same(ALERT_DOMAINS) });
const IntegrationTypeEnum = builder.enumType('AlertManagementIntegrationType', { values: upper(['http', 'prometheus'] as const) });
const FieldNameEnum = builder.enumType('AlertManagementPayloadAlertFieldName', { values: upper(MAPPABLE_FIELDS) });
const FieldTypeEnum = builder.enumType('AlertManagementPayloadAlertFieldType', { values: upper(['array', 'datetime', 'string'] as const) });
const AssigneeModeEnum = builder.enumType('MutationOperationMode', { values: upper(['replace', 'append', 'remove'] as const) });
const IssueStateEnum = builder.enumType('IssueState', { values: same(['opened', 'closed', 'locked', 'all'] as const) });
const IssueTypeEnum = builder.enumType('IssueType', {
  values: upper(['issue', 'incident', 'test_case', 'requirement', 'task', 'ticket', 'objective', 'key_result', 'epic'] as const),
});

builder.scalarType('JsonString', {
  description: 'JSON object as raw string',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string') throw new ParamError('JsonString must be a string');
    return value;
  },
});

// GitLab's path segments are keys (strings) or array indexes (integers); forgegate keeps them as text.
builder.scalarType('PayloadAlertFieldPathSegment', {
  description: 'String or integer.',
  serialize: (value) => (/^\d+$/.test(String(value)) ? Number(value) : String(value)) as unknown as string,
  parseValue: (value) => {
    if (typeof value !== 'string' && !Number.isInteger(value)) throw new ParamError('PayloadAlertFieldPathSegment must be a string or an integer');
    return String(value);
  },
});

const MappingRef = builder.objectRef<AttributeMapping>('AlertManagementPayloadAlertMappingField').implement({
  description: 'Which path of the payload feeds which alert field.',
  fields: (t) => ({
    fieldName: t.field({ type: FieldNameEnum, nullable: true, resolve: (m) => m.fieldName }),
    path: t.field({ type: ['PayloadAlertFieldPathSegment'], nullable: true, resolve: (m) => m.path }),
    type: t.field({ type: FieldTypeEnum, nullable: true, resolve: (m) => m.type as 'string' }),
    label: t.string({ nullable: true, resolve: (m) => m.label ?? null }),
  }),
});

const PayloadFieldRef = builder.objectRef<PayloadField>('AlertManagementPayloadAlertField').implement({
  description: 'A field of a sample payload that a custom mapping can take an alert attribute from.',
  fields: (t) => ({
    path: t.field({ type: ['PayloadAlertFieldPathSegment'], nullable: true, resolve: (f) => f.path }),
    label: t.string({ nullable: true, resolve: (f) => f.label }),
    type: t.field({ type: FieldTypeEnum, nullable: true, resolve: (f) => f.type }),
  }),
});

/** The fields of a sample payload, or none when it is not a JSON object (the stored sample was checked when saved). */
const fieldsOfSample = (example: string | null): PayloadField[] => {
  const sample = example ? (JSON.parse(example) as Json) : null;
  return sample && typeof sample === 'object' && !Array.isArray(sample) ? payloadFields(sample) : [];
};

const IntegrationInterface = builder.interfaceRef<IntegrationWithKey>('AlertManagementIntegration').implement({
  description: 'An endpoint that receives alerts: an HTTP endpoint, or the Prometheus one.',
  resolveType: (i) => (i.type === 'prometheus' ? 'AlertManagementPrometheusIntegration' : 'AlertManagementHttpIntegration'),
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (i) => gid(INTEGRATION_CLASSES[i.type], i.id) }),
    type: t.field({ type: IntegrationTypeEnum, nullable: false, resolve: (i) => i.type }),
    name: t.string({ nullable: true, resolve: (i) => i.name }),
    active: t.boolean({ nullable: true, resolve: (i) => i.active }),
    token: t.string({
      nullable: true,
      description: 'The authorization key: only in the payload that created or reset it (stored as a digest).',
      resolve: (i) => i.plainToken ?? null,
    }),
    url: t.string({ nullable: true, resolve: (i, _a, ctx) => integrationUrl(ctx.deps.config.externalUrl, i, i.project) }),
    apiUrl: t.string({ nullable: true, description: 'Prometheus is not queried by forgegate: always null.', resolve: () => null }),
  }),
});

const IntegrationRef = builder.objectRef<IntegrationWithKey>('AlertManagementHttpIntegration').implement({
  description: 'An HTTP endpoint that receives alerts, with its custom mapping.',
  interfaces: [IntegrationInterface],
  isTypeOf: (i) => (i as IntegrationWithKey).type === 'http',
  fields: (t) => ({
    payloadExample: t.field({ type: 'JsonString', nullable: true, resolve: (i) => i.payloadExample }),
    payloadAttributeMappings: t.field({
      type: [MappingRef],
      nullable: true,
      resolve: (i) => (i.payloadAttributeMappings ?? []) as AttributeMapping[],
    }),
    payloadAlertFields: t.field({ type: [PayloadFieldRef], nullable: true, resolve: (i) => fieldsOfSample(i.payloadExample) }),
  }),
});

const PrometheusIntegrationRef = builder.objectRef<IntegrationWithKey>('AlertManagementPrometheusIntegration').implement({
  description: "The project's Prometheus endpoint (Alertmanager's format).",
  interfaces: [IntegrationInterface],
  isTypeOf: (i) => (i as IntegrationWithKey).type === 'prometheus',
  fields: () => ({}),
});

/** An issue's address on the web: incidents are issues too. */
const issueWebPath = async (ctx: Context, issue: Issue): Promise<string> => {
  const project = await ctx.loaders.project.load(issue.projectId);
  return `/${projectFullPath(project!)}/-/issues/${issue.iid}`;
};

const IssueRef = builder.prismaObject('Issue', {
  description: 'A project issue; alerts open issues of type incident.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (i) => gid('Issue', i.id) }),
    iid: t.id({ nullable: false, resolve: (i) => String(i.iid) }),
    title: t.exposeString('title', { nullable: false }),
    description: t.exposeString('description', { nullable: true }),
    state: t.field({ type: IssueStateEnum, nullable: false, resolve: (i) => i.state as 'opened' | 'closed' }),
    type: t.field({ type: IssueTypeEnum, nullable: true, resolve: (i) => i.issueType as 'issue' | 'incident' }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    closedAt: t.expose('closedAt', { type: 'Time', nullable: true }),
    webPath: t.string({ nullable: false, resolve: (i, _a, ctx) => issueWebPath(ctx, i) }),
    webUrl: t.string({ nullable: false, resolve: async (i, _a, ctx) => `${ctx.deps.config.externalUrl}${await issueWebPath(ctx, i)}` }),
  }),
});

/**
 * An alert's environment. forgegate keeps the name the payload gave (`gitlab_environment_name`),
 * not environment records, so the id is derived from the project and the name: the same
 * environment has the same id on every alert.
 */
type AlertEnvironment = { projectId: number; name: string };
const environmentId = (e: AlertEnvironment) => Number.parseInt(createHash('sha1').update(`${e.projectId}:${e.name}`).digest('hex').slice(0, 12), 16);

const EnvironmentRef = builder.objectRef<AlertEnvironment>('Environment').implement({
  description: 'The environment an alert came from.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (e) => gid('Environment', environmentId(e)) }),
    name: t.string({ nullable: false, resolve: (e) => e.name }),
    path: t.string({
      nullable: false,
      resolve: async (e, _a, ctx) => `/${projectFullPath((await ctx.loaders.project.load(e.projectId))!)}/-/environments/${environmentId(e)}`,
    }),
  }),
});

type Discussion = { id: number; alertId: number; createdAt: Date };

const NoteRef = builder.objectRef<AlertNote>('Note');
const DiscussionRef = builder.objectRef<Discussion>('Discussion');

NoteRef.implement({
  description: 'A note on an alert: a comment, or a system note of a change.',
  fields: (t) => ({
    id: t.field({ type: 'NoteID', nullable: false, resolve: (n) => n.id }),
    author: t.field({ type: UserRef, nullable: true, resolve: (n, _a, ctx) => (n.authorId == null ? null : ctx.loaders.user.load(n.authorId)) }),
    body: t.exposeString('body', { nullable: false }),
    bodyHtml: t.string({ nullable: true, resolve: (n) => renderMarkdown(n.body) }),
    system: t.exposeBoolean('system', { nullable: false }),
    systemNoteIconName: t.string({ nullable: true, resolve: (n) => (n.systemAction ? SYSTEM_NOTE_ICONS[n.systemAction as SystemAction] : null) }),
    internal: t.boolean({ nullable: true, description: 'Alerts have no internal notes.', resolve: () => false }),
    resolvable: t.boolean({ nullable: false, resolve: () => false }),
    resolved: t.boolean({ nullable: false, resolve: () => false }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false }),
    discussion: t.field({
      type: DiscussionRef,
      nullable: true,
      resolve: async (n, _a, ctx) => {
        const id = discussionIdOf(n);
        const first = id === n.id ? n : (await ctx.loaders.alerts.notes.load(n.alertId)).find((x) => x.id === id);
        return { id, alertId: n.alertId, createdAt: (first ?? n).createdAt };
      },
    }),
  }),
});

const NoteConnectionRef = builder.connectionObject({ type: NoteRef, name: 'NoteConnection' }, { name: 'NoteEdge' });

DiscussionRef.implement({
  description: 'A thread of notes on an alert.',
  fields: (t) => ({
    id: t.field({ type: 'DiscussionID', nullable: false, resolve: (d) => d.id }),
    replyId: t.field({ type: 'DiscussionID', nullable: false, description: 'The id to reply to this discussion with.', resolve: (d) => d.id }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false }),
    resolvable: t.boolean({ nullable: false, resolve: () => false }),
    resolved: t.boolean({ nullable: false, resolve: () => false }),
    notes: t.connection(
      {
        type: NoteRef,
        nullable: false,
        resolve: async (d, args, ctx) =>
          listConnection(
            args,
            (await ctx.loaders.alerts.notes.load(d.alertId)).filter((n) => discussionIdOf(n) === d.id),
          ),
      },
      NoteConnectionRef,
    ),
  }),
});

/** The alert's page: GitLab's details URL. */
const alertDetailsUrl = async (ctx: Context, a: Alert) =>
  `${ctx.deps.config.externalUrl}/${projectFullPath((await ctx.loaders.project.load(a.projectId))!)}/-/alert_management/${a.iid}/details`;

/** The alert's discussions, each from its first note. */
const discussionsOf = (notes: readonly AlertNote[]): Discussion[] =>
  notes.filter((n) => n.discussionId == null).map((n) => ({ id: n.id, alertId: n.alertId, createdAt: n.createdAt }));

const AlertRef = builder.prismaObject('Alert', {
  name: 'AlertManagementAlert',
  description: "An alert of the project's alert management.",
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (a) => gid('AlertManagement::Alert', a.id) }),
    iid: t.id({ nullable: false, resolve: (a) => String(a.iid) }),
    title: t.exposeString('title', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    severity: t.expose('severity', { type: SeverityEnum, nullable: true }),
    status: t.expose('status', { type: StatusEnum, nullable: true }),
    service: t.exposeString('service', { nullable: true }),
    monitoringTool: t.exposeString('monitoringTool', { nullable: true }),
    hosts: t.stringList({ nullable: { list: true, items: true }, resolve: (a) => a.hosts }),
    environment: t.field({
      type: EnvironmentRef,
      nullable: true,
      description: 'The environment the payload named (`gitlab_environment_name`).',
      resolve: (a) => (a.environment ? { projectId: a.projectId, name: a.environment } : null),
    }),
    runbook: t.exposeString('runbook', { nullable: true }),
    fingerprint: t.exposeString('fingerprint', { nullable: true }),
    eventCount: t.exposeInt('events', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'Time', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'Time', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: true }),
    details: t.field({ type: 'JSON', nullable: true, description: 'The payload as received.', resolve: (a) => a.payload }),
    assignees: t.connection(
      { type: UserRef, nullable: true, resolve: async (a, args, ctx) => listConnection(args, await ctx.loaders.alerts.assignees.load(a.id)) },
      UserCoreConnectionRef,
    ),
    issue: t.relation('issue', { type: IssueRef, nullable: true }),
    issueIid: t.id({
      nullable: true,
      deprecationReason: 'Use issue field. Deprecated in GitLab 13.10.',
      resolve: async (a, _args, ctx) => (a.issueId == null ? null : String((await ctx.db.issue.findUnique({ where: { id: a.issueId } }))?.iid ?? '')),
    }),
    metricsDashboardUrl: t.string({
      nullable: true,
      deprecationReason: 'Returns no data. Underlying feature was removed in 16.0. Deprecated in GitLab 16.0.',
      resolve: () => null,
    }),
    detailsUrl: t.string({ nullable: false, resolve: (a, _args, ctx) => alertDetailsUrl(ctx, a) }),
    webUrl: t.string({ nullable: false, resolve: (a, _args, ctx) => alertDetailsUrl(ctx, a) }),
    todos: t.connection(
      {
        type: TodoRef,
        nullable: true,
        description: "The current user's pending to-dos for the alert.",
        resolve: async (a, args, ctx) => listConnection(args, await ctx.loaders.alerts.viewerTodos.load(a.id)),
      },
      TodoConnectionRef,
    ),
    notes: t.connection(
      {
        type: NoteRef,
        nullable: false,
        description: 'Comments and system notes, oldest first.',
        resolve: async (a, args, ctx) => listConnection(args, await ctx.loaders.alerts.notes.load(a.id)),
      },
      NoteConnectionRef,
    ),
    discussions: t.connection(
      { type: DiscussionRef, nullable: false, resolve: async (a, args, ctx) => listConnection(args, discussionsOf(await ctx.loaders.alerts.notes.load(a.id))) },
      { name: 'DiscussionConnection' },
      { name: 'DiscussionEdge' },
    ),
    commenters: t.connection(
      {
        type: UserRef,
        nullable: false,
        description: 'The users who commented on the alert (system notes left out).',
        resolve: async (a, args, ctx) => {
          const ids = [...new Set((await ctx.loaders.alerts.notes.load(a.id)).flatMap((n) => (!n.system && n.authorId != null ? [n.authorId] : [])))];
          return listConnection(args, await loadExisting(ctx.loaders.user, ids));
        },
      },
      UserCoreConnectionRef,
    ),
  }),
});

builder.objectFields(TodoRef, (t) => ({
  project: t.field({
    type: ProjectRef,
    nullable: true,
    description: "The project of an alert's to-do.",
    resolve: (todo, _a, ctx) => (todo.projectId == null ? null : ctx.loaders.project.load(todo.projectId)),
  }),
}));

const CountsRef = builder.objectRef<Awaited<ReturnType<typeof alertStatusCounts>>>('AlertManagementAlertStatusCountsType').implement({
  description: "Counts of the project's alerts by status.",
  fields: (t) => ({
    all: t.exposeInt('all', { nullable: true }),
    open: t.exposeInt('open', { nullable: true }),
    triggered: t.exposeInt('triggered', { nullable: true }),
    acknowledged: t.exposeInt('acknowledged', { nullable: true }),
    resolved: t.exposeInt('resolved', { nullable: true }),
    ignored: t.exposeInt('ignored', { nullable: true }),
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

/** GitLab's alert list arguments, shared by the list and the one-alert field. */
const alertArgs = (t: PothosSchemaTypes.FieldBuilder<Types, ProjectWithNamespace, 'Object'>) => ({
  iid: t.arg.string({ description: 'IID of the alert.' }),
  statuses: t.arg({ type: [StatusEnum] }),
  severities: t.arg({ type: [SeverityEnum], description: 'forgegate: only alerts of these severities.' }),
  search: t.arg.string(),
  sort: t.arg({ type: SortEnum }),
  assigneeUsername: t.arg.string(),
  domain: t.arg({ type: DomainEnum, required: true, defaultValue: 'operations' }),
});

type AlertArgs = {
  iid?: string | null;
  statuses?: AlertStatus[] | null;
  severities?: AlertSeverity[] | null;
  search?: string | null;
  sort?: AlertSort | null;
  assigneeUsername?: string | null;
  domain: AlertDomain;
};
const alertFilter = (args: AlertArgs) => ({ ...args, iid: iidArg(args.iid) });

builder.objectFields(ProjectRef, (t) => ({
  alertManagementAlerts: t.connection(
    {
      type: AlertRef,
      nullable: true,
      description: 'Alerts of the project (Developer and above).',
      args: alertArgs(t),
      resolve: async (project, args, ctx) => pagedConnection(args, await listAlerts(ctx, project, alertFilter(args))),
    },
    { name: 'AlertManagementAlertConnection' },
    { name: 'AlertManagementAlertEdge' },
  ),
  alertManagementAlert: t.field({
    type: AlertRef,
    nullable: true,
    description: 'The first alert the arguments select (GitLab takes the iid, as the alert page does).',
    args: alertArgs(t),
    resolve: async (project, args, ctx) => (await (await listAlerts(ctx, project, alertFilter(args))).fetch({ offset: 0, limit: 1 }))[0] ?? null,
  }),
  alertManagementAlertStatusCounts: t.field({
    type: CountsRef,
    nullable: true,
    args: { search: t.arg.string(), assigneeUsername: t.arg.string() },
    resolve: (project, args, ctx) => alertStatusCounts(ctx, project, args),
  }),
  alertManagementIntegrations: t.connection(
    {
      type: IntegrationInterface,
      nullable: true,
      description: 'Alert endpoints of the project (Maintainer and above).',
      resolve: async (project, args, ctx) => pagedConnection(args, await listIntegrations(ctx, project)),
    },
    { name: 'AlertManagementIntegrationConnection' },
    { name: 'AlertManagementIntegrationEdge' },
  ),
  alertManagementHttpIntegrations: t.connection(
    {
      type: IntegrationRef,
      nullable: true,
      description: 'HTTP endpoints of the project (Maintainer and above); `types` widens the list.',
      args: {
        id: t.arg({ type: 'AlertManagementHttpIntegrationID' }),
        types: t.arg({ type: [IntegrationTypeEnum], defaultValue: ['http'] }),
      },
      resolve: async (project, args, ctx) =>
        pagedConnection(args, await listIntegrations(ctx, project, { types: args.types ?? undefined, id: args.id ?? undefined })),
    },
    { name: 'AlertManagementHttpIntegrationConnection' },
    { name: 'AlertManagementHttpIntegrationEdge' },
  ),
  alertManagementPayloadFields: t.field({
    type: [PayloadFieldRef],
    nullable: true,
    description: "The fields of a sample payload, for an endpoint's custom mapping (Maintainer and above).",
    args: { payloadExample: t.arg.string({ required: true }) },
    resolve: (project, args, ctx) => samplePayloadFields(ctx, project, args.payloadExample),
  }),
  alertManagementSettings: t.field({
    type: SettingsRef,
    description: 'Incident settings for alerts (Maintainer and above).',
    resolve: (project, _a, ctx) => readSettings(ctx, project),
  }),
}));

/** An endpoint's id as GitLab's settings page sends it (`ID`): it must name an endpoint of that class. */
function integrationId(type: AlertIntegrationType, id: string | number): number {
  const value = databaseIdOf(INTEGRATION_CLASSES[type], id);
  if (value === null) throw new ParamError(`${id} is not a valid ${type === 'http' ? 'AlertManagementHttpIntegrationID' : 'IntegrationsPrometheusID'}`);
  return value;
}

const MappingInput = builder.inputType('AlertManagementPayloadAlertFieldInput', {
  description: 'Field that can be used in the mapping of a custom payload.',
  fields: (t) => ({
    fieldName: t.field({ type: FieldNameEnum, required: true }),
    path: t.field({ type: ['PayloadAlertFieldPathSegment'], required: true }),
    type: t.field({ type: FieldTypeEnum, required: true }),
    label: t.string(),
  }),
});

const HttpPayload = (name: string) => payloadType(name, 'integration', IntegrationRef);
const PrometheusPayload = (name: string) => payloadType(name, 'integration', PrometheusIntegrationRef);

const HttpCreateInput = mutationInput('HttpIntegrationCreateInput', (t) => ({
  ...projectInputFields(t),
  name: t.string({ required: true }),
  active: t.boolean({ required: true }),
  payloadExample: t.field({ type: 'JsonString', description: 'A sample payload (JSON object) the mapping is taken from.' }),
  payloadAttributeMappings: t.field({ type: [MappingInput] }),
}));
// GitLab declares AlertManagementHttpIntegrationID; its settings page sends `$id: ID!`, which a
// typed input would refuse (see test/gitlab-reference/alerts.ts).
const httpIntegrationId = (t: InputFields) => t.id({ required: true, description: 'ID of the integration to mutate.' });
const HttpUpdateInput = mutationInput('HttpIntegrationUpdateInput', (t) => ({
  id: httpIntegrationId(t),
  name: t.string(),
  active: t.boolean(),
  payloadExample: t.field({ type: 'JsonString' }),
  payloadAttributeMappings: t.field({ type: [MappingInput] }),
}));
const PrometheusCreateInput = mutationInput('PrometheusIntegrationCreateInput', (t) => ({
  ...projectInputFields(t),
  active: t.boolean({ required: true }),
  apiUrl: t.string({ description: 'Deprecated; accepted and ignored.' }),
}));
const prometheusId = (t: InputFields) => t.field({ type: 'IntegrationsPrometheusID', required: true, description: 'ID of the integration to mutate.' });
const PrometheusUpdateInput = mutationInput('PrometheusIntegrationUpdateInput', (t) => ({
  id: prometheusId(t),
  active: t.boolean(),
  apiUrl: t.string({ description: 'Deprecated; accepted and ignored.' }),
}));
const HttpResetInput = mutationInput('HttpIntegrationResetTokenInput', (t) => ({ id: httpIntegrationId(t) }));
const HttpDestroyInput = mutationInput('HttpIntegrationDestroyInput', (t) => ({ id: httpIntegrationId(t) }));
const PrometheusResetInput = mutationInput('PrometheusIntegrationResetTokenInput', (t) => ({ id: prometheusId(t) }));

type MappingArg = { fieldName: string; path: string[]; type: string; label?: string | null };
const mappingsOf = (m: MappingArg[] | null | undefined) => m ?? undefined;

builder.mutationFields((t) => ({
  httpIntegrationCreate: t.field({
    type: HttpPayload('HttpIntegrationCreatePayload'),
    args: { input: t.arg({ type: HttpCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'integration',
        () => createIntegration(ctx, input, 'http', { ...input, payloadAttributeMappings: mappingsOf(input.payloadAttributeMappings) }),
        input,
      ),
  }),
  httpIntegrationUpdate: t.field({
    type: HttpPayload('HttpIntegrationUpdatePayload'),
    args: { input: t.arg({ type: HttpUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload(
        'integration',
        () =>
          updateIntegration(ctx, integrationId('http', input.id), 'http', {
            ...input,
            payloadAttributeMappings: mappingsOf(input.payloadAttributeMappings),
          }),
        input,
      ),
  }),
  httpIntegrationResetToken: t.field({
    type: HttpPayload('HttpIntegrationResetTokenPayload'),
    args: { input: t.arg({ type: HttpResetInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => resetIntegrationKey(ctx, integrationId('http', input.id), 'http'), input),
  }),
  httpIntegrationDestroy: t.field({
    type: HttpPayload('HttpIntegrationDestroyPayload'),
    args: { input: t.arg({ type: HttpDestroyInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => destroyIntegration(ctx, integrationId('http', input.id), 'http'), input),
  }),
  prometheusIntegrationCreate: t.field({
    type: PrometheusPayload('PrometheusIntegrationCreatePayload'),
    args: { input: t.arg({ type: PrometheusCreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => createIntegration(ctx, input, 'prometheus', { active: input.active }), input),
  }),
  prometheusIntegrationUpdate: t.field({
    type: PrometheusPayload('PrometheusIntegrationUpdatePayload'),
    args: { input: t.arg({ type: PrometheusUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => updateIntegration(ctx, input.id, 'prometheus', { active: input.active }), input),
  }),
  prometheusIntegrationResetToken: t.field({
    type: PrometheusPayload('PrometheusIntegrationResetTokenPayload'),
    args: { input: t.arg({ type: PrometheusResetInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('integration', () => resetIntegrationKey(ctx, input.id, 'prometheus'), input),
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

type AlertPayloadShape = {
  alert: typeof AlertRef.$inferType | null;
  issue?: typeof IssueRef.$inferType | null;
  todo?: Todo | null;
  errors: string[];
  clientMutationId?: string | null;
};

/** GitLab's payload of every alert mutation: the alert, and the issue or to-do the mutation made. */
const AlertPayload = (name: string) =>
  builder.objectRef<AlertPayloadShape>(name).implement({
    fields: (t) => ({
      alert: t.field({ type: AlertRef, nullable: true, resolve: (p) => p.alert }),
      issue: t.field({ type: IssueRef, nullable: true, resolve: (p) => p.issue ?? null }),
      todo: t.field({ type: TodoRef, nullable: true, resolve: (p) => p.todo ?? null }),
      errors: payloadErrorsField(t),
      clientMutationId: payloadClientMutationIdField(t),
    }),
  });

const TodoInput = mutationInput('AlertTodoCreateInput', (t) => ({
  ...projectInputFields(t),
  iid: t.string({ required: true }),
}));

const NoteInput = mutationInput('CreateNoteInput', (t) => ({
  noteableId: t.field({ type: 'NoteableID', required: true, description: 'Global ID of the resource to add a note to (an alert).' }),
  body: t.string({ required: true }),
  discussionId: t.field({ type: 'DiscussionID', description: 'Global ID of the discussion the note is in reply to.' }),
}));

/** A mutation's outcome `{ key: { alert, … } }` as the alert payload. */
const alertPayloadOf = (payload: { made: { alert: Alert; issue?: Issue; todo?: Todo } | null; errors: string[]; clientMutationId?: string | null }) => ({
  alert: payload.made?.alert ?? null,
  issue: payload.made?.issue ?? null,
  todo: payload.made?.todo ?? null,
  errors: payload.errors,
  clientMutationId: payload.clientMutationId,
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
    resolve: async (_r, { input }, ctx) => alertPayloadOf(await asPayload('made', () => createAlertIncident(ctx, input, parseIid(input.iid)), input)),
  }),
  alertTodoCreate: t.field({
    type: AlertPayload('AlertTodoCreatePayload'),
    args: { input: t.arg({ type: TodoInput, required: true }) },
    resolve: async (_r, { input }, ctx) => alertPayloadOf(await asPayload('made', () => createAlertTodo(ctx, input, parseIid(input.iid)), input)),
  }),
  createNote: t.field({
    type: payloadType('CreateNotePayload', 'note', NoteRef),
    description: 'Adds a note to an alert (Developer and above).',
    args: { input: t.arg({ type: NoteInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      asPayload('note', () => createAlertNote(ctx, { alertId: input.noteableId, body: input.body, discussionId: input.discussionId }), input),
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
