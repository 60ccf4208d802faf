import type { Integration, Namespace, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, MissingError, ParamError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import type { AppDeps } from '../../deps.ts';
import { requireGroup, type GroupRef } from '../groups/service.ts';
import { decryptSecrets, encryptSecrets } from './crypto.ts';
import { EVENT_DEFAULTS, EVENT_FLAGS, kindOf, PROJECT_ONLY_SLUGS, type EventFlag, type KindDef, type ParamDef } from './registry.ts';

/**
 * An integration as a group sees it: the row that supplies the settings (the group's own, or the
 * nearest ancestor's when the group inherits) and whether it came from an ancestor.
 */
export type IntegrationView = { row: Integration; kind: KindDef; inherited: boolean };

export type Settings = Record<string, string | boolean | number | null | undefined>;

export type SetUpInput = {
  group: GroupRef;
  slug: string;
  useInheritedSettings?: boolean | null;
  events?: Partial<Record<EventFlag, boolean | null>>;
  /** Keyed by the spec's neutral names; aliases were already resolved by the transport. */
  settings?: Settings | null;
};

/** GitLab's `400 Integration not available` for project-only kinds; `slug does not have a valid value` for others. */
export function requireKind(slug: string, ctx?: Pick<Context, 'deps'>): KindDef {
  if ((PROJECT_ONLY_SLUGS as readonly string[]).includes(slug)) throw new BadRequestError('400 Integration not available');
  const kind = kindOf(slug);
  if (!kind || (kind.developmentOnly && ctx && !ctx.deps.config.development)) throw new ParamError('slug does not have a valid value');
  return kind;
}

/** A group the viewer maintains: 401 anonymous, 404 invisible, 403 below Maintainer. */
async function maintainedGroup(ctx: Context, ref: GroupRef): Promise<Namespace> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const group = await requireGroup(ctx, ref);
  await ctx.policy.requireGroupAccess(group, AccessLevel.MAINTAINER);
  return group;
}

/** Rows of a slug (or every slug) along a group's ancestry, nearest first. */
async function chainRows(db: AppDeps['db'], group: Pick<Namespace, 'traversalIds'>, slug?: string): Promise<Integration[]> {
  const rows = await db.integration.findMany({ where: { namespaceId: { in: group.traversalIds }, ...(slug && { slug }) } });
  const depth = (row: Integration) => group.traversalIds.indexOf(row.namespaceId);
  return rows.sort((a, b) => depth(b) - depth(a));
}

/** The effective integration of each kind: the nearest row that does not itself inherit. */
function effective(group: Pick<Namespace, 'id'>, rows: Integration[]): IntegrationView[] {
  const seen = new Set<string>();
  const views: IntegrationView[] = [];
  for (const row of rows) {
    if (seen.has(row.slug) || row.useInheritedSettings) continue;
    const kind = kindOf(row.slug);
    if (!kind) continue;
    seen.add(row.slug);
    views.push({ row, kind, inherited: row.namespaceId !== group.id });
  }
  return views.sort((a, b) => a.row.slug.localeCompare(b.row.slug));
}

/** Active integrations of a group (its own and inherited), for `GET /groups/:id/integrations`. */
export async function listIntegrations(ctx: Context, ref: GroupRef): Promise<IntegrationView[]> {
  const group = await maintainedGroup(ctx, ref);
  return effective(group, await chainRows(ctx.db, group)).filter((view) => view.row.active);
}

/** Active integrations of a namespace, for delivery (no viewer). */
export async function activeIntegrationsOf(deps: Pick<AppDeps, 'db'>, namespace: Pick<Namespace, 'id' | 'traversalIds'>): Promise<IntegrationView[]> {
  return effective(namespace, await chainRows(deps.db, namespace)).filter((view) => view.row.active);
}

export async function findIntegration(ctx: Context, ref: GroupRef, slug: string): Promise<IntegrationView> {
  const kind = requireKind(slug, ctx);
  const group = await maintainedGroup(ctx, ref);
  const view = effective(group, await chainRows(ctx.db, group, kind.slug))[0];
  if (!view) throw new MissingError('404 Integration Not Found');
  return view;
}

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function checkUrl(param: ParamDef, value: string, problems: Record<string, string[]>) {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) problems[param.name] = ['is blocked: Only allowed schemes are http, https'];
}

/**
 * The kind's rules on a set-up: every required parameter given (Grape's `x is missing`, all at
 * once), allowed values, types, http(s) URLs. Returns the values to store, defaults filled in,
 * deprecated-and-ignored ones dropped.
 */
export function validateSettings(kind: KindDef, settings: Settings): Settings {
  const missing = kind.params.filter((param) => param.required && isBlank(settings[param.name])).map((param) => `${param.name} is missing`);
  if (missing.length) throw new ParamError(missing.join(', '));
  const invalid: string[] = [];
  const problems: Record<string, string[]> = {};
  const values: Settings = {};
  for (const param of kind.params) {
    const given = settings[param.name];
    if (param.deprecated === 'ignored') continue;
    if (isBlank(given)) {
      if (param.default !== undefined) values[param.name] = param.default;
      continue;
    }
    if (param.type === 'boolean' && typeof given !== 'boolean') invalid.push(`${param.name} is invalid`);
    else if (param.type === 'integer' && !Number.isInteger(given)) invalid.push(`${param.name} is invalid`);
    else if (param.type === 'string' && typeof given !== 'string') invalid.push(`${param.name} is invalid`);
    else if (param.values && !param.values.includes(given as string)) invalid.push(`${param.name} does not have a valid value`);
    else {
      if (param.url) checkUrl(param, given as string, problems);
      values[param.name] = given;
    }
  }
  if (invalid.length) throw new ParamError(invalid.join(', '));
  if (Object.keys(problems).length) throw new ValidationError(problems);
  return values;
}

const isEventFlag = (name: string): name is EventFlag => (EVENT_FLAGS as readonly string[]).includes(name);

/** Splits validated values into what is stored in the clear, encrypted, and as event flags. */
function partition(kind: KindDef, values: Settings) {
  const properties: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  const events: Partial<Record<EventFlag, boolean>> = {};
  for (const param of kind.params) {
    if (!(param.name in values)) continue;
    const value = values[param.name];
    if (isEventFlag(param.name)) events[param.name] = value as boolean;
    else if (param.secret) secrets[param.name] = value;
    else properties[param.name] = value;
  }
  return { properties, secrets, events };
}

type RowKey = { namespaceId_slug: { namespaceId: number; slug: string } };

/** Two set-ups racing to create the row: the loser's insert hits the unique key and becomes an update (last writer wins). */
async function upsertRow(ctx: Context, where: RowKey, create: Prisma.IntegrationUncheckedCreateInput, update: Prisma.IntegrationUncheckedUpdateInput) {
  try {
    await ctx.db.integration.upsert({ where, create, update });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await ctx.db.integration.update({ where, data: update });
  }
}

/** Sets up or updates a group's integration of a kind (`PUT /groups/:id/integrations/:slug`). */
export async function setUpIntegration(ctx: Context, input: SetUpInput): Promise<IntegrationView> {
  const kind = requireKind(input.slug, ctx);
  const group = await maintainedGroup(ctx, input.group);
  const where = { namespaceId_slug: { namespaceId: group.id, slug: kind.slug } };
  if (input.useInheritedSettings) {
    const ancestor = effective(
      group,
      (await chainRows(ctx.db, group, kind.slug)).filter((row) => row.namespaceId !== group.id),
    )[0];
    if (!ancestor) throw new BadRequestError('There is no inherited integration to use for this group');
    await upsertRow(ctx, where, { namespaceId: group.id, slug: kind.slug, useInheritedSettings: true }, { useInheritedSettings: true });
    return findIntegration(ctx, input.group, kind.slug);
  }
  const { properties, secrets, events } = partition(kind, validateSettings(kind, input.settings ?? {}));
  const given = Object.fromEntries(Object.entries(input.events ?? {}).filter(([, v]) => v != null)) as Partial<Record<EventFlag, boolean>>;
  const existing = await ctx.db.integration.findUnique({ where });
  const previous = (existing && !existing.useInheritedSettings ? existing.events : {}) as Partial<Record<EventFlag, boolean>>;
  const data = {
    active: true,
    useInheritedSettings: false,
    properties: properties as Prisma.InputJsonObject,
    events: { ...EVENT_DEFAULTS, ...previous, ...given, ...events },
    secrets: Object.keys(secrets).length ? encryptSecrets(ctx.deps.secrets.tokenDigestKey, secrets, sealOf(kind, properties)) : null,
  };
  await upsertRow(ctx, where, { namespaceId: group.id, slug: kind.slug, ...data }, data);
  return findIntegration(ctx, input.group, kind.slug);
}

/**
 * GitLab's ResetSecretFields: a change of where the integration sends (a destination field) needs
 * every stored secret given again in the same request. Whoever points an integration somewhere else
 * must know its secrets, so a Maintainer who never saw the owner's bot token cannot redirect it to a
 * host of theirs and have it sent there.
 */
function requireSecretsForNewDestination(kind: KindDef, stored: Settings, given: Settings) {
  const moved = kind.params
    .filter((param) => param.destination && given[param.name] !== undefined && given[param.name] !== stored[param.name])
    .map((param) => param.name);
  if (!moved.length) return;
  const missing = kind.params.filter((param) => param.secret && isBlank(given[param.name]) && !isBlank(stored[param.name]));
  if (missing.length)
    throw new ValidationError(Object.fromEntries(missing.map((param) => [param.name, [`must be given again when ${moved.join(', ')} changes`]])));
}

/**
 * Changes some settings of the group's own active integration, keeping the others (secrets
 * included, unless a destination changes) as stored: a partial update, where set-up takes the
 * whole record. 404 when the group has no own active integration of the kind.
 */
export async function updateIntegration(ctx: Context, input: SetUpInput): Promise<IntegrationView> {
  const kind = requireKind(input.slug, ctx);
  const group = await maintainedGroup(ctx, input.group);
  const row = await ctx.db.integration.findUnique({ where: { namespaceId_slug: { namespaceId: group.id, slug: kind.slug } } });
  if (!row?.active || row.useInheritedSettings) throw new MissingError('404 Integration Not Found');
  const view = { row, kind, inherited: false };
  const given = Object.fromEntries(Object.entries(input.settings ?? {}).filter(([, value]) => value !== undefined)) as Settings;
  const stored = { ...propertiesOf(view), ...secretsOf(ctx.deps, view) } as Settings;
  requireSecretsForNewDestination(kind, stored, given);
  return setUpIntegration(ctx, { ...input, useInheritedSettings: false, settings: { ...stored, ...given } });
}

/** Disables the group's own integration and resets its settings (`DELETE`); 404 when it has none. */
export async function disableIntegration(ctx: Context, ref: GroupRef, slug: string): Promise<IntegrationView> {
  const kind = requireKind(slug, ctx);
  const group = await maintainedGroup(ctx, ref);
  const reset = { active: false, useInheritedSettings: false, properties: {}, events: {}, secrets: null };
  const { count } = await ctx.db.integration.updateMany({ where: { namespaceId: group.id, slug: kind.slug }, data: reset });
  if (!count) throw new MissingError('404 Integration Not Found');
  const row = await ctx.db.integration.findUniqueOrThrow({ where: { namespaceId_slug: { namespaceId: group.id, slug: kind.slug } } });
  return { row, kind, inherited: false };
}

/** The record's flags: stored ones over GitLab's defaults (a reset row shows the defaults). */
export const eventsOf = (row: Integration): Record<EventFlag, boolean> => ({ ...EVENT_DEFAULTS, ...(row.events as Partial<Record<EventFlag, boolean>>) });

/** The non-secret settings, every parameter of the kind present (null when unset). */
export function propertiesOf(view: IntegrationView): Record<string, unknown> {
  const stored = view.row.properties as Record<string, unknown>;
  const events = eventsOf(view.row);
  return Object.fromEntries(
    view.kind.params
      .filter((param) => !param.secret && param.deprecated !== 'ignored')
      .map((param) => [param.name, isEventFlag(param.name) ? events[param.name] : (stored[param.name] ?? null)]),
  );
}

/**
 * What the secrets are sealed to (crypto.ts): the kind and the values of its non-secret destination
 * fields as stored. A secret opens only beside the destination it was saved with, so no code path
 * (the test endpoint, a queued delivery, a row changed behind the service's back) can pair an old
 * secret with a new destination.
 */
function sealOf(kind: KindDef, properties: Record<string, unknown>): string {
  return JSON.stringify([kind.slug, ...kind.params.filter((param) => param.destination && !param.secret).map((param) => properties[param.name] ?? null)]);
}

/** The stored secrets; none when they were saved for another destination than the stored one. */
function secretsOf(deps: Pick<AppDeps, 'secrets'>, view: IntegrationView): Record<string, unknown> {
  const properties = view.row.properties as Record<string, unknown>;
  return decryptSecrets(deps.secrets.tokenDigestKey, view.row.secrets, sealOf(view.kind, properties)) ?? {};
}

/** Every setting, secrets decrypted: for delivery only, never for an answer. */
export function settingsOf(deps: Pick<AppDeps, 'secrets'>, view: IntegrationView): Record<string, unknown> {
  return { ...(view.row.properties as Record<string, unknown>), ...secretsOf(deps, view) };
}

/** The kind's required secrets absent from `settings`: never saved, or saved for another destination. */
export const missingSecrets = (kind: KindDef, settings: Record<string, unknown>): string[] =>
  kind.params.filter((param) => param.secret && param.required && isBlank(settings[param.name])).map((param) => param.name);
