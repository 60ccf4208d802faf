// How an alert payload becomes alert fields: the generic format, the metrics (Alertmanager)
// format, custom field mappings, severities and fingerprints. Pure functions, no I/O.
import { createHash } from 'node:crypto';
import { isStorableDate } from '../../core/input.ts';
import type { AlertSeverity } from '../../generated/prisma/client.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The alert fields one payload (or one element of a metrics payload) yields. */
export type ParsedAlert = {
  title: string;
  description: string | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  severity: AlertSeverity;
  startedAt: Date;
  endedAt: Date | null;
  /** A resolving payload closes the open alert with the same fingerprint. */
  resolving: boolean;
  environment: string | null;
  runbook: string | null;
  incidentMarkdown: string | null;
  /** SHA-1 hex, or null: an alert without one is never grouped. */
  fingerprint: string | null;
  payload: JsonObject;
};

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const MAX_PAYLOAD_DEPTH = 100;
/** At most this many alerts of one metrics payload are processed (GitLab truncates the rest). */
export const MAX_METRICS_ALERTS = 100;

export const DEFAULT_TITLE = 'New: Alert';

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field's text, cut to `max` without splitting a surrogate pair (half of one cannot be stored). */
const text = (value: unknown, max: number): string | null => {
  if (value === null || value === undefined || value === '') return null;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  const cut = s.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
};

const sha1 = (plain: string) => createHash('sha1').update(plain).digest('hex');

/** A date from ISO text or epoch milliseconds; null when absent, unreadable or outside the years PostgreSQL stores (1 to 9999). */
function time(value: unknown): Date | null {
  if (typeof value === 'number') return storable(new Date(value));
  if (typeof value !== 'string' || value.trim() === '') return null;
  return storable(new Date(value));
}
const storable = (date: Date) => (isStorableDate(date) ? date : null);

const GENERIC_SEVERITIES: readonly AlertSeverity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];

/** Generic payloads name a severity directly (case-insensitive); anything else is critical. */
export function genericSeverity(value: unknown): AlertSeverity {
  const name = typeof value === 'string' ? value.toLowerCase() : '';
  return GENERIC_SEVERITIES.find((s) => s === name) ?? 'critical';
}

const METRICS_SEVERITIES: Record<string, AlertSeverity> = Object.fromEntries(
  (
    [
      ['critical', ['critical', 's1', 'p1', 'emergency', 'fatal']],
      ['high', ['high', 's2', 'p2', 'major', 'page']],
      ['medium', ['medium', 's3', 'p3', 'error', 'alert']],
      ['low', ['low', 's4', 'p4', 'warn', 'warning', 'minor']],
      ['info', ['info', 's5', 'p5', 'debug', 'information', 'notice']],
    ] as const
  ).flatMap(([severity, values]) => values.map((v) => [v, severity])),
);

/** The metrics format's value sets (case-insensitive); anything else is critical. */
export function metricsSeverity(value: unknown): AlertSeverity {
  return (typeof value === 'string' && METRICS_SEVERITIES[value.toLowerCase()]) || 'critical';
}

/** GitLab's fingerprint of a given value: SHA-1 of the string, of a number's text, of an array's flattened elements joined. */
export function givenFingerprint(value: Json): string | null {
  if (value === null || value === '') return null;
  if (Array.isArray(value)) {
    const flat = (value as Json[]).flat(Infinity as 1) as Json[];
    return sha1(flat.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(''));
  }
  return sha1(typeof value === 'string' ? value : JSON.stringify(value));
}

/** JSON with object keys sorted at every level: the same content always gives the same text. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const isBlank = (v: Json) => v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * The fingerprint GitLab derives (flag `generic_alert_fingerprinting`) when a payload gives none:
 * the payload without start_time, end_time and hosts, in a canonical form (GitLab hashes a Ruby
 * inspect string; ours is sorted-key JSON so every process and version agrees); null when nothing
 * is left.
 */
export function derivedFingerprint(payload: JsonObject): string | null {
  const rest = Object.fromEntries(Object.entries(payload).filter(([k]) => !['start_time', 'end_time', 'hosts'].includes(k)));
  if (Object.values(rest).every(isBlank)) return null;
  return sha1(canonicalJson(rest));
}

/** Custom mapping of an HTTP endpoint: which payload path feeds which alert field. */
export type AttributeMapping = { fieldName: MappableField; path: string[]; type: string; label?: string | null };

export const MAPPABLE_FIELDS = [
  'title',
  'description',
  'start_time',
  'end_time',
  'service',
  'monitoring_tool',
  'hosts',
  'severity',
  'fingerprint',
  'gitlab_environment_name',
] as const;
export type MappableField = (typeof MAPPABLE_FIELDS)[number];

export function valueAt(value: Json | undefined, path: readonly string[]): Json | undefined {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isObject(current)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** A field of a sample payload the custom-mapping editor offers: where it is, its label, its kind. */
export type PayloadField = { path: string[]; label: string; type: 'array' | 'datetime' | 'string' };

/** GitLab's label of a key: `started_at` reads "Started at" (Rails' humanize). */
const humanized = (key: string) => {
  const words = key.replace(/_id$/, '').replace(/_/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Text that starts like a year and parses as a time is a datetime; other text a string; other scalars are not offered. */
function fieldType(value: Json): PayloadField['type'] | null {
  if (Array.isArray(value)) return 'array';
  if (typeof value !== 'string') return null;
  return /^\d{4}/.test(value) && !Number.isNaN(Date.parse(value)) ? 'datetime' : 'string';
}

/**
 * The fields of a sample payload, in its order: every leaf under nested objects, each with its
 * path of keys (GitLab's payload field extractor: arrays are leaves, numbers and booleans are left out).
 */
export function payloadFields(sample: JsonObject, parent: string[] = []): PayloadField[] {
  return Object.entries(sample).flatMap(([key, value]): PayloadField[] => {
    const path = [...parent, key];
    if (isObject(value)) return payloadFields(value, path);
    const type = fieldType(value);
    return type ? [{ path, label: humanized(key), type }] : [];
  });
}

/** The payload's standard keys, overridden by the endpoint's mapped paths where they hold a value. */
function applyMappings(payload: JsonObject, mappings: readonly AttributeMapping[]): JsonObject {
  const mapped: JsonObject = { ...payload };
  for (const m of mappings) {
    const value = valueAt(payload, m.path);
    if (value !== undefined && value !== null) mapped[m.fieldName] = value;
  }
  return mapped;
}

function hostsOf(value: Json | undefined): string[] {
  if (value === undefined || value === null || value === '') return [];
  const list = (Array.isArray(value) ? value.flat(Infinity as 1) : [value]) as Json[];
  const hosts = list.map((h) => (typeof h === 'string' ? h : JSON.stringify(h)));
  // GitLab cuts the joined hosts to 255 characters.
  const kept: string[] = [];
  let length = 0;
  for (const h of hosts) {
    if (length + h.length > 255) break;
    kept.push(h);
    length += h.length;
  }
  return kept;
}

export function parseGeneric(raw: JsonObject, opts: { mappings: readonly AttributeMapping[]; deriveFingerprint: boolean; now: Date }): ParsedAlert {
  const p = applyMappings(raw, opts.mappings);
  const endedAt = time(p.end_time);
  const fingerprint =
    p.fingerprint !== undefined && !isBlank(p.fingerprint) ? givenFingerprint(p.fingerprint) : opts.deriveFingerprint ? derivedFingerprint(raw) : null;
  return {
    title: text(p.title, 200) ?? DEFAULT_TITLE,
    description: text(p.description, 1000),
    service: text(p.service, 100),
    monitoringTool: text(p.monitoring_tool, 100),
    hosts: hostsOf(p.hosts),
    severity: genericSeverity(p.severity),
    startedAt: time(p.start_time) ?? opts.now,
    endedAt,
    resolving: p.end_time !== undefined && p.end_time !== null && p.end_time !== '',
    environment: text(p.gitlab_environment_name, 255),
    runbook: null,
    incidentMarkdown: null,
    fingerprint,
    payload: raw,
  };
}

const METRICS_KEYS = ['version', 'groupKey', 'status', 'receiver', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL', 'alerts'];

/** An Alertmanager webhook body (version "4" with all its top-level keys), whatever URL it was posted to. */
export const isMetricsPayload = (body: JsonObject) => METRICS_KEYS.every((k) => k in body) && body.version === '4';

/** `g0.expr` of the generator URL's query: the metric's query. */
function metricQuery(generatorUrl: Json | undefined): string {
  if (typeof generatorUrl !== 'string') return '';
  try {
    return new URL(generatorUrl).searchParams.get('g0.expr') ?? '';
  } catch {
    return '';
  }
}

/**
 * One element of a metrics payload's `alerts`; null when it has no title or no startsAt (GitLab
 * skips it). Its fingerprint is SHA-1 of `startsAt/title/query`, as GitLab's.
 */
export function parseMetricsAlert(element: Json): ParsedAlert | null {
  if (!isObject(element)) return null;
  const annotations = isObject(element.annotations) ? element.annotations : {};
  const labels = isObject(element.labels) ? element.labels : {};
  const title = text(annotations.title, 200) ?? text(annotations.summary, 200) ?? text(labels.alertname, 200);
  const startsAt = typeof element.startsAt === 'string' ? element.startsAt : null;
  if (!title || !startsAt) return null;
  const query = metricQuery(element.generatorURL);
  const endedAt = time(element.endsAt);
  return {
    title,
    description: text(annotations.description, 1000),
    service: null,
    monitoringTool: 'Prometheus',
    hosts: [],
    severity: metricsSeverity(labels.severity),
    startedAt: time(startsAt) ?? new Date(),
    endedAt,
    // Alertmanager sends endsAt "0001-01-01T00:00:00Z" on firing alerts: only a real time resolves.
    resolving: element.status === 'resolved' || (endedAt !== null && endedAt.getUTCFullYear() > 1),
    environment: text(labels.gitlab_environment_name, 255),
    runbook: text(annotations.runbook, 2000),
    incidentMarkdown: text(annotations.gitlab_incident_markdown, 100_000),
    fingerprint: sha1([startsAt, title, query].join('/')),
    payload: element,
  };
}
