// Alerts of a project: intake (grouping and resolving by fingerprint, enforced by a partial unique
// index on open alerts), reading and triage, the project's alert settings, and incidents.
import { findUnstorableText, jsonNestedDeeperThan } from '../../core/input.ts';
import type { Alert, AlertIntegration, AlertNote, AlertSettings, AlertSeverity, AlertStatus, Issue, Todo } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { FullMessagesError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { lockKey } from '../../db/locks.ts';
import { nextIid } from '../../core/store.ts';
import { notify } from '../../db/notifications.ts';
import type { Listing } from '../../core/listing.ts';
import type { AppDeps } from '../../deps.ts';
import { featureEnabled, flagActor } from '../../flags/index.ts';
import { projectParent, resolveProject, type ParentInput } from '../parents/parent.ts';
import { projectByFullPath, projectFullPath } from '../projects/service.ts';
import { listMembers } from '../members/service.ts';
import { createContext } from '../../core/context.ts';
import { Viewer } from '../../auth/viewer.ts';
import { keyMatches, requireMaintainer } from './integrations.ts';
import { addSystemNote, assigneesNote, incidentNote, MAX_NOTE_LENGTH, newAlertNote, discussionIdOf, statusNote } from './notes.ts';
import {
  isMetricsPayload,
  MAX_METRICS_ALERTS,
  MAX_PAYLOAD_BYTES,
  MAX_PAYLOAD_DEPTH,
  parseGeneric,
  parseMetricsAlert,
  type AttributeMapping,
  type Json,
  type JsonObject,
  type ParsedAlert,
} from './payload.ts';
import { ALERT_CHANNEL, alertChanges, type AlertChange } from './stream.ts';
import {
  addEventToOpenAlert,
  type AlertOrder,
  alertCountsByStatus,
  alertPages,
  type AlertQuery,
  countIntakeThisMinute,
  insertOrGroupAlert,
  lockAlert,
  resolveOpenAlert,
  type Touched,
} from './store.ts';

declare module '../../core/events.ts' {
  interface DomainEvents {
    /** An alert was created, grouped, or changed status (integrations deliver it; subscriptions stream it). */
    alert: AlertChange;
  }
}

export const INCIDENT_QUEUE = 'alert-incidents';
export type IncidentJob = { alertId: number; action: 'open' | 'close' };

export const ALERT_EMAIL_QUEUE = 'alert-emails';
export type AlertEmailJob = { alertId: number };

const PROMETHEUS_TOOL = 'Prometheus';

export const FINGERPRINT_FLAG = 'generic_alert_fingerprinting';

// ---------------------------------------------------------------- intake

/** What the intake answers: GitLab's status and, for generic payloads, `[{iid, title}]`. */
export type IntakeResult = { status: number; body?: { iid: number; title: string }[] };

export type IntakeRequest = {
  fullPath: string;
  /** The HTTP endpoint's identifier, or null for the project's metrics-format endpoint. */
  identifier: string | null;
  key: string | null;
  body: Buffer;
};

const empty = (status: number): IntakeResult => ({ status });

/**
 * GitLab's order: payload too big or too deep (400), no active endpoint (403; the metrics
 * endpoint answers 401 for it as GitLab does), wrong key (401), over the endpoint's rate (429),
 * then the payload.
 */
export async function receiveAlerts(ctx: Context, request: IntakeRequest): Promise<IntakeResult> {
  const project = await projectByFullPath(ctx, request.fullPath);
  if (!project) return empty(404);
  const body = readPayload(request.body);
  if (!body) return empty(400);
  const integration = await ctx.db.alertIntegration.findFirst({
    where:
      request.identifier === null
        ? { projectId: project.id, type: 'prometheus' }
        : { projectId: project.id, type: 'http', endpointIdentifier: request.identifier },
  });
  if (!integration?.active) return empty(request.identifier === null ? 401 : 403);
  if (!keyMatches(ctx, integration, request.key)) return empty(401);
  if (!(await withinRate(ctx.deps, integration))) return empty(429);
  if (isMetricsPayload(body)) return receiveMetrics(ctx.deps, project, integration, body);
  return receiveGeneric(ctx.deps, project, integration, body);
}

/**
 * The JSON object of the body, or null when it is over 1 MB, not an object, nested deeper than 100
 * (read from the bytes, before parsing) or holds text PostgreSQL's jsonb cannot store: a NUL or an
 * unpaired surrogate (`\ud800`, which JSON.parse accepts).
 */
function readPayload(raw: Buffer): JsonObject | null {
  if (raw.length > MAX_PAYLOAD_BYTES || jsonNestedDeeperThan(raw, MAX_PAYLOAD_DEPTH)) return null;
  const textBody = raw.toString('utf8').trim();
  if (textBody === '') return {};
  let parsed: Json;
  try {
    parsed = JSON.parse(textBody) as Json;
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  return findUnstorableText(parsed) ? null : parsed;
}

/** A per-endpoint, per-minute counter in PostgreSQL, so every process counts against one limit. */
async function withinRate(deps: AppDeps, integration: AlertIntegration): Promise<boolean> {
  return (await countIntakeThisMinute(deps.db, integration.id)) <= deps.config.alertIntakeRateLimit;
}

async function receiveGeneric(deps: AppDeps, project: ProjectWithNamespace, integration: AlertIntegration, body: JsonObject): Promise<IntakeResult> {
  const alert = await ingestGeneric(deps, project, integration, body);
  // A resolving payload with no open alert to resolve is refused.
  if (!alert) return empty(400);
  return { status: 200, body: [{ iid: alert.iid, title: alert.title }] };
}

async function receiveMetrics(deps: AppDeps, project: ProjectWithNamespace, integration: AlertIntegration, body: JsonObject): Promise<IntakeResult> {
  await ingestMetrics(deps, project, integration, body);
  return empty(201);
}

/**
 * A payload for an HTTP endpoint. One that names `monitoring_tool: "Prometheus"` is one
 * Prometheus alert and is read with that mapping (GitLab picks the parser by the tool); it needs a
 * title and startsAt like any Prometheus alert, else nothing is made.
 */
async function ingestGeneric(deps: AppDeps, project: ProjectWithNamespace, integration: AlertIntegration, body: JsonObject): Promise<Touched | null> {
  if (body.monitoring_tool === PROMETHEUS_TOOL) {
    const prometheus = parseMetricsAlert(body);
    return prometheus && processAlert(deps, project, integration, prometheus);
  }
  const parsed = parseGeneric(body, {
    mappings: (integration.payloadAttributeMappings ?? []) as AttributeMapping[],
    deriveFingerprint: await featureEnabled(deps, FINGERPRINT_FLAG, flagActor('Project', project.id)),
    now: new Date(),
  });
  return processAlert(deps, project, integration, parsed);
}

/** One alert per element of `alerts` (the first 100); elements without a title or start are skipped. */
async function ingestMetrics(deps: AppDeps, project: ProjectWithNamespace, integration: AlertIntegration, body: JsonObject): Promise<Touched[]> {
  const elements = Array.isArray(body.alerts) ? body.alerts.slice(0, MAX_METRICS_ALERTS) : [];
  const touched: Touched[] = [];
  for (const element of elements) {
    const parsed = parseMetricsAlert(element);
    const alert = parsed && (await processAlert(deps, project, integration, parsed));
    if (alert) touched.push(alert);
  }
  return touched;
}

/**
 * A test alert from the settings screen: the payload goes through the endpoint's own mapping and
 * the state machine exactly as a posted one, authorised by the viewer instead of the endpoint's key
 * (which is shown only once). It stands in for that key, so it takes whom the key is for: the
 * Maintainers who manage the endpoints (GitLab's `admin_operations`). Returns the alerts it made or grouped.
 */
export async function sendTestAlert(ctx: Context, projectRef: ParentInput, integrationId: number, payload: string): Promise<Alert[]> {
  requireSignedIn(ctx);
  const project = await resolveProject(ctx, projectRef);
  await requireMaintainer(ctx, project);
  const integration = await ctx.db.alertIntegration.findFirst({ where: { id: integrationId, projectId: project.id } });
  if (!integration) throw new NotFoundError('Integration');
  if (!integration.active) throw new ValidationError({ integration: ['is not active'] });
  if (payload.trim() === '') throw new ValidationError({ payload: ["can't be blank"] });
  const body = readPayload(Buffer.from(payload, 'utf8'));
  if (!body) throw new ValidationError({ payload: ['must be a valid json object under 1 MB and nested at most 100 deep'] });
  const touched = isMetricsPayload(body)
    ? await ingestMetrics(ctx.deps, project, integration, body)
    : [await ingestGeneric(ctx.deps, project, integration, body)];
  const ids = touched.flatMap((t) => (t ? [t.id] : []));
  if (!ids.length) throw new ValidationError({ payload: ['made no alert: it resolves no open alert, or has no title and start time'] });
  return ctx.db.alert.findMany({ where: { id: { in: ids } }, orderBy: { iid: 'asc' } });
}

/**
 * The state machine: a resolving payload resolves the open alert with its fingerprint (null when
 * there is none); otherwise the open alert with the fingerprint gets one more event, or a new alert
 * is made. Grouping holds across concurrent requests and processes because open alerts of a
 * project cannot share a fingerprint (partial unique index `alerts_open_fingerprint`): the insert
 * that loses the race becomes the update.
 */
export async function processAlert(
  deps: AppDeps,
  project: ProjectWithNamespace,
  integration: AlertIntegration | null,
  alert: ParsedAlert,
): Promise<Touched | null> {
  if (alert.resolving) return resolveByFingerprint(deps, project, alert);
  if (alert.fingerprint) {
    const grouped = await addEventToOpenAlert(deps.db, project.id, alert.fingerprint);
    if (grouped) return announce(deps, project.id, grouped);
  }
  const iid = await nextIid(deps.db, 'alerts:project', project.id);
  const payload = { ...alert.payload, ...(alert.incidentMarkdown && { gitlab_incident_markdown: alert.incidentMarkdown }) };
  const row = await insertOrGroupAlert(deps.db, { projectId: project.id, iid, integrationId: integration?.id ?? null, alert, payload });
  const touched = await announce(deps, project.id, row);
  if (row.created) {
    await addSystemNote(deps.db, row.id, null, 'new_alert_added', newAlertNote(alert.monitoringTool ?? integration?.name ?? null));
    await afterCreate(deps, project.id, row.id);
  }
  return touched;
}

/** Side effects of a new alert, as jobs: its incident and the e-mail to maintainers, when the settings say so. */
async function afterCreate(deps: AppDeps, projectId: number, alertId: number) {
  const settings = await settingsOf(deps, projectId);
  if (settings.createIssue) await deps.jobs.send(INCIDENT_QUEUE, { alertId, action: 'open' } satisfies IncidentJob);
  if (settings.sendEmail) await deps.jobs.send(ALERT_EMAIL_QUEUE, { alertId } satisfies AlertEmailJob);
}

async function resolveByFingerprint(deps: AppDeps, project: ProjectWithNamespace, alert: ParsedAlert): Promise<Touched | null> {
  if (!alert.fingerprint) return null;
  const row = await resolveOpenAlert(deps.db, project.id, alert.fingerprint, alert.endedAt ?? new Date());
  if (!row) return null;
  await addSystemNote(deps.db, row.id, null, 'status', statusNote('resolved'));
  await afterStatusChange(deps, project.id, row, 'resolved');
  return row;
}

async function announce(deps: AppDeps, projectId: number, row: Touched): Promise<Touched> {
  await broadcast(deps, { projectId, alertId: row.id, iid: row.iid, action: row.created ? 'created' : 'grouped' });
  return row;
}

/** The domain event for this process's listeners, and a NOTIFY so every process's subscriptions hear it. */
async function broadcast(deps: AppDeps, event: AlertChange) {
  await deps.events.publish('alert', event);
  await notify(deps.db, ALERT_CHANNEL, JSON.stringify(event));
}

async function afterStatusChange(deps: AppDeps, projectId: number, alert: Pick<Alert, 'id' | 'iid' | 'issueId'>, status: AlertStatus) {
  await broadcast(deps, { projectId, alertId: alert.id, iid: alert.iid, action: 'status_changed' });
  if (status === 'resolved' && alert.issueId && (await settingsOf(deps, projectId)).autoCloseIncident) {
    await deps.jobs.send(INCIDENT_QUEUE, { alertId: alert.id, action: 'close' } satisfies IncidentJob);
  }
}

// ---------------------------------------------------------------- settings

const DEFAULT_SETTINGS = { createIssue: false, sendEmail: false, autoCloseIncident: true };

async function settingsOf(deps: Pick<AppDeps, 'db'>, projectId: number): Promise<Pick<AlertSettings, 'createIssue' | 'sendEmail' | 'autoCloseIncident'>> {
  return (await deps.db.alertSettings.findUnique({ where: { projectId } })) ?? DEFAULT_SETTINGS;
}

function requireSignedIn(ctx: Context) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
}

export async function readSettings(ctx: Context, project: ProjectWithNamespace) {
  requireSignedIn(ctx);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  return { projectId: project.id, ...(await settingsOf(ctx.deps, project.id)) };
}

export type SettingsInput = { createIssue?: boolean | null; sendEmail?: boolean | null; autoCloseIncident?: boolean | null };

export async function updateSettings(ctx: Context, projectRef: ParentInput, input: SettingsInput) {
  requireSignedIn(ctx);
  const project = await resolveProject(ctx, projectRef);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
  const data = {
    ...(input.createIssue != null && { createIssue: input.createIssue }),
    ...(input.sendEmail != null && { sendEmail: input.sendEmail }),
    ...(input.autoCloseIncident != null && { autoCloseIncident: input.autoCloseIncident }),
  };
  const saved = await ctx.db.alertSettings.upsert({
    where: { projectId: project.id },
    create: { projectId: project.id, ...DEFAULT_SETTINGS, ...data },
    update: data,
  });
  return { projectId: project.id, createIssue: saved.createIssue, sendEmail: saved.sendEmail, autoCloseIncident: saved.autoCloseIncident };
}

// ---------------------------------------------------------------- reading and triage

export const ALERT_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged', 'resolved', 'ignored'];
export const ALERT_SEVERITIES: readonly AlertSeverity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
export const ALERT_SORTS = [
  'created_asc',
  'created_desc',
  'updated_asc',
  'updated_desc',
  'created_time_asc',
  'created_time_desc',
  'updated_time_asc',
  'updated_time_desc',
  'started_at_asc',
  'started_at_desc',
  'ended_at_asc',
  'ended_at_desc',
  'event_count_asc',
  'event_count_desc',
  'severity_asc',
  'severity_desc',
  'status_asc',
  'status_desc',
] as const;
export type AlertSort = (typeof ALERT_SORTS)[number];

export type AlertFilter = {
  iid?: number | null;
  statuses?: AlertStatus[] | null;
  severities?: AlertSeverity[] | null;
  search?: string | null;
  sort?: AlertSort | null;
  assigneeUsername?: string | null;
  domain?: AlertDomain | null;
};

/** GitLab's alert domains; threat monitoring alerts came from a feature forgegate does not have. */
export const ALERT_DOMAINS = ['operations', 'threat_monitoring'] as const;
export type AlertDomain = (typeof ALERT_DOMAINS)[number];

/** GitLab's `read_alert_management_alert` and triage: Developers and above. */
const READ_ALERTS = AccessLevel.DEVELOPER;

async function requireAlertAccess(ctx: Context, project: ProjectWithNamespace, level: number) {
  requireSignedIn(ctx);
  await ctx.policy.requireProjectAccess(project, level);
}

function alertQuery(projectId: number, filter: AlertFilter): AlertQuery {
  return {
    projectId,
    // Every alert forgegate receives is an operations alert.
    none: filter.domain === 'threat_monitoring',
    iid: filter.iid,
    statuses: filter.statuses,
    severities: filter.severities,
    assigneeUsername: filter.assigneeUsername,
    search: filter.search?.trim(),
  };
}

function alertOrder(sort: AlertSort | null | undefined): AlertOrder {
  const [, name, direction] = /^(.*)_(asc|desc)$/.exec(sort ?? 'created_desc')! as unknown as [string, string, 'asc' | 'desc'];
  const columns: Record<string, AlertOrder['column']> = {
    created: 'createdAt',
    created_time: 'createdAt',
    updated: 'updatedAt',
    updated_time: 'updatedAt',
    started_at: 'startedAt',
    ended_at: 'endedAt',
    event_count: 'events',
    severity: 'severity',
    status: 'status',
  };
  const column = columns[name];
  // GitLab: ascending severity is least critical first, ascending status is ignored first, so
  // both run against their enum order (critical…unknown, triggered…ignored).
  // Ties go by id in the requested direction.
  const asc = direction === 'asc';
  const enumOrder = column === 'severity' || column === 'status';
  return { column, direction: asc !== enumOrder ? 'ASC' : 'DESC', idDirection: asc ? 'ASC' : 'DESC' };
}

export async function listAlerts(ctx: Context, project: ProjectWithNamespace, filter: AlertFilter): Promise<Listing<Alert>> {
  await requireAlertAccess(ctx, project, READ_ALERTS);
  return alertPages(ctx.deps.sql, alertQuery(project.id, filter), alertOrder(filter.sort), ctx.countLimit);
}

/** Counts by status for the alert list's tabs (`open` = triggered + acknowledged), with the list's search and assignee. */
export async function alertStatusCounts(ctx: Context, project: ProjectWithNamespace, filter: Pick<AlertFilter, 'search' | 'assigneeUsername'>) {
  await requireAlertAccess(ctx, project, READ_ALERTS);
  const counts = await alertCountsByStatus(ctx.deps.sql, alertQuery(project.id, filter));
  const count = (s: AlertStatus) => counts.get(s) ?? 0;
  return {
    triggered: count('triggered'),
    acknowledged: count('acknowledged'),
    resolved: count('resolved'),
    ignored: count('ignored'),
    open: count('triggered') + count('acknowledged'),
    all: [...counts.values()].reduce((sum, n) => sum + n, 0),
  };
}

export async function requireTriage(ctx: Context, projectRef: ParentInput, iid: number): Promise<{ project: ProjectWithNamespace; alert: Alert }> {
  requireSignedIn(ctx);
  const project = await resolveProject(ctx, projectRef);
  await requireAlertAccess(ctx, project, READ_ALERTS);
  const alert = await ctx.db.alert.findUnique({ where: { projectId_iid: { projectId: project.id, iid } } });
  if (!alert) throw new NotFoundError('Alert');
  return { project, alert };
}

export const parseIid = (iid: string | number): number => {
  const n = Number(iid);
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw new NotFoundError('Alert');
  return n;
};

export async function setAlertStatus(ctx: Context, projectRef: ParentInput, iid: number, status: AlertStatus): Promise<Alert> {
  const { project, alert } = await requireTriage(ctx, projectRef, iid);
  if (alert.status === status) return alert;
  let updated: Alert;
  try {
    updated = await ctx.db.alert.update({
      where: { id: alert.id },
      data: { status, endedAt: status === 'resolved' ? new Date() : null },
    });
  } catch (error) {
    // Re-opening while another open alert holds the fingerprint would break grouping.
    if ((error as { code?: string }).code === 'P2002')
      throw new ValidationError({ status: ['cannot be changed: an open alert with the same fingerprint exists'] });
    throw error;
  }
  await addSystemNote(ctx.db, alert.id, ctx.viewer.userId, 'status', statusNote(status));
  await afterStatusChange(ctx.deps, project.id, updated, status);
  return updated;
}

export async function setAlertAssignees(
  ctx: Context,
  projectRef: ParentInput,
  iid: number,
  usernames: string[],
  mode: 'replace' | 'append' | 'remove',
): Promise<Alert> {
  const { project, alert } = await requireTriage(ctx, projectRef, iid);
  const users = await ctx.db.user.findMany({ where: { username: { in: usernames } }, select: { id: true, username: true } });
  const ids = users.map((u) => u.id);
  const before = await assigneeNames(ctx, alert.id);
  await ctx.db.$transaction([
    ...(mode === 'replace' ? [ctx.db.alertAssignee.deleteMany({ where: { alertId: alert.id } })] : []),
    mode === 'remove'
      ? ctx.db.alertAssignee.deleteMany({ where: { alertId: alert.id, userId: { in: ids } } })
      : ctx.db.alertAssignee.createMany({ data: ids.map((userId) => ({ alertId: alert.id, userId })), skipDuplicates: true }),
  ]);
  const updated = await ctx.db.alert.update({ where: { id: alert.id }, data: { updatedAt: new Date() } });
  const after = await assigneeNames(ctx, alert.id);
  const note = assigneesNote(
    after.filter((n) => !before.includes(n)),
    before.filter((n) => !after.includes(n)),
  );
  if (note) await addSystemNote(ctx.db, alert.id, ctx.viewer.userId, 'assignee', note);
  await broadcast(ctx.deps, { projectId: project.id, alertId: alert.id, iid: alert.iid, action: 'updated' });
  return updated;
}

// ---------------------------------------------------------------- notes and to-dos

export type NoteInput = { alertId: number; body: string; discussionId?: number | null };

/**
 * `createNote` on an alert, by whoever may triage it (Developers and above): a comment that starts
 * a discussion, or replies in one of the alert's.
 */
export async function createAlertNote(ctx: Context, input: NoteInput): Promise<AlertNote> {
  const alert = await triageById(ctx, input.alertId);
  if (!input.body.trim()) throw new ValidationError({ note: ["can't be blank"] });
  if (input.body.length > MAX_NOTE_LENGTH) throw new ValidationError({ note: [`is too long (maximum is ${MAX_NOTE_LENGTH} characters)`] });
  const discussionId = input.discussionId == null ? null : await discussionOf(ctx, alert.id, input.discussionId);
  return ctx.db.alertNote.create({ data: { alertId: alert.id, authorId: ctx.viewer.userId!, body: input.body, discussionId } });
}

/** A reply's discussion must be one of the alert's: its first note's id. */
async function discussionOf(ctx: Context, alertId: number, discussionId: number): Promise<number> {
  const first = await ctx.db.alertNote.findFirst({ where: { id: discussionId, alertId }, select: { id: true, discussionId: true } });
  if (!first) throw new FullMessagesError(['The discussion does not exist on this alert']);
  return discussionIdOf(first);
}

/** The alert a global id names, when the viewer may triage it; not found otherwise (GitLab says the same for both). */
async function triageById(ctx: Context, alertId: number): Promise<Alert> {
  requireSignedIn(ctx);
  const row = await ctx.db.alert.findUnique({ where: { id: alertId }, select: { projectId: true, iid: true } });
  if (!row) throw new NotFoundError('Alert');
  return (await requireTriage(ctx, { projectId: row.projectId }, row.iid)).alert;
}

/**
 * `alertTodoCreate`: the alert as a to-do of the viewer. One pending to-do per user and alert (a
 * lock per user and alert makes concurrent requests one); asking again is GitLab's error.
 */
export async function createAlertTodo(ctx: Context, projectRef: ParentInput, iid: number): Promise<{ alert: Alert; todo: Todo }> {
  const { alert } = await requireTriage(ctx, projectRef, iid);
  const userId = ctx.viewer.userId!;
  const todo = await ctx.db.$transaction(async (tx) => {
    await lockKey(tx, `todo:${userId}:alert:${alert.id}`);
    if (await tx.todo.findFirst({ where: { userId, alertId: alert.id, state: 'pending' } })) return null;
    return tx.todo.create({ data: { userId, authorId: userId, projectId: alert.projectId, alertId: alert.id, action: 'marked' } });
  });
  if (!todo) throw new FullMessagesError(['You already have pending todo for this alert']);
  return { alert, todo };
}

const assigneeNames = async (ctx: Context, alertId: number) =>
  (await ctx.db.alertAssignee.findMany({ where: { alertId }, select: { user: { select: { username: true } } }, orderBy: { userId: 'asc' } })).map(
    (a) => a.user.username,
  );

/**
 * The live view of a project's alerts (Developers and above): registered before it is returned,
 * so every change made after the subscription starts is streamed, from whichever process made it.
 */
export async function watchAlerts(ctx: Context, fullPath: string): Promise<AsyncIterableIterator<AlertChange>> {
  requireSignedIn(ctx);
  const project = await projectByFullPath(ctx, fullPath);
  if (!project) throw new NotFoundError('Project');
  await requireAlertAccess(ctx, project, READ_ALERTS);
  return alertChanges(ctx.deps, project.id);
}

/** The alert a streamed change names, with what its fields read (fresh on every event: the stream outlives caches). */
export const changedAlert = (ctx: Context, change: AlertChange) =>
  ctx.db.alert.findFirst({ where: { id: change.alertId, projectId: change.projectId }, include: { issue: true, assignees: { select: { user: true } } } });

// ---------------------------------------------------------------- incidents

/** The incident's description: the alert's details, then the metrics format's incident markdown. */
function incidentDescription(alert: Alert): string {
  const payload = (alert.payload ?? {}) as JsonObject;
  const lines = [
    `**Start time:** ${alert.startedAt.toISOString()}`,
    `**Severity:** ${alert.severity}`,
    alert.service && `**Service:** ${alert.service}`,
    alert.monitoringTool && `**Monitoring tool:** ${alert.monitoringTool}`,
    alert.hosts.length ? `**Hosts:** ${alert.hosts.join(', ')}` : null,
    alert.description && `**Description:** ${alert.description}`,
    alert.runbook && `**Runbook:** ${alert.runbook}`,
    `**GitLab alert:** #${alert.iid}`,
  ].filter(Boolean);
  const markdown = typeof payload.gitlab_incident_markdown === 'string' ? `\n\n---\n\n${payload.gitlab_incident_markdown}` : '';
  return `${lines.join('  \n')}${markdown}`;
}

/**
 * Opens the alert's incident unless it has one; concurrent calls make one (row lock on the alert).
 * `authorId` is whoever asked for it, null when the project's settings did.
 */
export async function openIncident(deps: Pick<AppDeps, 'db'>, alertId: number, authorId: number | null = null): Promise<Issue | null> {
  return deps.db.$transaction(async (tx) => {
    if (!(await lockAlert(tx, alertId))) return null;
    const alert = await tx.alert.findUniqueOrThrow({ where: { id: alertId }, include: { issue: true } });
    if (alert.issue) return alert.issue;
    const iid = await nextIid(tx, 'issues:project', alert.projectId);
    const issue = await tx.issue.create({
      data: { projectId: alert.projectId, iid, issueType: 'incident', title: alert.title, description: incidentDescription(alert) },
    });
    await tx.alert.update({ where: { id: alert.id }, data: { issueId: issue.id } });
    await addSystemNote(tx, alert.id, authorId, 'alert_issue_added', incidentNote(issue.iid));
    return issue;
  });
}

export async function closeIncident(deps: Pick<AppDeps, 'db'>, alertId: number): Promise<void> {
  const alert = await deps.db.alert.findUnique({ where: { id: alertId } });
  if (!alert?.issueId) return;
  await deps.db.issue.updateMany({ where: { id: alert.issueId, state: 'opened' }, data: { state: 'closed', closedAt: new Date() } });
}

export async function runIncidentJob(data: IncidentJob, deps: AppDeps): Promise<void> {
  if (data.action === 'open') await openIncident(deps, data.alertId);
  else await closeIncident(deps, data.alertId);
}

/** `createAlertIssue`: the incident of an alert, made now (Developers and above). */
export async function createAlertIncident(ctx: Context, projectRef: ParentInput, iid: number): Promise<{ alert: Alert; issue: Issue }> {
  const { alert } = await requireTriage(ctx, projectRef, iid);
  if (alert.issueId) throw new FullMessagesError(['An issue already exists']);
  const issue = await openIncident(ctx.deps, alert.id, ctx.viewer.userId);
  await broadcast(ctx.deps, { projectId: alert.projectId, alertId: alert.id, iid: alert.iid, action: 'updated' });
  return { alert: await ctx.db.alert.findUniqueOrThrow({ where: { id: alert.id } }), issue: issue! };
}

// ---------------------------------------------------------------- e-mail

/** The alert's e-mail body: what an on-call person needs to decide, and where to look. */
function alertEmailText(alert: Alert, projectPath: string, externalUrl: string): string {
  return [
    `An alert was triggered in ${projectPath}.`,
    '',
    `Title: ${alert.title}`,
    `Severity: ${alert.severity}`,
    `Start time: ${alert.startedAt.toISOString()}`,
    alert.service && `Service: ${alert.service}`,
    alert.monitoringTool && `Monitoring tool: ${alert.monitoringTool}`,
    alert.hosts.length ? `Hosts: ${alert.hosts.join(', ')}` : null,
    alert.description && `Description: ${alert.description}`,
    alert.runbook && `Runbook: ${alert.runbook}`,
    '',
    `View the alert: ${externalUrl}/${projectPath}/-/alert_management/${alert.iid}/details`,
  ]
    .filter((line) => line !== null && line !== undefined)
    .join('\n');
}

/**
 * `send_email`: a new alert is mailed to the project's Maintainers and Owners (direct and
 * inherited from its groups, active users only), one message with every recipient.
 */
export async function mailAlert(deps: AppDeps, alertId: number): Promise<void> {
  const alert = await deps.db.alert.findUnique({ where: { id: alertId }, include: { project: { include: { namespace: true } } } });
  if (!alert) return;
  const ctx = createContext(deps, Viewer.anonymous());
  const members = await listMembers(ctx, projectParent(alert.project), { relations: ['direct', 'inherited'] }).fetch({ offset: 0, limit: 10_000 });
  const to = members.filter((m) => m.accessLevel >= AccessLevel.MAINTAINER && m.user.state === 'active').map((m) => m.user.email);
  if (!to.length) return;
  const projectPath = projectFullPath(alert.project);
  await deps.mail.send({ to, subject: `${projectPath} | Alert: ${alert.title}`, text: alertEmailText(alert, projectPath, deps.config.externalUrl) });
}
