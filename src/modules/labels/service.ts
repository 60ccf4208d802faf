import { containsIgnoringCase } from '../../core/input.ts';
import type { Label, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import { ConflictError, DomainError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../core/errors.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { checkInput, rules } from '../../core/input-rules.ts';
import { ancestorGroupIds, parentColumn, requireParentWrite, type Parent } from '../parents/parent.ts';

const NAMED_COLORS: Record<string, string> = {
  black: '#000000',
  white: '#FFFFFF',
  red: '#FF0000',
  green: '#008000',
  blue: '#0000FF',
  yellow: '#FFFF00',
  orange: '#FFA500',
  purple: '#800080',
  gray: '#808080',
  grey: '#808080',
  silver: '#C0C0C0',
  maroon: '#800000',
  olive: '#808000',
  lime: '#00FF00',
  aqua: '#00FFFF',
  teal: '#008080',
  navy: '#000080',
  fuchsia: '#FF00FF',
};

/** `#RGB`, `#RRGGBB` or a CSS colour name, stored as `#RRGGBB`; null when invalid. */
export function normalizeColor(input: string): string | null {
  const value = input.trim();
  const named = NAMED_COLORS[value.toLowerCase()];
  if (named) return named;
  if (/^#[0-9a-f]{6}$/i.test(value)) return value.toUpperCase();
  if (/^#[0-9a-f]{3}$/i.test(value)) return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toUpperCase();
  return null;
}

/** GitLab's label text colour: dark text when the channels add up to more than 500. */
export function textColor(color: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  return r + g + b > 500 ? '#333333' : '#FFFFFF';
}

function availableLabelsWhere(parent: Parent, includeAncestorGroups: boolean): Prisma.LabelWhereInput {
  const ancestors = includeAncestorGroups ? ancestorGroupIds(parent) : [];
  return { OR: [parentColumn(parent), ...(ancestors.length ? [{ groupId: { in: ancestors } }] : [])] };
}

/** GitLab's `LabelSearchFieldList`: the fields a label search reads. */
export type LabelSearchField = 'title' | 'description';

export type LabelFilter = {
  includeAncestorGroups?: boolean | null;
  search?: string | null;
  /** Where `search` looks; both fields unless told. */
  searchIn?: readonly LabelSearchField[] | null;
  title?: string | null;
  /** Groups and projects below a group whose labels come too (see `readableBelow`). */
  below?: { groupIds: number[]; projectIds: number[] } | null;
};

const SEARCHED: Record<LabelSearchField, 'name' | 'description'> = { title: 'name', description: 'description' };

/** Project labels include those of the project's ancestor groups, as GitLab's list does by default. */
export function listLabels(ctx: Context, parent: Parent, opts: LabelFilter): Listing<Label> {
  const search = opts.search;
  const searchIn = opts.searchIn?.length ? opts.searchIn : (['title', 'description'] as const);
  const below = opts.below;
  const where: Prisma.LabelWhereInput = {
    AND: [
      {
        OR: [
          availableLabelsWhere(parent, opts.includeAncestorGroups !== false),
          ...(below?.groupIds.length ? [{ groupId: { in: below.groupIds } }] : []),
          ...(below?.projectIds.length ? [{ projectId: { in: below.projectIds } }] : []),
        ],
      },
      ...(search ? [{ OR: searchIn.map((field) => ({ [SEARCHED[field]]: containsIgnoringCase(search) })) }] : []),
      ...(opts.title ? [{ name: opts.title }] : []),
    ],
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.label.findMany({ where, orderBy: [{ name: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
    count: () => ctx.db.label.count({ where, take: ctx.countLimit }),
  };
}

/**
 * The labels a parent may use (its own and its ancestor groups') with these names, one per name;
 * where an ancestor has a label of the same name, the closest one wins.
 */
export async function availableLabelsNamed(ctx: Context, parent: Parent, names: string[]): Promise<Label[]> {
  if (!names.length) return [];
  const found = await ctx.db.label.findMany({ where: { ...availableLabelsWhere(parent, true), name: { in: names } } });
  // Own labels (not among the ancestors) rank -1, then the ancestors from the closest up.
  const order = [...ancestorGroupIds(parent)].reverse();
  const distance = (l: Label) => order.indexOf(l.groupId ?? -1);
  const byName = new Map<string, Label>();
  for (const label of found.sort((a, b) => distance(a) - distance(b))) if (!byName.has(label.name)) byName.set(label.name, label);
  return names.flatMap((n) => byName.get(n) ?? []);
}

export type LabelInput = { name: string; color: string; description?: string | null; priority?: number | null };

/** Who creates labels (GitLab's admin_label, create_label). */
export const LABEL_WRITE_LEVEL = AccessLevel.REPORTER;

export async function createLabel(ctx: Context, parent: Parent, input: LabelInput): Promise<Label> {
  await requireParentWrite(ctx, parent, LABEL_WRITE_LEVEL);
  const errors: Record<string, string[]> = {};
  const color = normalizeColor(input.color);
  if (!color) errors.color = ['must be a valid color code'];
  if (input.name.trim() === '') errors.title = ["can't be blank"];
  if (input.name.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (input.priority != null && input.priority < 0) errors.priority = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return ctx.db.label
    .create({ data: { ...parentColumn(parent), name: input.name, color: color!, description: input.description ?? null, priority: input.priority ?? null } })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Label already exists');
      throw error;
    });
}

/** GitLab's colour for labels created on the fly from a name. */
/** GitLab's `Label::DEFAULT_COLOR`. */
export const DEFAULT_LABEL_COLOR = '#6699CC';

/**
 * Labels by name as issuables take them: an available one where it exists, otherwise a new label
 * of the parent (for those who may create labels, as GitLab's find-or-create does).
 */
export async function findOrCreateLabels(ctx: Context, parent: Parent, names: string[]): Promise<Label[]> {
  const wanted = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  const found = await availableLabelsNamed(ctx, parent, wanted);
  const missing = wanted.filter((name) => !found.some((l) => l.name === name));
  for (const name of missing) {
    try {
      await createLabel(ctx, parent, { name, color: DEFAULT_LABEL_COLOR });
    } catch (error) {
      // Another request created it meanwhile: the lookup below finds theirs.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  return missing.length ? availableLabelsNamed(ctx, parent, wanted) : found;
}

/**
 * GitLab's `find_label`: a label the parent may use, by id (digits) or else by title; its own
 * labels only unless `includeAncestorGroups`. Null when there is none.
 */
export async function findLabel(
  ctx: Context,
  parent: Parent,
  ref: { id?: number | null; title?: string | null },
  opts: { includeAncestorGroups?: boolean | null } = {},
): Promise<Label | null> {
  const scope = availableLabelsWhere(parent, opts.includeAncestorGroups !== false);
  if (ref.id != null) {
    const byId = await ctx.db.label.findFirst({ where: { AND: [scope, { id: ref.id }] } });
    if (byId) return byId;
  }
  const title = ref.title ?? (ref.id != null ? String(ref.id) : null);
  if (title == null) return null;
  if (opts.includeAncestorGroups === false) return ctx.db.label.findFirst({ where: { AND: [scope, { name: title }] } });
  return (await availableLabelsNamed(ctx, parent, [title]))[0] ?? null;
}

/** A label of the parent itself, for the writers of its labels (Reporters and above); 404 Label otherwise. */
async function ownLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  // GitLab's `exactly_one_of :label_id, :name` (the routes that name the label in the body).
  checkInput(rules.exactlyOneOf(ref, { id: 'label_id', title: 'name' }));
  const label = await findLabel(ctx, parent, ref, { includeAncestorGroups: false });
  if (!label) throw new NotFoundError('Label');
  await requireParentWrite(ctx, parent, AccessLevel.REPORTER);
  return label;
}

export type LabelChanges = { name?: string | null; color?: string | null; description?: string | null; priority?: number | null };

/** GitLab's label update: at least one change; `priority: null` removes the priority. */
export async function updateLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }, changes: LabelChanges): Promise<Label> {
  checkInput(rules.atLeastOneOf(changes, { name: 'new_name', color: 'color', description: 'description', priority: 'priority' }, { nullIsGiven: true }));
  const label = await ownLabel(ctx, parent, ref);
  const errors: Record<string, string[]> = {};
  const color = changes.color == null ? undefined : normalizeColor(changes.color);
  if (color === null) errors.color = ['must be a valid color code'];
  if (changes.name != null && changes.name.trim() === '') errors.title = ["can't be blank"];
  if (changes.name != null && changes.name.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (changes.priority != null && changes.priority < 0) errors.priority = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return ctx.db.label
    .update({
      where: { id: label.id },
      data: {
        ...(changes.name != null && { name: changes.name }),
        ...(color && { color }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.priority !== undefined && { priority: changes.priority }),
      },
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ValidationError({ title: ['has already been taken'] });
      throw error;
    });
}

export async function deleteLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  const label = await ownLabel(ctx, parent, ref);
  await ctx.db.label.delete({ where: { id: label.id } });
  return label;
}

/** Subscribing twice (or unsubscribing a label one does not follow): GitLab's `not_modified!`, a 304 without a body. */
class NotModifiedError extends DomainError {
  constructor(message: string) {
    super('NOT_MODIFIED', 304, {}, message);
  }
}

/** A label the viewer can see in the parent (its own or an ancestor group's); 404 Label otherwise. */
async function visibleLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const label = await findLabel(ctx, parent, ref);
  if (!label) throw new NotFoundError('Label');
  return label;
}

/** Whether the viewer follows a label (batched per request: see loaders.ts). */
export async function isSubscribed(ctx: Context, label: Label): Promise<boolean> {
  if (!ctx.viewer.userId) return false;
  return (await ctx.loaders.labelSubscriptions.load(label.id)) !== null;
}

/** The viewer follows a label they can see (GitLab's `subscribe`); 304 when they already do. */
export async function subscribeToLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  const label = await visibleLabel(ctx, parent, ref);
  const userId = ctx.viewer.userId!;
  const created = await ctx.db.labelSubscription.createMany({ data: [{ labelId: label.id, userId }], skipDuplicates: true });
  if (created.count === 0) throw new NotModifiedError('You are already subscribed to this label');
  ctx.loaders.labelSubscriptions.clear(label.id);
  return label;
}

/** The viewer stops following a label; 304 when they did not. */
export async function unsubscribeFromLabel(ctx: Context, parent: Parent, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  const label = await visibleLabel(ctx, parent, ref);
  const removed = await ctx.db.labelSubscription.deleteMany({ where: { labelId: label.id, userId: ctx.viewer.userId! } });
  if (removed.count === 0) throw new NotModifiedError('You are not subscribed to this label');
  ctx.loaders.labelSubscriptions.clear(label.id);
  return label;
}

/**
 * Promotes a project label to the project's group (GitLab's Labels::PromoteService): the group's
 * label of that title, or a new one with the label's attributes, takes the place of every
 * same-titled label of the group's projects (their subscribers follow it), and those go.
 * Reporters of the group and above; 403 for a project outside a group.
 */
export async function promoteLabel(ctx: Context, project: ProjectWithNamespace, ref: { id?: number | null; title?: string | null }): Promise<Label> {
  const group = project.namespace;
  if (group.kind !== 'group') throw new ForbiddenError();
  await ctx.policy.requireGroupAccess(group, LABEL_WRITE_LEVEL);
  const label = await findLabel(ctx, { kind: 'project', project }, ref, { includeAncestorGroups: false });
  if (!label) throw new NotFoundError('Label');
  return ctx.db.$transaction(async (tx) => {
    const existing = await tx.label.findFirst({ where: { groupId: group.id, name: label.name } });
    const { name, color, description } = label;
    const promoted = existing ?? (await tx.label.create({ data: { groupId: group.id, name, color, description } }));
    const same = await tx.label.findMany({ where: { name, project: { namespaceId: group.id } }, select: { id: true } });
    const ids = same.map((l) => l.id);
    const subscribers = await tx.labelSubscription.findMany({ where: { labelId: { in: ids } }, select: { userId: true } });
    await tx.labelSubscription.createMany({ data: subscribers.map(({ userId }) => ({ labelId: promoted.id, userId })), skipDuplicates: true });
    await tx.label.deleteMany({ where: { id: { in: ids } } });
    return promoted;
  });
}
