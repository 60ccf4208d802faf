import type { AlertEntityFragment, AlertIntegrationEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, found, nodesOf, page } from '../../rest/shape.ts';
import { databaseIdOf } from '../../graphql/builder.ts';
import { globalId, projectInput } from '../../rest/sources.ts';
import { ALERT_SEVERITIES, ALERT_SORTS, ALERT_STATUSES } from './service.ts';

const lower = <V extends string>(value: V | null) => (value === null ? null : (value.toLowerCase() as Lowercase<V>));
const numericId = (type: string, id: string | null) => (id === null ? null : databaseIdOf(type, id));

/** An endpoint as scripts see it: numeric id, lower-case enums, no mapping for Prometheus; `token` only when just made. */
const integrationEntity = (i: AlertIntegrationEntityFragment) => ({
  ...i,
  id: numericId(i.type === 'PROMETHEUS' ? 'Integrations::Prometheus' : 'AlertManagement::HttpIntegration', i.id),
  type: lower(i.type),
  payload_example: 'payload_example' in i ? i.payload_example : null,
  payload_attribute_mappings: ('payload_attribute_mappings' in i ? (i.payload_attribute_mappings ?? []) : []).map((m) => ({
    ...m,
    field_name: lower(m.field_name),
    type: lower(m.type),
  })),
});

const alertEntity = (a: AlertEntityFragment) => ({
  ...a,
  iid: Number(a.iid),
  severity: lower(a.severity),
  status: lower(a.status),
  assignees: nodesOf(a.assignees).map((u) => ({ ...u, id: numericId('User', u.id) })),
  environment: a.environment?.name ?? null,
  issue_iid: a.issue ? Number(a.issue.iid) : null,
  issue: undefined,
});

const BASE = '/projects/:id/alert_management';
const INTEGRATION = { id: param.ref(), integration_id: param.int({ required: true }) };
const mapping = param.hashes({
  field_name: param.string({ required: true }),
  path: param.stringArray({ required: true }),
  type: param.string({ required: true }),
  label: param.string(),
});
const mappingsInput = (m: { field_name: string; path: string[]; type: string; label?: string }[] | undefined) =>
  m?.map((x) => ({ fieldName: enumValue(x.field_name) as never, path: x.path, type: enumValue(x.type) as never, label: x.label }));

const SETTINGS = { create_incident: param.bool(), send_email: param.bool(), auto_close_incident: param.bool() };
const settingsEntity = (s: { create_issue: boolean | null; send_email: boolean | null; auto_close_incident: boolean | null }) => ({
  create_incident: s.create_issue,
  send_email: s.send_email,
  auto_close_incident: s.auto_close_incident,
});

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: `${BASE}/integrations`,
    operation: 'ProjectAlertIntegrations',
    params: { id: param.ref() },
    variables: (v) => v.id,
    result: (data) => nodesOf(found(data.project, 'Project').alertManagementIntegrations).map(integrationEntity),
  }),
  route({
    method: 'POST',
    path: `${BASE}/http_integrations`,
    operation: 'CreateAlertHttpIntegration',
    status: 201,
    params: {
      id: param.ref(),
      name: param.string({ required: true }),
      active: param.bool(),
      payload_example: param.string(),
      payload_attribute_mappings: mapping,
    },
    variables: (v) => ({
      input: {
        ...projectInput(v.id),
        name: v.name,
        active: v.active ?? false,
        payloadExample: v.payload_example,
        payloadAttributeMappings: mappingsInput(v.payload_attribute_mappings),
      },
    }),
    result: (data) => integrationEntity(expected(data.httpIntegrationCreate?.integration, 'integration')),
  }),
  route({
    method: 'POST',
    path: `${BASE}/prometheus_integration`,
    operation: 'CreateAlertPrometheusIntegration',
    status: 201,
    params: { id: param.ref(), active: param.bool() },
    variables: (v) => ({ input: { ...projectInput(v.id), active: v.active ?? false } }),
    result: (data) => integrationEntity(expected(data.prometheusIntegrationCreate?.integration, 'integration')),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/http_integrations/:integration_id`,
    operation: 'UpdateAlertHttpIntegration',
    params: { ...INTEGRATION, name: param.string(), active: param.bool(), payload_example: param.string(), payload_attribute_mappings: mapping },
    variables: (v) => ({
      input: {
        id: globalId('AlertManagement::HttpIntegration', v.integration_id),
        name: v.name,
        active: v.active,
        payloadExample: v.payload_example,
        payloadAttributeMappings: mappingsInput(v.payload_attribute_mappings),
      },
    }),
    result: (data) => integrationEntity(expected(data.httpIntegrationUpdate?.integration, 'integration')),
  }),
  route({
    method: 'POST',
    path: `${BASE}/http_integrations/:integration_id/reset_token`,
    operation: 'ResetAlertHttpIntegrationToken',
    params: INTEGRATION,
    variables: (v) => ({ input: { id: globalId('AlertManagement::HttpIntegration', v.integration_id) } }),
    result: (data) => integrationEntity(expected(data.httpIntegrationResetToken?.integration, 'integration')),
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/http_integrations/:integration_id`,
    operation: 'DestroyAlertHttpIntegration',
    params: INTEGRATION,
    variables: (v) => ({ input: { id: globalId('AlertManagement::HttpIntegration', v.integration_id) } }),
  }),
  route({
    method: 'GET',
    path: `${BASE}/alerts`,
    operation: 'ProjectAlerts',
    paginated: true,
    params: {
      id: param.ref(),
      status: param.oneOf(ALERT_STATUSES),
      severity: param.oneOf(ALERT_SEVERITIES),
      search: param.string(),
      sort: param.oneOf(ALERT_SORTS),
    },
    variables: (v) => ({
      ...v.id,
      statuses: v.status ? [enumValue(v.status)] : undefined,
      severities: v.severity ? [enumValue(v.severity)] : undefined,
      search: v.search,
      sort: v.sort && enumValue(v.sort),
    }),
    result: (data) => page(found(data.project, 'Project').alertManagementAlerts, alertEntity),
  }),
  route({
    method: 'GET',
    path: `${BASE}/alerts/:alert_iid`,
    operation: 'ProjectAlert',
    params: { id: param.ref(), alert_iid: param.int({ required: true }) },
    variables: (v) => ({ ...v.id, iid: String(v.alert_iid) }),
    result: (data) => alertEntity(found(found(data.project, 'Project').alertManagementAlert, 'Alert')),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/alerts/:alert_iid`,
    operation: 'UpdateAlertStatus',
    params: { id: param.ref(), alert_iid: param.int({ required: true }), status: param.oneOf(ALERT_STATUSES, { required: true }) },
    variables: (v) => ({ input: { ...projectInput(v.id), iid: String(v.alert_iid), status: enumValue(v.status) } }),
    result: (data) => alertEntity(expected(data.updateAlertStatus?.alert, 'alert')),
  }),
  route({
    method: 'POST',
    path: `${BASE}/integrations/:integration_id/test_alert`,
    operation: 'SendTestAlert',
    status: 201,
    params: { ...INTEGRATION, payload: param.string({ required: true }) },
    variables: (v) => ({ input: { ...projectInput(v.id), integrationId: globalId('AlertManagement::HttpIntegration', v.integration_id), payload: v.payload } }),
    result: (data) => expected(data.alertManagementAlertTest?.alerts, 'alerts').map(alertEntity),
  }),
  route({
    method: 'GET',
    path: `${BASE}/settings`,
    operation: 'ProjectAlertSettings',
    params: { id: param.ref() },
    variables: (v) => v.id,
    result: (data) => settingsEntity(expected(found(data.project, 'Project').alertManagementSettings, 'settings')),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/settings`,
    operation: 'UpdateAlertSettings',
    params: { id: param.ref(), ...SETTINGS },
    variables: (v) => ({ input: { ...projectInput(v.id), createIssue: v.create_incident, sendEmail: v.send_email, autoCloseIncident: v.auto_close_incident } }),
    result: (data) => settingsEntity(expected(data.alertManagementSettingsUpdate?.settings, 'settings')),
  }),
]);
