// The notes on an alert: what GitLab's system notes say when an alert is logged, triaged or gets
// its incident, and the discussion each note starts. Alerts have no REST notes in GitLab.
import type { AlertNote, AlertStatus, Prisma } from '../../generated/prisma/client.ts';

/** GitLab's system note actions on alerts; each has the icon its note shows (`systemNoteIconName`). */
export const SYSTEM_NOTE_ICONS = {
  new_alert_added: 'warning',
  status: 'status',
  assignee: 'user',
  alert_issue_added: 'issues',
} as const;
export type SystemAction = keyof typeof SYSTEM_NOTE_ICONS;

/** GitLab's limit on a note's text. */
export const MAX_NOTE_LENGTH = 1_000_000;

/** A note's discussion: the first note's id (a note that starts one is its own). */
export const discussionIdOf = (note: Pick<AlertNote, 'id' | 'discussionId'>) => note.discussionId ?? note.id;

type Db = Pick<Prisma.TransactionClient, 'alertNote'>;

/** A system note on the alert; `authorId` null for what intake does (GitLab's alert bot). */
export function addSystemNote(db: Db, alertId: number, authorId: number | null, action: SystemAction, body: string): Promise<AlertNote> {
  return db.alertNote.create({ data: { alertId, authorId, body, system: true, systemAction: action } });
}

const titleized = (status: AlertStatus) => status.charAt(0).toUpperCase() + status.slice(1);

export const statusNote = (status: AlertStatus) => `changed the status to **${titleized(status)}**`;

/** What a new alert's note names as its source: the tool, else the endpoint, else GitLab's generic name. */
export const newAlertNote = (source: string | null) => `logged an alert from **${source || 'Generic Alert Endpoint'}**`;

export const incidentNote = (issueIid: number) => `created incident #${issueIid} for this alert`;

/** GitLab's assignee change note: `assigned to @a and unassigned @b`; null when nothing changed. */
export function assigneesNote(added: readonly string[], removed: readonly string[]): string | null {
  const mention = (names: readonly string[]) => names.map((n) => `@${n}`).join(', ');
  const parts = [added.length ? `assigned to ${mention(added)}` : null, removed.length ? `unassigned ${mention(removed)}` : null].filter(Boolean);
  return parts.length ? parts.join(' and ') : null;
}
