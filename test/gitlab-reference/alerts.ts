// Alert management and alert settings, from GitLab's GraphQL reference (AlertManagementAlert,
// AlertManagementIntegration and its two types, Note, Discussion, Todo, the alert mutations).
import type { ReferenceField, ReferenceType } from './types.ts';

const PAGE = { after: 'String', before: 'String', first: 'Int', last: 'Int' };
const paged = (type: string, args: Record<string, string> = {}): ReferenceField => ({ type, args: { ...PAGE, ...args } });

/** Every connection of ours has GitLab's fields, and one count under both names. */
const SHARED_COUNT = {
  count: "forgegate's connections share one optional count (GitLab's CountableConnectionType declares Int!)",
  totalCount: "forgegate's name of the same count, on every connection",
};

/** GitLab's connection and edge of `node`. */
function connection(name: string, node: string): ReferenceType[] {
  return [
    {
      name: `${name}Connection`,
      fields: { count: 'Int!', edges: `[${name}Edge]`, nodes: `[${node}]`, pageInfo: 'PageInfo!' },
      kept: SHARED_COUNT,
    },
    { name: `${name}Edge`, fields: { cursor: 'String!', node } },
  ];
}

/** The project and iid of an alert mutation: GitLab's `projectPath: ID!`; forgegate's REST routes send the project's id instead. */
const ALERT_TARGET = { projectPath: 'ID!', iid: 'String!', clientMutationId: 'String' };
const PROJECT_ID_KEPT = {
  projectPath: 'nullable: the REST facade names the project by projectId instead (one of them is required, checked by the service)',
  projectId: "forgegate's: the project's numeric id, which REST routes carry",
};

/** GitLab's payload of the alert mutations. */
const alertPayload = (name: string): ReferenceType => ({
  name,
  fields: { alert: 'AlertManagementAlert', clientMutationId: 'String', errors: '[String!]!', issue: 'Issue', todo: 'Todo' },
});

const payload = (name: string, key: string, type: string): ReferenceType => ({
  name,
  fields: { clientMutationId: 'String', errors: '[String!]!', [key]: type },
});

const ALERT_LIST_ARGS = {
  iid: 'String',
  statuses: '[AlertManagementStatus!]',
  sort: 'AlertManagementAlertSort',
  domain: 'AlertManagementDomainFilter!',
  search: 'String',
  assigneeUsername: 'String',
};

const INTEGRATION_FIELDS = {
  active: 'Boolean',
  apiUrl: 'String',
  id: 'ID!',
  name: 'String',
  token: 'String',
  type: 'AlertManagementIntegrationType!',
  url: 'String',
};

const HTTP_ID_KEPT = {
  id: 'GitLab declares AlertManagementHttpIntegrationID!, but its own settings page sends `$id: ID!`, which a typed input refuses at validation; the service still requires an AlertManagement::HttpIntegration global id',
};

/** GitLab's to-do actions (app/graphql/types/todo_action_enum.rb). */
const TODO_ACTIONS = [
  'added_approver',
  'approval_required',
  'assigned',
  'build_failed',
  'directly_addressed',
  'marked',
  'member_access_requested',
  'mentioned',
  'merge_train_removed',
  'okr_checkin_requested',
  'review_requested',
  'review_submitted',
  'ssh_key_expired',
  'ssh_key_expiring_soon',
  'unmergeable',
];

export const types: ReferenceType[] = [
  {
    name: 'AlertManagementAlert',
    fields: {
      assignees: paged('UserCoreConnection'),
      commenters: paged('UserCoreConnection!'),
      createdAt: 'Time',
      description: 'String',
      details: 'JSON',
      detailsUrl: 'String!',
      discussions: paged('DiscussionConnection!'),
      endedAt: 'Time',
      environment: 'Environment',
      eventCount: 'Int',
      hosts: '[String]',
      id: 'ID!',
      iid: 'ID!',
      issue: 'Issue',
      issueIid: 'ID',
      metricsDashboardUrl: 'String',
      monitoringTool: 'String',
      notes: paged('NoteConnection!'),
      runbook: 'String',
      service: 'String',
      severity: 'AlertManagementSeverity',
      startedAt: 'Time',
      status: 'AlertManagementStatus',
      title: 'String',
      todos: paged('TodoConnection'),
      updatedAt: 'Time',
      webUrl: 'String!',
    },
    kept: { fingerprint: "forgegate's: the SHA-1 that groups payloads into this alert (its REST entity shows it)" },
  },
  ...connection('AlertManagementAlert', 'AlertManagementAlert'),
  {
    name: 'AlertManagementAlertStatusCountsType',
    fields: { acknowledged: 'Int', all: 'Int', ignored: 'Int', open: 'Int', resolved: 'Int', triggered: 'Int' },
  },
  { name: 'AlertManagementStatus', values: ['TRIGGERED', 'ACKNOWLEDGED', 'RESOLVED', 'IGNORED'] },
  { name: 'AlertManagementSeverity', values: ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO', 'UNKNOWN'] },
  {
    name: 'AlertManagementAlertSort',
    values: [
      'updated_desc',
      'updated_asc',
      'created_desc',
      'created_asc',
      'UPDATED_DESC',
      'UPDATED_ASC',
      'CREATED_DESC',
      'CREATED_ASC',
      'STARTED_AT_ASC',
      'STARTED_AT_DESC',
      'ENDED_AT_ASC',
      'ENDED_AT_DESC',
      'CREATED_TIME_ASC',
      'CREATED_TIME_DESC',
      'UPDATED_TIME_ASC',
      'UPDATED_TIME_DESC',
      'EVENT_COUNT_ASC',
      'EVENT_COUNT_DESC',
      'SEVERITY_ASC',
      'SEVERITY_DESC',
      'STATUS_ASC',
      'STATUS_DESC',
    ],
  },
  { name: 'AlertManagementDomainFilter', values: ['operations', 'threat_monitoring'] },
  { name: 'AlertManagementIntegrationType', values: ['HTTP', 'PROMETHEUS'] },
  {
    name: 'AlertManagementPayloadAlertFieldName',
    values: ['TITLE', 'DESCRIPTION', 'START_TIME', 'END_TIME', 'SERVICE', 'MONITORING_TOOL', 'HOSTS', 'SEVERITY', 'FINGERPRINT', 'GITLAB_ENVIRONMENT_NAME'],
  },
  { name: 'AlertManagementPayloadAlertFieldType', values: ['ARRAY', 'DATETIME', 'STRING'] },
  { name: 'MutationOperationMode', values: ['REPLACE', 'APPEND', 'REMOVE'] },
  { name: 'AlertManagementIntegration', fields: INTEGRATION_FIELDS },
  {
    name: 'AlertManagementHttpIntegration',
    fields: {
      ...INTEGRATION_FIELDS,
      payloadAlertFields: '[AlertManagementPayloadAlertField!]',
      payloadAttributeMappings: '[AlertManagementPayloadAlertMappingField!]',
      payloadExample: 'JsonString',
    },
  },
  { name: 'AlertManagementPrometheusIntegration', fields: INTEGRATION_FIELDS },
  ...connection('AlertManagementIntegration', 'AlertManagementIntegration'),
  ...connection('AlertManagementHttpIntegration', 'AlertManagementHttpIntegration'),
  {
    name: 'AlertManagementPayloadAlertField',
    fields: { label: 'String', path: '[PayloadAlertFieldPathSegment!]', type: 'AlertManagementPayloadAlertFieldType' },
  },
  {
    name: 'AlertManagementPayloadAlertMappingField',
    fields: {
      fieldName: 'AlertManagementPayloadAlertFieldName',
      label: 'String',
      path: '[PayloadAlertFieldPathSegment!]',
      type: 'AlertManagementPayloadAlertFieldType',
    },
  },
  {
    name: 'AlertManagementPayloadAlertFieldInput',
    fields: {
      fieldName: 'AlertManagementPayloadAlertFieldName!',
      label: 'String',
      path: '[PayloadAlertFieldPathSegment!]!',
      type: 'AlertManagementPayloadAlertFieldType!',
    },
  },
  { name: 'Environment', fields: { id: 'ID!', name: 'String!', path: 'String!' } },
  {
    name: 'Issue',
    fields: {
      closedAt: 'Time',
      createdAt: 'Time!',
      description: 'String',
      id: 'ID!',
      iid: 'ID!',
      state: 'IssueState!',
      title: 'String!',
      type: 'IssueType',
      updatedAt: 'Time!',
      webPath: 'String!',
      webUrl: 'String!',
    },
  },
  { name: 'IssueState', values: ['opened', 'closed', 'locked', 'all'] },
  { name: 'IssueType', values: ['ISSUE', 'INCIDENT', 'TEST_CASE', 'REQUIREMENT', 'TASK', 'TICKET', 'OBJECTIVE', 'KEY_RESULT', 'EPIC'] },
  {
    name: 'Note',
    fields: {
      author: 'UserCore',
      body: 'String!',
      bodyHtml: 'String',
      createdAt: 'Time!',
      discussion: 'Discussion',
      id: 'NoteID!',
      internal: 'Boolean',
      resolvable: 'Boolean!',
      resolved: 'Boolean!',
      system: 'Boolean!',
      systemNoteIconName: 'String',
      updatedAt: 'Time!',
    },
  },
  ...connection('Note', 'Note'),
  {
    name: 'Discussion',
    fields: {
      createdAt: 'Time!',
      id: 'DiscussionID!',
      notes: paged('NoteConnection!'),
      replyId: 'DiscussionID!',
      resolvable: 'Boolean!',
      resolved: 'Boolean!',
    },
  },
  ...connection('Discussion', 'Discussion'),
  {
    name: 'Todo',
    fields: {
      action: 'TodoActionEnum!',
      author: 'UserCore!',
      body: 'String!',
      createdAt: 'Time!',
      group: 'Group',
      id: 'ID!',
      project: 'Project',
      state: 'TodoStateEnum!',
      target: 'Todoable!',
      targetType: 'TodoTargetEnum!',
      targetUrl: 'String',
    },
    kept: {
      author: "nullable: a to-do whose author was deleted keeps no author (GitLab's ghost user)",
      body: "nullable: the title of an epic the viewer may no longer read, and alerts' to-dos, answer null",
      target: "the Todoable interface is not served yet: an epic's to-do answers its Epic, an alert's null (its alert is on the alert, `todos`)",
      databaseId: "forgegate's: the to-do's numeric id, which the epics' REST routes answer",
      updatedAt: "forgegate's: when the to-do was last changed (marked done)",
    },
  },
  ...connection('Todo', 'Todo'),
  {
    name: 'TodoTargetEnum',
    values: [
      'COMMIT',
      'ISSUE',
      'WORKITEM',
      'MERGEREQUEST',
      'DESIGN',
      'ALERT',
      'PROJECT',
      'NAMESPACE',
      'KEY_RESULT',
      'OBJECTIVE',
      'EPIC',
      'USER',
      'WIKIPAGEMETA',
      'SSHKEY',
    ],
    kept: {
      COMMIT: 'forgegate has to-dos on epics and alerts only',
      ISSUE: 'forgegate has to-dos on epics and alerts only',
      WORKITEM: 'forgegate has to-dos on epics and alerts only',
      MERGEREQUEST: 'forgegate has to-dos on epics and alerts only',
      DESIGN: 'forgegate has to-dos on epics and alerts only',
      PROJECT: 'forgegate has to-dos on epics and alerts only',
      NAMESPACE: 'forgegate has to-dos on epics and alerts only',
      KEY_RESULT: 'forgegate has to-dos on epics and alerts only',
      OBJECTIVE: 'forgegate has to-dos on epics and alerts only',
      USER: 'forgegate has to-dos on epics and alerts only',
      WIKIPAGEMETA: 'forgegate has to-dos on epics and alerts only',
      SSHKEY: 'forgegate has to-dos on epics and alerts only',
    },
  },
  { name: 'TodoStateEnum', values: ['pending', 'done'] },
  { name: 'UserCoreConnection', fields: { count: 'Int!', edges: '[UserCoreEdge]', nodes: '[UserCore]', pageInfo: 'PageInfo!' }, kept: SHARED_COUNT },
  { name: 'UserCoreEdge', fields: { cursor: 'String!', node: 'UserCore' } },

  // Mutation inputs and payloads.
  {
    name: 'HttpIntegrationCreateInput',
    fields: {
      projectPath: 'ID!',
      name: 'String!',
      active: 'Boolean!',
      payloadExample: 'JsonString',
      payloadAttributeMappings: '[AlertManagementPayloadAlertFieldInput!]',
      clientMutationId: 'String',
    },
    kept: PROJECT_ID_KEPT,
  },
  {
    name: 'HttpIntegrationUpdateInput',
    fields: {
      id: 'AlertManagementHttpIntegrationID!',
      name: 'String',
      active: 'Boolean',
      payloadExample: 'JsonString',
      payloadAttributeMappings: '[AlertManagementPayloadAlertFieldInput!]',
      clientMutationId: 'String',
    },
    kept: HTTP_ID_KEPT,
  },
  { name: 'HttpIntegrationResetTokenInput', fields: { id: 'AlertManagementHttpIntegrationID!', clientMutationId: 'String' }, kept: HTTP_ID_KEPT },
  { name: 'HttpIntegrationDestroyInput', fields: { id: 'AlertManagementHttpIntegrationID!', clientMutationId: 'String' }, kept: HTTP_ID_KEPT },
  {
    name: 'PrometheusIntegrationCreateInput',
    fields: { projectPath: 'ID!', active: 'Boolean!', apiUrl: 'String', clientMutationId: 'String' },
    kept: PROJECT_ID_KEPT,
  },
  {
    name: 'PrometheusIntegrationUpdateInput',
    fields: { id: 'IntegrationsPrometheusID!', active: 'Boolean', apiUrl: 'String', clientMutationId: 'String' },
  },
  { name: 'PrometheusIntegrationResetTokenInput', fields: { id: 'IntegrationsPrometheusID!', clientMutationId: 'String' } },
  payload('HttpIntegrationCreatePayload', 'integration', 'AlertManagementHttpIntegration'),
  payload('HttpIntegrationUpdatePayload', 'integration', 'AlertManagementHttpIntegration'),
  payload('HttpIntegrationResetTokenPayload', 'integration', 'AlertManagementHttpIntegration'),
  payload('HttpIntegrationDestroyPayload', 'integration', 'AlertManagementHttpIntegration'),
  payload('PrometheusIntegrationCreatePayload', 'integration', 'AlertManagementPrometheusIntegration'),
  payload('PrometheusIntegrationUpdatePayload', 'integration', 'AlertManagementPrometheusIntegration'),
  payload('PrometheusIntegrationResetTokenPayload', 'integration', 'AlertManagementPrometheusIntegration'),
  {
    name: 'UpdateAlertStatusInput',
    fields: { ...ALERT_TARGET, status: 'AlertManagementStatus!' },
    kept: PROJECT_ID_KEPT,
  },
  {
    name: 'AlertSetAssigneesInput',
    fields: { ...ALERT_TARGET, assigneeUsernames: '[String!]!', operationMode: 'MutationOperationMode' },
    kept: PROJECT_ID_KEPT,
  },
  { name: 'AlertCreateIssueInput', fields: ALERT_TARGET, kept: PROJECT_ID_KEPT },
  { name: 'AlertTodoCreateInput', fields: ALERT_TARGET, kept: PROJECT_ID_KEPT },
  alertPayload('UpdateAlertStatusPayload'),
  alertPayload('AlertSetAssigneesPayload'),
  alertPayload('AlertCreateIssuePayload'),
  alertPayload('AlertTodoCreatePayload'),
  {
    name: 'CreateNoteInput',
    fields: { noteableId: 'NoteableID!', body: 'String!', discussionId: 'DiscussionID', clientMutationId: 'String' },
  },
  payload('CreateNotePayload', 'note', 'Note'),
  { name: 'TodoMarkDoneInput', fields: { id: 'TodoID!', clientMutationId: 'String' } },
  {
    name: 'TodoMarkDonePayload',
    fields: { clientMutationId: 'String', errors: '[String!]!', todo: 'Todo!' },
    kept: { todo: 'null when the mutation fails, as every payload of ours' },
  },

  // forgegate's own: REST-shaped settings and the test alert.
  { name: 'ProjectAlertManagementSettings', notGitLab: "the project's incident settings, which GitLab serves on its settings page and not in GraphQL" },
  { name: 'AlertManagementSettingsUpdateInput', notGitLab: 'updates ProjectAlertManagementSettings' },
  { name: 'AlertManagementSettingsUpdatePayload', notGitLab: 'updates ProjectAlertManagementSettings' },
  {
    name: 'AlertManagementAlertTestInput',
    notGitLab: "sends a test payload through an endpoint (GitLab's settings page posts it to the endpoint itself, with its key)",
  },
  { name: 'AlertManagementAlertTestPayload', notGitLab: 'the alerts a test payload made' },

  // The alert fields of Project and Mutation.
  {
    name: 'Project',
    fields: {
      alertManagementAlerts: paged('AlertManagementAlertConnection', ALERT_LIST_ARGS),
      alertManagementAlert: { type: 'AlertManagementAlert', args: ALERT_LIST_ARGS },
      alertManagementAlertStatusCounts: { type: 'AlertManagementAlertStatusCountsType', args: { search: 'String', assigneeUsername: 'String' } },
      alertManagementIntegrations: paged('AlertManagementIntegrationConnection'),
      alertManagementHttpIntegrations: paged('AlertManagementHttpIntegrationConnection', {
        id: 'AlertManagementHttpIntegrationID',
        types: '[AlertManagementIntegrationType!]',
      }),
      alertManagementPayloadFields: { type: '[AlertManagementPayloadAlertField!]', args: { payloadExample: 'String!' } },
    },
    kept: {
      'alertManagementAlerts.severities': "forgegate's filter by severity, which the REST alert list takes",
      'alertManagementAlert.severities': "forgegate's filter by severity, as on the list",
      alertManagementSettings: "forgegate's: the project's incident settings for alerts",
    },
  },
  {
    name: 'Mutation',
    fields: {
      httpIntegrationCreate: { type: 'HttpIntegrationCreatePayload', args: { input: 'HttpIntegrationCreateInput!' } },
      httpIntegrationUpdate: { type: 'HttpIntegrationUpdatePayload', args: { input: 'HttpIntegrationUpdateInput!' } },
      httpIntegrationResetToken: { type: 'HttpIntegrationResetTokenPayload', args: { input: 'HttpIntegrationResetTokenInput!' } },
      httpIntegrationDestroy: { type: 'HttpIntegrationDestroyPayload', args: { input: 'HttpIntegrationDestroyInput!' } },
      prometheusIntegrationCreate: { type: 'PrometheusIntegrationCreatePayload', args: { input: 'PrometheusIntegrationCreateInput!' } },
      prometheusIntegrationUpdate: { type: 'PrometheusIntegrationUpdatePayload', args: { input: 'PrometheusIntegrationUpdateInput!' } },
      prometheusIntegrationResetToken: { type: 'PrometheusIntegrationResetTokenPayload', args: { input: 'PrometheusIntegrationResetTokenInput!' } },
      updateAlertStatus: { type: 'UpdateAlertStatusPayload', args: { input: 'UpdateAlertStatusInput!' } },
      alertSetAssignees: { type: 'AlertSetAssigneesPayload', args: { input: 'AlertSetAssigneesInput!' } },
      createAlertIssue: { type: 'AlertCreateIssuePayload', args: { input: 'AlertCreateIssueInput!' } },
      alertTodoCreate: { type: 'AlertTodoCreatePayload', args: { input: 'AlertTodoCreateInput!' } },
      createNote: { type: 'CreateNotePayload', args: { input: 'CreateNoteInput!' } },
      todoMarkDone: { type: 'TodoMarkDonePayload', args: { input: 'TodoMarkDoneInput!' } },
    },
    kept: {
      alertManagementAlertTest: "forgegate's: a test payload through an endpoint",
      alertManagementSettingsUpdate: "forgegate's: the project's incident settings for alerts",
    },
  },
  // GitLab's global ID and JSON scalars the alert types and mutations take.
  ...['AlertManagementHttpIntegrationID', 'IntegrationsPrometheusID', 'DiscussionID', 'NoteID', 'NoteableID', 'TodoID'].map((name) => ({ name })),
  { name: 'JsonString' },
  { name: 'PayloadAlertFieldPathSegment' },
  {
    name: 'TodoActionEnum',
    values: TODO_ACTIONS,
    kept: Object.fromEntries(
      TODO_ACTIONS.filter((value) => value !== 'marked').map((value) => [
        value,
        'forgegate makes to-do items only when a user adds one (alertTodoCreate): `marked`',
      ]),
    ),
  },
  {
    name: 'Subscription',
    kept: {
      alertManagementAlertUpdated:
        "ours: the alert list's live updates over server-sent events (GitLab's subscriptions are issuable and work item events over Action Cable)",
    },
  },
];
