// Delivery of domain events to the integrations that subscribe to them. A subscriber turns an
// event into one job per active integration (so a crash or a failing receiver loses nothing and
// each integration retries on its own); the job sends the message and records the outcome.
//
// The message (our payload shape, documented in the README "Integration notifications"):
//   { "object_kind": "push" | "tag_push" | "release" | "alert" | "member" | "access_request" | "test",
//     "text": "<one line for humans>",
//     "group": { "id", "full_path" }, "project": { "id", "path_with_namespace" } | null,
//     "data": { …the event's own fields… } }
// Webhook chat kinds POST it as JSON to their webhook (the team chat kind adds `channel` and
// `username`); the bot kind calls `<hostname>/bot<token>/sendMessage` with `chat_id`, `text`,
// `message_thread_id`; e-mail kinds mail the recipients (SMTP_URL, else the outbox) with the text
// as subject and the JSON as body; the others record what they would send.
//
// Which events reach an integration: its event flags (push, tag push, alert …), and for branch
// pushes its `branches_to_be_notified` (`notify_only_default_branch: true` meaning `default`).
// Membership and access-request changes have no event flag in GitLab; they go to every active
// chat integration (the webhook chat kinds and the bot), which is where people watch for them.
import type { Integration, Namespace, Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../core/context.ts';
import type { DomainEvents } from '../../core/events.ts';
import type { AppDeps } from '../../deps.ts';
import type { JobContext } from '../../jobs/definitions.ts';
import { OutboundError, sendOutbound } from '../../http/outbound.ts';
import { kindOf, type EventFlag } from './registry.ts';
import { activeIntegrationsOf, eventsOf, findIntegration, missingSecrets, settingsOf, type IntegrationView } from './service.ts';
import type { GroupRef } from '../groups/service.ts';

export const DELIVERY_QUEUE = 'integration-delivery';

export type Message = {
  object_kind: 'push' | 'tag_push' | 'release' | 'alert' | 'member' | 'access_request' | 'test';
  text: string;
  group: { id: number; full_path: string };
  project: { id: number; path_with_namespace: string } | null;
  data: Record<string, unknown>;
};

export type DeliveryJob = { integrationId: number; flag: EventFlag | null; message: Message };

export type TestResult = { success: boolean; message: string; status: 'sent' | 'failed' | 'recorded' };

/** Per-event channel of the team chat kind, by the flag that selected the event. */
const CHANNEL_OF: Partial<Record<EventFlag, string>> = {
  push_events: 'push_channel',
  tag_push_events: 'tag_push_channel',
  issues_events: 'issue_channel',
  merge_requests_events: 'merge_request_channel',
  note_events: 'note_channel',
  pipeline_events: 'pipeline_channel',
  wiki_page_events: 'wiki_page_channel',
};

type Outcome = { status: TestResult['status']; target: string; responseCode?: number; error?: string };

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Sends one message the way the integration's kind delivers; never throws. */
async function send(deps: AppDeps, view: IntegrationView, flag: EventFlag | null, message: Message): Promise<Outcome> {
  const settings = settingsOf(deps, view);
  // Secrets that do not open for the stored destination stay unsent (service.ts `sealOf`).
  const missing = missingSecrets(view.kind, settings);
  if (missing.length) return { status: 'failed', target: '', error: `not sent: ${missing.join(', ')} not saved for this destination; save it again` };
  let url: string;
  let body: Record<string, unknown>;
  switch (view.kind.delivery) {
    case 'webhook-chat': {
      url = String(settings.webhook);
      const channel = (flag && str(settings[CHANNEL_OF[flag] ?? ''])) ?? str(settings.channel);
      body = { ...message, ...(channel && { channel }), ...(str(settings.username) && { username: settings.username }) };
      break;
    }
    case 'bot': {
      const base = String(settings.hostname ?? 'https://api.telegram.org').replace(/\/+$/, '');
      url = `${base}/bot${settings.token}/sendMessage`;
      body = { chat_id: settings.room, text: message.text, ...(settings.thread != null && { message_thread_id: settings.thread }) };
      break;
    }
    case 'email-pipeline':
    case 'email-push':
      return sendMail(deps, String(settings.recipients ?? ''), message);
    default:
      return { status: 'recorded', target: '' };
  }
  // The bot token is part of the bot URL: keep it out of what is recorded.
  const target = view.kind.delivery === 'bot' ? url.replace(/\/bot[^/]*\//, '/bot[FILTERED]/') : new URL(url).origin;
  try {
    const response = await sendOutbound(deps.db, url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'forgegate-integrations' },
      body: JSON.stringify(body),
      timeoutMs: 10_000,
      maxResponseBytes: 64 * 1024,
    });
    const ok = response.status >= 200 && response.status < 300;
    return { status: ok ? 'sent' : 'failed', target, responseCode: response.status, ...(!ok && { error: `receiver answered ${response.status}` }) };
  } catch (error) {
    return { status: 'failed', target, error: error instanceof OutboundError ? `${error.reason}: ${error.message}` : 'request failed' };
  }
}

/** E-mail kinds: one mail to the recipients (SMTP_URL, else the outbox), the message as its body. */
async function sendMail(deps: AppDeps, recipients: string, message: Message): Promise<Outcome> {
  const to = recipients.split(/[\s,]+/).filter(Boolean);
  const target = to.join(', ');
  try {
    await deps.mail.send({ to, subject: `[forgegate] ${message.text}`, text: `${message.text}\n\n${JSON.stringify(message, null, 2)}\n` });
    return { status: 'sent', target };
  } catch (error) {
    return { status: 'failed', target, error: `mail: ${(error as Error).message}` };
  }
}

async function record(deps: AppDeps, row: Integration, message: Message, outcome: Outcome) {
  await deps.db.integrationDelivery.create({
    data: {
      integrationId: row.id,
      event: message.object_kind,
      status: outcome.status,
      target: outcome.target,
      payload: message as unknown as Prisma.InputJsonObject,
      responseCode: outcome.responseCode,
      error: outcome.error,
    },
  });
}

/** The job: one message to one integration; a failure is thrown so the queue retries it. */
export async function deliver(data: DeliveryJob, job: JobContext): Promise<void> {
  const row = await job.deps.db.integration.findUnique({ where: { id: data.integrationId } });
  const kind = row && kindOf(row.slug);
  if (!row || !kind || !row.active) return; // disabled since: nothing to send
  const outcome = await send(job.deps, { row, kind, inherited: false }, data.flag, data.message);
  await record(job.deps, row, data.message, outcome);
  if (outcome.status === 'failed') throw new Error(`integration ${row.id} delivery failed: ${outcome.error}`);
}

type Wants = (view: IntegrationView) => boolean;

/** Enqueues the message for every active integration of the group that `wants` it. */
async function fanOut(deps: AppDeps, group: Namespace, flag: EventFlag | null, message: Message, wants: Wants) {
  for (const view of await activeIntegrationsOf(deps, group)) {
    if (!wants(view)) continue;
    await deps.jobs.send(DELIVERY_QUEUE, { integrationId: view.row.id, flag, message } satisfies DeliveryJob);
  }
}

const subscribesTo =
  (flag: EventFlag): Wants =>
  (view) =>
    view.kind.events.includes(flag) && eventsOf(view.row)[flag];

const CHAT_DELIVERIES: readonly string[] = ['webhook-chat', 'bot'];
const isChat: Wants = (view) => CHAT_DELIVERIES.includes(view.kind.delivery);

/**
 * Whether a push to `branch` passes the integration's branch filter. forgegate protects exactly
 * the default branch (only Maintainers push there), so `protected` and `default_and_protected`
 * select it as `default` does; kinds without the setting hear every branch.
 */
function notifiesBranch(view: IntegrationView, branch: string, defaultBranch: string): boolean {
  const settings = view.row.properties as Record<string, unknown>;
  const declared = view.kind.params.some((param) => param.name === 'branches_to_be_notified');
  if (!declared) return true;
  const setting = settings.notify_only_default_branch === true ? 'default' : String(settings.branches_to_be_notified ?? 'default');
  return setting === 'all' || branch === defaultBranch;
}

/** The project's group (with ancestry) and its message header; null for projects in a user's namespace. */
async function projectScope(deps: AppDeps, projectId: number) {
  const project = await deps.db.project.findUnique({ where: { id: projectId }, include: { namespace: true } });
  if (project?.namespace.kind !== 'group') return null;
  return {
    group: project.namespace,
    defaultBranch: project.defaultBranch,
    header: {
      group: { id: project.namespace.id, full_path: project.namespace.fullPath },
      project: { id: project.id, path_with_namespace: `${project.namespace.fullPath}/${project.path}` },
    },
  };
}

/** The scope of an event about a project or a group: the group whose integrations hear it. */
async function parentScope(deps: AppDeps, ids: { projectId: number | null; groupId: number | null }) {
  if (ids.projectId !== null) return projectScope(deps, ids.projectId);
  const group = ids.groupId === null ? null : await deps.db.namespace.findUnique({ where: { id: ids.groupId } });
  if (group?.kind !== 'group') return null;
  return { group, header: { group: { id: group.id, full_path: group.fullPath }, project: null } };
}

const short = (sha: string) => sha.slice(0, 8);
const ZERO = /^0+$/;

export async function onPush(event: DomainEvents['push'], deps: AppDeps) {
  const scope = await projectScope(deps, event.projectId);
  if (!scope) return;
  const tag = event.ref.startsWith('refs/tags/');
  const name = event.ref.replace(/^refs\/(heads|tags)\//, '');
  const action = ZERO.test(event.before) ? 'created' : ZERO.test(event.after) ? 'deleted' : `pushed ${short(event.before)}..${short(event.after)} to`;
  const text = `${scope.header.project.path_with_namespace}: ${action} ${tag ? 'tag' : 'branch'} ${name}`;
  const flag = tag ? 'tag_push_events' : 'push_events';
  const wants: Wants = (view) => subscribesTo(flag)(view) && (tag || notifiesBranch(view, name, scope.defaultBranch));
  await fanOut(deps, scope.group, flag, { object_kind: tag ? 'tag_push' : 'push', text, ...scope.header, data: { ...event } }, wants);
}

export async function onRelease(event: DomainEvents['release'], deps: AppDeps) {
  const scope = await projectScope(deps, event.projectId);
  if (!scope) return;
  const text = `${scope.header.project.path_with_namespace}: release ${event.name ?? event.tagName} (${event.tagName}) ${event.action}`;
  // A release is about a tag: integrations that notify tag pushes hear it.
  await fanOut(deps, scope.group, 'tag_push_events', { object_kind: 'release', text, ...scope.header, data: { ...event } }, subscribesTo('tag_push_events'));
}

export async function onAlert(event: DomainEvents['alert'], deps: AppDeps) {
  const scope = await projectScope(deps, event.projectId);
  if (!scope) return;
  const alert = await deps.db.alert.findUnique({ where: { id: event.alertId }, select: { title: true, severity: true, status: true } });
  const text = `${scope.header.project.path_with_namespace}: alert ^${event.iid} ${event.action.replace('_', ' ')}${alert ? `: ${alert.title} (${alert.severity}, ${alert.status})` : ''}`;
  await fanOut(deps, scope.group, 'alert_events', { object_kind: 'alert', text, ...scope.header, data: { ...event, ...alert } }, subscribesTo('alert_events'));
}

const where = (scope: { header: Pick<Message, 'group' | 'project'> }) => scope.header.project?.path_with_namespace ?? scope.header.group.full_path;

async function username(deps: AppDeps, userId: number | null) {
  if (userId === null) return 'someone';
  return (await deps.db.user.findUnique({ where: { id: userId }, select: { username: true } }))?.username ?? `user ${userId}`;
}

export async function onMember(event: DomainEvents['member'], deps: AppDeps) {
  const scope = await parentScope(deps, event);
  if (!scope) return;
  const text = `${where(scope)}: member ${await username(deps, event.userId)} ${event.action} (access level ${event.accessLevel}) by ${await username(deps, event.actorId)}`;
  await fanOut(deps, scope.group, null, { object_kind: 'member', text, ...scope.header, data: { ...event } }, isChat);
}

export async function onAccessRequest(event: DomainEvents['accessRequest'], deps: AppDeps) {
  const scope = await parentScope(deps, event);
  if (!scope) return;
  const who = await username(deps, event.userId);
  const text =
    event.action === 'requested' || event.action === 'withdrawn'
      ? `${where(scope)}: ${who} ${event.action === 'requested' ? 'requested access' : 'withdrew the access request'}`
      : `${where(scope)}: access request of ${who} ${event.action} by ${await username(deps, event.actorId)}`;
  await fanOut(deps, scope.group, null, { object_kind: 'access_request', text, ...scope.header, data: { ...event } }, isChat);
}

/** Sends a sample message now (not queued) and reports the outcome; Maintainers and above. */
export async function testIntegration(ctx: Context, ref: GroupRef, slug: string): Promise<TestResult> {
  const view = await findIntegration(ctx, ref, slug);
  const group = await ctx.db.namespace.findUniqueOrThrow({ where: { id: view.row.namespaceId } });
  const message: Message = {
    object_kind: 'test',
    text: `Test notification from forgegate for the ${view.kind.title} integration`,
    group: { id: group.id, full_path: group.fullPath },
    project: null,
    data: {},
  };
  const outcome = await send(ctx.deps, view, view.kind.events[0] ?? null, message);
  await record(ctx.deps, view.row, message, outcome);
  const text =
    outcome.status === 'failed' ? (outcome.error ?? 'failed') : outcome.status === 'sent' ? `Sent to ${outcome.target}` : 'Recorded (this kind does not send)';
  return { success: outcome.status !== 'failed', message: text, status: outcome.status };
}
