import type { Label, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { Listing } from '../../graphql/connections.ts';
import { ConflictError, ValidationError } from '../../graphql/errors.ts';
import { requireSourceAccess, type Source } from '../namespaces/source.ts';

const NAMED_COLORS: Record<string, string> = {
  black: '#000000', white: '#FFFFFF', red: '#FF0000', green: '#008000', blue: '#0000FF', yellow: '#FFFF00',
  orange: '#FFA500', purple: '#800080', gray: '#808080', grey: '#808080', silver: '#C0C0C0', maroon: '#800000',
  olive: '#808000', lime: '#00FF00', aqua: '#00FFFF', teal: '#008080', navy: '#000080', fuchsia: '#FF00FF',
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

/** Project labels include those of the project's ancestor groups, as GitLab's list does by default. */
export function listLabels(ctx: Context, source: Source, opts: { includeAncestorGroups?: boolean | null; search?: string | null }): Listing<Label> {
  const ancestors =
    opts.includeAncestorGroups === false
      ? []
      : source.kind === 'project'
        ? source.project.namespace.kind === 'group' ? source.project.namespace.traversalIds : []
        : source.group.traversalIds.slice(0, -1);
  const own = source.kind === 'project' ? { projectId: source.project.id } : { groupId: source.group.id };
  const where: Prisma.LabelWhereInput = {
    OR: [own, ...(ancestors.length ? [{ groupId: { in: ancestors } }] : [])],
    ...(opts.search && { name: { contains: opts.search, mode: 'insensitive' as const } }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.label.findMany({ where, orderBy: [{ name: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
    count: () => ctx.db.label.count({ where }),
  };
}

export type LabelInput = { name: string; color: string; description?: string | null; priority?: number | null };

export async function createLabel(ctx: Context, source: Source, input: LabelInput): Promise<Label> {
  await requireSourceAccess(ctx, source, AccessLevel.REPORTER);
  const errors: Record<string, string[]> = {};
  const color = normalizeColor(input.color);
  if (!color) errors.color = ['must be a valid color code'];
  if (input.name.trim() === '') errors.title = ["can't be blank"];
  if (input.name.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (input.priority != null && input.priority < 0) errors.priority = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const own = source.kind === 'project' ? { projectId: source.project.id } : { groupId: source.group.id };
  return ctx.db.label
    .create({ data: { ...own, name: input.name, color: color!, description: input.description ?? null, priority: input.priority ?? null } })
    .catch((error) => {
      if (isUniqueViolation(error)) throw new ConflictError('Label already exists');
      throw error;
    });
}
