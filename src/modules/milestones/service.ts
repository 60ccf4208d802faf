import type { Milestone, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Db } from '../../db/client.ts';
import type { Context } from '../../graphql/context.ts';
import type { Listing } from '../../graphql/connections.ts';
import { NotFoundError, ValidationError } from '../../graphql/errors.ts';
import { requireSourceAccess, sourceId, type Source } from '../namespaces/source.ts';

const ownerColumn = (source: Source) => (source.kind === 'project' ? { projectId: source.project.id } : { groupId: source.group.id });

export type MilestoneFilter = { state?: 'active' | 'closed' | null; title?: string | null; search?: string | null; iids?: number[] | null };

export function listMilestones(ctx: Context, source: Source, filter: MilestoneFilter): Listing<Milestone> {
  const where: Prisma.MilestoneWhereInput = {
    ...ownerColumn(source),
    ...(filter.state && { state: filter.state }),
    ...(filter.title && { title: filter.title }),
    ...(filter.iids?.length && { iid: { in: filter.iids } }),
    ...(filter.search && {
      OR: [{ title: { contains: filter.search, mode: 'insensitive' as const } }, { description: { contains: filter.search, mode: 'insensitive' as const } }],
    }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.milestone.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.milestone.count({ where }),
  };
}

/** A milestone by its id, only within its own project or group. */
export async function findMilestone(ctx: Context, source: Source, id: number): Promise<Milestone | null> {
  return ctx.db.milestone.findFirst({ where: { id, ...ownerColumn(source) } });
}

/** Next per-parent iid, incremented atomically so concurrent creates never share one. */
export async function nextIid(db: Pick<Db, '$queryRaw'>, scope: string, ownerId: number): Promise<number> {
  const [row] = await db.$queryRaw<{ last: number }[]>`
    INSERT INTO internal_ids (scope, owner_id, last) VALUES (${scope}, ${ownerId}, 1)
    ON CONFLICT (scope, owner_id) DO UPDATE SET last = internal_ids.last + 1
    RETURNING last`;
  return row.last;
}

export type MilestoneInput = {
  title?: string | null;
  description?: string | null;
  dueDate?: Date | null;
  startDate?: Date | null;
  stateEvent?: 'close' | 'activate' | null;
};

function validate(input: MilestoneInput, existing?: Milestone) {
  const errors: Record<string, string[]> = {};
  if (input.title != null && input.title.trim() === '') errors.title = ["can't be blank"];
  if (input.title != null && input.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  const start = input.startDate !== undefined ? input.startDate : existing?.startDate;
  const due = input.dueDate !== undefined ? input.dueDate : existing?.dueDate;
  if (start && due && due < start) errors.due_date = ['must be greater than start date'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

const titleTaken = () => new ValidationError({ title: ['has already been taken'] });

export async function createMilestone(ctx: Context, source: Source, input: MilestoneInput & { title: string }): Promise<Milestone> {
  await requireSourceAccess(ctx, source, AccessLevel.REPORTER);
  validate(input);
  return ctx.db
    .$transaction(async (tx) =>
      tx.milestone.create({
        data: {
          ...ownerColumn(source),
          iid: await nextIid(tx, `milestones:${source.kind}`, sourceId(source)),
          title: input.title,
          description: input.description ?? '',
          dueDate: input.dueDate ?? null,
          startDate: input.startDate ?? null,
        },
      }),
    )
    .catch((error) => {
      if (isUniqueViolation(error)) throw titleTaken();
      throw error;
    });
}

export async function updateMilestone(ctx: Context, source: Source, id: number, input: MilestoneInput): Promise<Milestone> {
  const milestone = await findMilestone(ctx, source, id);
  if (!milestone) throw new NotFoundError('Milestone');
  await requireSourceAccess(ctx, source, AccessLevel.REPORTER);
  validate(input, milestone);
  const state = input.stateEvent === 'close' ? 'closed' : input.stateEvent === 'activate' ? 'active' : undefined;
  return ctx.db.milestone
    .update({
      where: { id: milestone.id },
      data: {
        title: input.title ?? undefined,
        description: input.description ?? undefined,
        dueDate: input.dueDate,
        startDate: input.startDate,
        state,
      },
    })
    .catch((error) => {
      if (isUniqueViolation(error)) throw titleTaken();
      throw error;
    });
}
