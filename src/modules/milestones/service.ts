import { containsIgnoringCase } from '../../core/input.ts';
import type { Milestone, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Context } from '../../core/context.ts';
import type { Listing } from '../../core/listing.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { parentColumn, parentId, requireParentAccess, type Parent } from '../namespaces/parent.ts';
import { nextIid } from '../../core/iids.ts';

export type MilestoneFilter = { state?: 'active' | 'closed' | null; title?: string | null; search?: string | null; iids?: number[] | null };

export function listMilestones(ctx: Context, parent: Parent, filter: MilestoneFilter): Listing<Milestone> {
  const where: Prisma.MilestoneWhereInput = {
    ...parentColumn(parent),
    ...(filter.state && { state: filter.state }),
    ...(filter.title && { title: filter.title }),
    ...(filter.iids?.length && { iid: { in: filter.iids } }),
    ...(filter.search && {
      OR: [{ title: containsIgnoringCase(filter.search) }, { description: containsIgnoringCase(filter.search) }],
    }),
  };
  return {
    fetch: ({ offset, limit }) => ctx.db.milestone.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    count: () => ctx.db.milestone.count({ where }),
  };
}

/** A milestone by its id, only within its own project or group. */
export async function findMilestone(ctx: Context, parent: Parent, id: number): Promise<Milestone | null> {
  return ctx.db.milestone.findFirst({ where: { id, ...parentColumn(parent) } });
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

export async function createMilestone(ctx: Context, parent: Parent, input: MilestoneInput & { title: string }): Promise<Milestone> {
  await requireParentAccess(ctx, parent, AccessLevel.REPORTER);
  validate(input);
  return ctx.db
    .$transaction(async (tx) =>
      tx.milestone.create({
        data: {
          ...parentColumn(parent),
          iid: await nextIid(tx, `milestones:${parent.kind}`, parentId(parent)),
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

export async function updateMilestone(ctx: Context, parent: Parent, id: number, input: MilestoneInput): Promise<Milestone> {
  const milestone = await findMilestone(ctx, parent, id);
  if (!milestone) throw new NotFoundError('Milestone');
  await requireParentAccess(ctx, parent, AccessLevel.REPORTER);
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
