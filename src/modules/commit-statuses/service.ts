import type { CommitStatus, Pipeline, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../core/errors.ts';
import { nextIid } from '../../core/store.ts';
import { lockKey } from '../../db/locks.ts';
import type { Listing } from '../../core/listing.ts';
import { readableRepository } from '../commits/service.ts';
import { commitStatusPages } from './store.ts';

export type { CommitStatus, Pipeline };

/** The states a client may post (GitLab's `state` values). */
export type PostedState = 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped';

/** Who posts statuses: GitLab's create_commit_status, Developers and above. */
const POST_LEVEL = AccessLevel.DEVELOPER;

// ---------------------------------------------------------------------------------------------
// State machine (GitLab's CommitStatus state_machine, the events the API fires)

type Event = 'enqueue' | 'run' | 'success' | 'drop' | 'cancel' | 'skip';

/** Each event: the states it leaves from, and where it goes. */
const EVENTS: Record<Event, { from: string[]; to: string }> = {
  enqueue: { from: ['created', 'skipped'], to: 'pending' },
  run: { from: ['pending'], to: 'running' },
  success: { from: ['created', 'pending', 'running'], to: 'success' },
  drop: { from: ['created', 'pending', 'running'], to: 'failed' },
  cancel: { from: ['created', 'pending', 'running'], to: 'canceled' },
  skip: { from: ['created'], to: 'skipped' },
};

/** The events each posted state fires: `running` enqueues first when it can (a non-raising `enqueue`), then runs. */
const FIRES: Record<PostedState, { optional?: Event; event: Event }> = {
  pending: { event: 'enqueue' },
  running: { optional: 'enqueue', event: 'run' },
  success: { event: 'success' },
  failed: { event: 'drop' },
  canceled: { event: 'cancel' },
  skipped: { event: 'skip' },
};

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

/** The state after posting `state` on a status in `current`; GitLab's InvalidTransition text as a 400 otherwise. */
export function transition(current: string, state: PostedState): string {
  const { optional, event } = FIRES[state];
  let from = current;
  if (optional && EVENTS[optional].from.includes(from)) from = EVENTS[optional].to;
  if (!EVENTS[event].from.includes(from)) {
    throw new BadRequestError(`Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")`);
  }
  return EVENTS[event].to;
}

/**
 * A pipeline's status from its statuses' (GitLab's Ci::Status::Composite, for the states
 * external statuses take): failures allowed to fail count as successes.
 */
export function compositeStatus(statuses: Pick<CommitStatus, 'status' | 'allowFailure'>[]): string {
  const states = new Set(statuses.map((s) => (s.allowFailure && s.status === 'failed' ? 'success' : s.status)));
  const onlyOf = (...allowed: string[]) => [...states].every((s) => allowed.includes(s));
  if (states.size === 0 || onlyOf('skipped')) return states.size === 0 ? 'created' : 'skipped';
  if (onlyOf('success', 'skipped')) return 'success';
  if (onlyOf('created', 'success', 'skipped')) return 'created';
  if (onlyOf('pending', 'created', 'success', 'skipped')) return 'pending';
  if (states.has('running') || states.has('pending') || states.has('created')) return 'running';
  if (states.has('failed')) return 'failed';
  if (states.has('canceled')) return 'canceled';
  return 'skipped';
}

// ---------------------------------------------------------------------------------------------
// Posting a status

export type StatusInput = {
  sha: string;
  state: PostedState;
  ref?: string | null;
  name?: string | null;
  targetUrl?: string | null;
  description?: string | null;
  coverage?: number | null;
  pipelineId?: number | null;
};

/** The newest pipeline of the commit that fits the request (its ref, its id), as GitLab's `all_matching_pipelines.first`. */
function matchingPipeline(tx: Prisma.TransactionClient, project: ProjectWithNamespace, sha: string, input: StatusInput) {
  return tx.pipeline.findFirst({
    where: { projectId: project.id, sha, ...(input.ref ? { ref: input.ref } : {}), ...(input.pipelineId != null ? { id: input.pipelineId } : {}) },
    orderBy: { id: 'desc' },
  });
}

/** The ref a status is for: the one given, the pipeline's, else the first branch holding the commit. */
async function statusRef(ctx: Context, project: ProjectWithNamespace, sha: string, input: StatusInput, pipeline: Pipeline | null) {
  const ref = input.ref || pipeline?.ref || (await (await readableRepository(ctx, project)).refsContaining(sha, ['branch']))[0]?.name;
  if (!ref) throw new NotFoundError('References for commit');
  return ref;
}

/** GitLab creates an external pipeline for the first status of a commit and ref (its iid taken in the same transaction). */
async function createPipeline(ctx: Context, tx: Prisma.TransactionClient, project: ProjectWithNamespace, sha: string, ref: string) {
  const iid = await nextIid(tx, 'ci_pipelines', project.id);
  return tx.pipeline.create({ data: { iid, projectId: project.id, sha, ref, userId: ctx.viewer.userId } });
}

const timestamps = (from: string, to: string, now: Date) => ({
  ...(to === 'running' && from !== 'running' ? { startedAt: now } : {}),
  ...(FINISHED.includes(to) ? { finishedAt: now } : {}),
});

/**
 * Posts a status to a commit (GitLab's CreateCommitStatusService): the running or pending status
 * of the same name, ref and user moves on, or a new one starts and the earlier ones of its name
 * are retried; a transition the state machine refuses is a 400 and writes nothing. Posts to one
 * commit take turns, as under GitLab's lease on the project and sha: concurrent first posts make
 * one pipeline, and one status of a name stays unretried.
 */
export async function postCommitStatus(ctx: Context, project: ProjectWithNamespace, input: StatusInput): Promise<CommitStatus & { sha: string }> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  await ctx.policy.requireProjectAccess(project, POST_LEVEL);
  const repository = await ctx.loaders.repository.load(project.id);
  const sha = repository.resolveCommit(input.sha);
  if (!sha) throw new NotFoundError('Commit');
  const name = input.name || 'default';
  const row = await ctx.db.$transaction(async (tx) => {
    await lockKey(tx, `commit-status:${project.id}:${sha}`);
    let pipeline = await matchingPipeline(tx, project, sha, input);
    if (input.pipelineId != null && !pipeline) throw new NotFoundError('Pipeline');
    const ref = await statusRef(ctx, project, sha, input, pipeline);
    pipeline ??= await createPipeline(ctx, tx, project, sha, ref);
    const pipelineId = pipeline.id;
    const current = await tx.commitStatus.findFirst({
      where: { pipelineId, name, ref, userId: ctx.viewer.userId, status: { in: ['pending', 'running'] } },
      orderBy: { id: 'desc' },
    });
    const from = current?.status ?? 'created';
    const to = transition(from, input.state);
    const fields = {
      status: to,
      ...timestamps(from, to, new Date()),
      ...(input.targetUrl != null ? { targetUrl: input.targetUrl } : {}),
      ...(input.description != null ? { description: input.description } : {}),
      ...(input.coverage != null ? { coverage: input.coverage } : {}),
    };
    if (current) return tx.commitStatus.update({ where: { id: current.id }, data: fields });
    const created = await tx.commitStatus.create({ data: { pipelineId, name, ref, userId: ctx.viewer.userId, ...fields } });
    await tx.commitStatus.updateMany({ where: { pipelineId, name, retried: false, id: { lt: created.id } }, data: { retried: true } });
    return created;
  });
  return { ...row, sha };
}

// ---------------------------------------------------------------------------------------------
// Reads

export type StatusFilter = {
  ref?: string | null;
  stage?: string | null;
  name?: string | null;
  all?: boolean | null;
  pipelineId?: number | null;
  /** GitLab's `order_by` (id, default, or pipeline_id) and `sort` (asc, default, or desc). */
  orderBy?: 'id' | 'pipeline_id' | null;
  sort?: 'asc' | 'desc' | null;
};

/** External statuses all sit in GitLab's `external` stage. */
export const EXTERNAL_STAGE = 'external';

/**
 * The statuses of a commit (GitLab's `commits/:sha/statuses`), oldest first: only the latest of
 * each name per pipeline (a status posted again after it finished replaces it) unless `all`.
 */
export async function listCommitStatuses(ctx: Context, project: ProjectWithNamespace, sha: string, filter: StatusFilter): Promise<Listing<CommitStatus>> {
  await readableRepository(ctx, project);
  if (filter.stage && filter.stage !== EXTERNAL_STAGE) return { count: async () => 0, fetch: async () => [] };
  return commitStatusPages(
    ctx.deps.sql,
    {
      projectId: project.id,
      sha,
      ref: filter.ref,
      name: filter.name,
      pipelineId: filter.pipelineId,
      all: filter.all,
      byPipeline: filter.orderBy === 'pipeline_id',
      descending: filter.sort === 'desc',
    },
    ctx.countLimit,
  );
}

/** A commit's pipelines, newest first, optionally of one ref (the commit detail's `last_pipeline` is the first). */
export async function commitPipelines(ctx: Context, project: ProjectWithNamespace, sha: string, ref?: string | null): Promise<Listing<Pipeline>> {
  await readableRepository(ctx, project);
  const where = { projectId: project.id, sha, ...(ref ? { ref } : {}) };
  return {
    count: () => ctx.db.pipeline.count({ where, take: ctx.countLimit }),
    fetch: ({ offset, limit }) => ctx.db.pipeline.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
  };
}

/** A pipeline's status, from the latest of its statuses (batched per request: see loaders.ts). */
export async function pipelineStatus(ctx: Context, pipeline: Pipeline): Promise<string> {
  return compositeStatus(await ctx.loaders.pipelineStatuses.load(pipeline.id));
}
