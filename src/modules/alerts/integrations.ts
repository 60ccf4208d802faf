// A project's alert endpoints: HTTP endpoints (several, uniquely named) and one metrics-format
// endpoint. The key is shown once (at creation and reset); only its keyed digest is stored.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AlertIntegration, AlertIntegrationType } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { tokenDigest } from '../../auth/tokens.ts';
import type { Context } from '../../core/context.ts';
import { NotFoundError, ParamError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import { jsonNestedDeeperThan } from '../../core/input.ts';
import type { Listing } from '../../core/listing.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';
import { projectFullPath } from '../projects/service.ts';
import {
  MAPPABLE_FIELDS,
  MAX_PAYLOAD_BYTES,
  MAX_PAYLOAD_DEPTH,
  payloadFields,
  valueAt,
  type AttributeMapping,
  type Json,
  type PayloadField,
} from './payload.ts';

/** An integration as a mutation returns it: the key in clear only right after it was made. */
export type IntegrationWithKey = AlertIntegration & { project: ProjectWithNamespace; plainToken?: string };

export const PROMETHEUS_NAME = 'Prometheus';

/** The class of an endpoint's global id: GitLab's HTTP endpoints and its Prometheus integration are different records. */
export const INTEGRATION_CLASSES: Record<AlertIntegrationType, string> = {
  http: 'AlertManagement::HttpIntegration',
  prometheus: 'Integrations::Prometheus',
};

function requireSignedIn(ctx: Context) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
}

/** Who manages a project's alert endpoints and holds their keys (GitLab's `admin_operations`): Maintainers and above. */
export async function requireMaintainer(ctx: Context, project: ProjectWithNamespace) {
  requireSignedIn(ctx);
  await ctx.policy.requireProjectAccess(project, AccessLevel.MAINTAINER);
}

const newKey = () => randomBytes(16).toString('hex');
const digestOf = (ctx: Pick<Context, 'deps'>, key: string) => tokenDigest(ctx.deps.secrets.tokenDigestKey, key);

/** Constant-time comparison of a presented key with the stored digest. */
export function keyMatches(ctx: Pick<Context, 'deps'>, integration: Pick<AlertIntegration, 'tokenDigest'>, key: string | null): boolean {
  if (!key) return false;
  const presented = Buffer.from(digestOf(ctx, key), 'hex');
  const stored = Buffer.from(integration.tokenDigest, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The address monitoring tools post to (outside /api/v4, under the project's web path). */
export function integrationUrl(externalUrl: string, integration: AlertIntegration, project: ProjectWithNamespace): string {
  const base = `${externalUrl}/${projectFullPath(project)}`;
  if (integration.type === 'prometheus') return `${base}/prometheus/alerts/notify.json`;
  return `${base}/alerts/notify/${slug(integration.name)}/${integration.endpointIdentifier}.json`;
}

/** The name as a URL segment (GitLab's parameterize): lower case, runs of other characters as `-`. */
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'endpoint';

export type IntegrationFilter = { types?: readonly AlertIntegrationType[] | null; id?: number | null };

export async function listIntegrations(ctx: Context, project: ProjectWithNamespace, filter: IntegrationFilter = {}): Promise<Listing<IntegrationWithKey>> {
  await requireMaintainer(ctx, project);
  const where = { projectId: project.id, ...(filter.types && { type: { in: [...filter.types] } }), ...(filter.id != null && { id: filter.id }) };
  return {
    fetch: async ({ offset, limit }) =>
      (await ctx.db.alertIntegration.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit })).map((i) => ({ ...i, project })),
    count: () => ctx.db.alertIntegration.count({ where, take: ctx.countLimit }),
  };
}

export type MappingInput = { fieldName: string; path: string[]; type: string; label?: string | null };

export type IntegrationInput = {
  name?: string | null;
  active?: boolean | null;
  payloadExample?: string | null;
  payloadAttributeMappings?: MappingInput[] | null;
};

/** The sample must be a JSON object; every mapped path must lead somewhere in it. */
function checkedMapping(
  input: IntegrationInput,
  current?: AlertIntegration,
): { payloadExample?: string | null; payloadAttributeMappings?: AttributeMapping[] } {
  const example = input.payloadExample === undefined ? current?.payloadExample : input.payloadExample;
  const changedSample = input.payloadExample !== undefined && input.payloadExample !== (current?.payloadExample ?? null);
  let sample: Json | undefined;
  if (example) {
    try {
      sample = JSON.parse(example) as Json;
    } catch {
      throw new ValidationError({ payload_example: ['must be a valid json'] });
    }
    if (typeof sample !== 'object' || sample === null || Array.isArray(sample)) throw new ValidationError({ payload_example: ['must be a valid json'] });
  }
  const mappings = input.payloadAttributeMappings;
  if (mappings == null) {
    // A new sample invalidates the old mapping: it has to be made again from the new one.
    return changedSample
      ? { payloadExample: example ?? null, payloadAttributeMappings: [] }
      : input.payloadExample !== undefined
        ? { payloadExample: example ?? null }
        : {};
  }
  const problems: string[] = [];
  for (const m of mappings) {
    const field = m.fieldName.toLowerCase();
    if (!(MAPPABLE_FIELDS as readonly string[]).includes(field)) problems.push(`${m.fieldName} is not a mappable field`);
    else if (sample === undefined) problems.push('need a payload example');
    else if (!m.path.length || valueAt(sample, m.path) === undefined) problems.push(`path ${JSON.stringify(m.path)} is not in the payload example`);
  }
  if (problems.length) throw new ValidationError({ payload_attribute_mappings: problems });
  return {
    payloadExample: example ?? null,
    payloadAttributeMappings: mappings.map((m) => ({
      fieldName: m.fieldName.toLowerCase() as AttributeMapping['fieldName'],
      path: m.path,
      type: m.type.toLowerCase(),
      label: m.label ?? null,
    })),
  };
}

function checkedName(name: string | null | undefined): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) throw new ValidationError({ name: ["can't be blank"] });
  if (trimmed.length > 255) throw new ValidationError({ name: ['is too long (maximum is 255 characters)'] });
  return trimmed;
}

async function saved<T>(write: () => Promise<T>, taken: ValidationError): Promise<T> {
  return write().catch((error) => {
    if (isUniqueViolation(error)) throw taken;
    throw error;
  });
}

export async function createIntegration(
  ctx: Context,
  projectRef: ParentInput,
  type: AlertIntegrationType,
  input: IntegrationInput,
): Promise<IntegrationWithKey> {
  requireSignedIn(ctx);
  const project = await resolveProject(ctx, projectRef);
  await requireMaintainer(ctx, project);
  const name = type === 'prometheus' ? PROMETHEUS_NAME : checkedName(input.name);
  const mapping = type === 'http' ? checkedMapping(input) : {};
  const key = newKey();
  const taken =
    type === 'prometheus'
      ? new ValidationError({ project: ['already has a metrics-format integration'] })
      : new ValidationError({ name: ['has already been taken'] });
  const integration = await saved(
    () =>
      ctx.db.alertIntegration.create({
        data: {
          projectId: project.id,
          type,
          name,
          endpointIdentifier: type === 'prometheus' ? 'legacy-prometheus' : randomBytes(8).toString('hex'),
          tokenDigest: digestOf(ctx, key),
          active: input.active ?? false,
          payloadExample: mapping.payloadExample ?? null,
          payloadAttributeMappings: mapping.payloadAttributeMappings ?? [],
        },
      }),
    taken,
  );
  return { ...integration, project, plainToken: key };
}

/** The integration a global id names, if the viewer maintains its project; 404 otherwise. */
async function requireIntegration(ctx: Context, id: number, type: AlertIntegrationType): Promise<IntegrationWithKey> {
  requireSignedIn(ctx);
  const integration = await ctx.db.alertIntegration.findUnique({ where: { id }, include: { project: { include: { namespace: true } } } });
  if (!integration || integration.type !== type || !(await ctx.policy.canReadProject(integration.project))) throw new NotFoundError('Integration');
  await requireMaintainer(ctx, integration.project);
  return integration;
}

export async function updateIntegration(ctx: Context, id: number, type: AlertIntegrationType, input: IntegrationInput): Promise<IntegrationWithKey> {
  const current = await requireIntegration(ctx, id, type);
  const mapping = type === 'http' ? checkedMapping(input, current) : {};
  const updated = await saved(
    () =>
      ctx.db.alertIntegration.update({
        where: { id },
        data: {
          ...(type === 'http' && input.name != null && { name: checkedName(input.name) }),
          ...(input.active != null && { active: input.active }),
          ...(mapping.payloadExample !== undefined && { payloadExample: mapping.payloadExample }),
          ...(mapping.payloadAttributeMappings && { payloadAttributeMappings: mapping.payloadAttributeMappings }),
        },
      }),
    new ValidationError({ name: ['has already been taken'] }),
  );
  return { ...updated, project: current.project };
}

export async function resetIntegrationKey(ctx: Context, id: number, type: AlertIntegrationType): Promise<IntegrationWithKey> {
  const current = await requireIntegration(ctx, id, type);
  const key = newKey();
  const updated = await ctx.db.alertIntegration.update({ where: { id }, data: { tokenDigest: digestOf(ctx, key) } });
  return { ...updated, project: current.project, plainToken: key };
}

export async function destroyIntegration(ctx: Context, id: number, type: AlertIntegrationType): Promise<IntegrationWithKey> {
  const current = await requireIntegration(ctx, id, type);
  await ctx.db.alertIntegration.delete({ where: { id } });
  return current;
}

/**
 * The fields of a sample payload for the custom-mapping editor (Maintainers and above, who manage
 * the endpoints): a JSON object of at most 1 MB, nested at most 100 deep, as intake takes.
 */
export async function samplePayloadFields(ctx: Context, project: ProjectWithNamespace, payloadExample: string): Promise<PayloadField[]> {
  await requireMaintainer(ctx, project);
  if (Buffer.byteLength(payloadExample) > MAX_PAYLOAD_BYTES || jsonNestedDeeperThan(Buffer.from(payloadExample), MAX_PAYLOAD_DEPTH))
    throw new ParamError('Payload size exceeded');
  let sample: Json;
  try {
    sample = JSON.parse(payloadExample) as Json;
  } catch {
    throw new ParamError('Failed to parse payload');
  }
  if (typeof sample !== 'object' || sample === null || Array.isArray(sample)) throw new ParamError('Failed to parse payload');
  return payloadFields(sample);
}
