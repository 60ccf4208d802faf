import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, gid, scopes } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { CommitRef, type DetailedStatus, DetailedStatusRef } from '../commits/index.ts';
import { SortDirectionEnum } from '../projects/index.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { projectFullPath } from '../projects/service.ts';
import { UserRef } from '../users/index.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { commitPipelines, EXTERNAL_STAGE, listCommitStatuses, pipelineStatus, postCommitStatus, type CommitStatus, type Pipeline } from './service.ts';

const FORGEGATE = "forgegate's (GitLab has it in REST only).";

/** GitLab's PipelineStatusEnum; external pipelines take the states of their statuses. */
const PipelineStatusEnum = builder.enumType('PipelineStatusEnum', {
  values: {
    CREATED: { value: 'created', description: 'Pipeline has been created.' },
    WAITING_FOR_RESOURCE: {
      value: 'waiting_for_resource',
      description: 'A resource (for example, a runner) that the pipeline requires to run is unavailable.',
    },
    PREPARING: { value: 'preparing', description: 'Pipeline is preparing to run.' },
    WAITING_FOR_CALLBACK: { value: 'waiting_for_callback', description: 'Pipeline is waiting for an external action.' },
    PENDING: { value: 'pending', description: 'Pipeline has not started running yet.' },
    RUNNING: { value: 'running', description: 'Pipeline is running.' },
    FAILED: { value: 'failed', description: 'At least one stage of the pipeline failed.' },
    SUCCESS: { value: 'success', description: 'Pipeline completed successfully.' },
    CANCELING: { value: 'canceling', description: 'Pipeline is in the process of canceling.' },
    CANCELED: { value: 'canceled', description: 'Pipeline was canceled before completion.' },
    SKIPPED: { value: 'skipped', description: 'Pipeline was skipped.' },
    MANUAL: { value: 'manual', description: 'Pipeline needs to be manually started.' },
    SCHEDULED: { value: 'scheduled', description: 'Pipeline is scheduled to run.' },
  } as const,
});

type PipelineParent = Pipeline & { project: ProjectWithNamespace };

const pipelinePath = (p: PipelineParent) => `/${projectFullPath(p.project)}/-/pipelines/${p.id}`;

/** GitLab's words for a status (`Gitlab::Ci::Status`): the label, and the text its badge shows. */
const STATUS_LABELS: Record<string, string> = { success: 'passed' };

function detailedStatus(status: string, path: string, id: number): DetailedStatus {
  const label = STATUS_LABELS[status] ?? status.replaceAll('_', ' ');
  const text = label.charAt(0).toUpperCase() + label.slice(1);
  return { id: `${status}-${id}`, detailsPath: path, icon: `status_${status}`, tooltip: label, text, group: status, label };
}

const PipelineRef = builder.objectRef<PipelineParent>('Pipeline').implement({
  description: 'A pipeline; forgegate has the external ones commit statuses create.',
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (p) => gid('Ci::Pipeline', p.id) }),
    databaseId: t.exposeInt('id', { description: `Database ID of the pipeline. ${FORGEGATE}` }),
    iid: t.string({ nullable: false, description: 'Internal ID of the pipeline.', resolve: (p) => String(p.iid) }),
    sha: t.exposeString('sha', { nullable: true, description: "SHA of the pipeline's commit." }),
    ref: t.exposeString('ref', { nullable: true, description: 'Reference to the branch from which the pipeline was triggered.' }),
    source: t.string({ nullable: true, description: 'Source of the pipeline.', resolve: () => 'external' }),
    status: t.field({
      type: PipelineStatusEnum,
      nullable: false,
      description: 'Status of the pipeline.',
      resolve: (p, _a, ctx) => pipelineStatus(ctx, p) as Promise<'created'>,
    }),
    detailedStatus: t.field({
      type: DetailedStatusRef,
      nullable: false,
      description: 'Detailed status of the pipeline.',
      resolve: async (p, _a, ctx) => detailedStatus(await pipelineStatus(ctx, p), pipelinePath(p), p.id),
    }),
    createdAt: t.expose('createdAt', { type: 'Time', nullable: false, description: "Timestamp of the pipeline's creation." }),
    updatedAt: t.expose('updatedAt', { type: 'Time', nullable: false, description: "Timestamp of the pipeline's last activity." }),
    path: t.string({ nullable: true, description: "Relative path to the pipeline's page.", resolve: (p) => pipelinePath(p) }),
    webUrl: t.string({
      description: `Web URL of the pipeline's page. ${FORGEGATE}`,
      resolve: (p, _a, ctx) => `${ctx.deps.config.externalUrl}${pipelinePath(p)}`,
    }),
  }),
});

type StatusParent = CommitStatus & { sha: string };

const CommitStatusRef = builder.objectRef<StatusParent>('GenericCommitStatus').implement({
  description: `A status an external system posted on a commit. ${FORGEGATE}`,
  fields: (t) => ({
    id: t.id({ resolve: (s) => gid('GenericCommitStatus', s.id) }),
    databaseId: t.exposeInt('id'),
    sha: t.exposeString('sha'),
    ref: t.exposeString('ref'),
    status: t.exposeString('status', { description: 'created, pending, running, success, failed, canceled or skipped.' }),
    name: t.exposeString('name'),
    stage: t.string({ resolve: () => EXTERNAL_STAGE }),
    targetUrl: t.exposeString('targetUrl', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    coverage: t.exposeFloat('coverage', { nullable: true }),
    allowFailure: t.exposeBoolean('allowFailure'),
    pipelineId: t.exposeInt('pipelineId'),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    startedAt: t.expose('startedAt', { type: 'Time', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'Time', nullable: true }),
    author: t.field({ type: UserRef, nullable: true, resolve: (s, _a, ctx) => (s.userId == null ? null : ctx.loaders.user.load(s.userId)) }),
  }),
});

const StatusOrderEnum = builder.enumType('CommitStatusOrder', {
  description: `Order of commit statuses. ${FORGEGATE}`,
  values: { ID: { value: 'id' }, PIPELINE_ID: { value: 'pipeline_id' } } as const,
});

/** GitLab's name for a list of pipelines (Pothos would name it after the field). */
const PipelineConnectionRef = builder.connectionObject({ type: PipelineRef, name: 'PipelineConnection' }, { name: 'PipelineEdge' });

builder.objectFields(CommitRef, (t) => ({
  pipelines: t.connection(
    {
      type: PipelineRef,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      description: 'Pipelines of the commit, newest first.',
      args: {
        ref: t.arg.string({ description: 'Filter pipelines by the ref they are run for.' }),
        sha: t.arg.string({ description: 'Filter pipelines by the sha of the commit they are run for.' }),
      },
      resolve: async (commit, args, ctx) => {
        if (args.sha != null && args.sha !== commit.id) return pagedConnection(args, { count: async () => 0, fetch: async () => [] });
        const listing = await commitPipelines(ctx, commit.project, commit.id, args.ref);
        return pagedConnection(args, {
          count: listing.count,
          fetch: async (page) => (await listing.fetch(page)).map((p) => ({ ...p, project: commit.project })),
        });
      },
    },
    PipelineConnectionRef,
  ),
  statuses: t.connection({
    type: CommitStatusRef,
    extensions: scopes(...REPOSITORY_READ_SCOPES),
    description: `Statuses posted on the commit, oldest first. ${FORGEGATE}`,
    args: {
      ref: t.arg.string(),
      stage: t.arg.string(),
      name: t.arg.string(),
      all: t.arg.boolean({ description: 'Every status, not only the latest of each name.' }),
      pipelineId: t.arg.int({ description: 'Only the statuses of this pipeline.' }),
      orderBy: t.arg({ type: StatusOrderEnum }),
      sort: t.arg({ type: SortDirectionEnum }),
    },
    resolve: async (commit, args, ctx) => {
      const listing = await listCommitStatuses(ctx, commit.project, commit.id, args);
      return pagedConnection(args, { count: listing.count, fetch: async (page) => (await listing.fetch(page)).map((s) => ({ ...s, sha: commit.id })) });
    },
  }),
}));

const CommitStatusStateEnum = builder.enumType('CommitStatusState', {
  description: `States a status can be posted with. ${FORGEGATE}`,
  values: {
    PENDING: { value: 'pending' },
    RUNNING: { value: 'running' },
    SUCCESS: { value: 'success' },
    FAILED: { value: 'failed' },
    CANCELED: { value: 'canceled' },
    SKIPPED: { value: 'skipped' },
  } as const,
});

const CommitStatusCreateInput = mutationInput('CommitStatusCreateInput', (t) => ({
  ...projectInputFields(t),
  sha: t.string({ required: true, description: 'Commit the status is for.' }),
  state: t.field({ type: CommitStatusStateEnum, required: true }),
  ref: t.string({ description: "Branch or tag (default: the pipeline's, else the first branch holding the commit)." }),
  name: t.string({ description: 'Label of the status (default: `default`).' }),
  targetUrl: t.string(),
  description: t.string(),
  coverage: t.float(),
  pipelineId: t.int({ description: 'The pipeline to post into, when the commit has several.' }),
}));

builder.mutationFields((t) => ({
  commitStatusCreate: t.field({
    type: payloadType('CommitStatusCreatePayload', 'commitStatus', CommitStatusRef),
    description: `Posts a status on a commit, as an external CI system does. ${FORGEGATE}`,
    args: { input: t.arg({ type: CommitStatusCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('commitStatus', () => postCommitStatus(ctx, project, input), input);
    },
  }),
}));
