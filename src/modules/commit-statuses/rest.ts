import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, found, page } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';

const STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;

// GitLab's commit status API authenticates every request first.
export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/statuses',
      operation: 'CommitStatuses',
      paginated: true,
      params: {
        id: param.ref(),
        sha: param.string({ required: true }),
        ref: param.string(),
        stage: param.string(),
        name: param.string(),
        all: param.bool({ default: false }),
        pipeline_id: param.int(),
        order_by: param.oneOf(['id', 'pipeline_id'], { default: 'id' }),
        sort: param.oneOf(['asc', 'desc'], { default: 'asc' }),
      },
      variables: (v) => ({
        ...v.id,
        sha: v.sha,
        ref: v.ref || undefined,
        stage: v.stage || undefined,
        name: v.name || undefined,
        all: v.all,
        pipelineId: v.pipeline_id,
        orderBy: enumValue(v.order_by),
        sort: v.sort,
      }),
      result: (data) => page(found(found(data.project, 'Project').repository?.commit, 'Commit').statuses),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/statuses/:sha',
      operation: 'CommitStatusCreate',
      status: 201,
      params: {
        id: param.ref(),
        sha: param.string({ required: true }),
        state: param.oneOf(STATES, { required: true }),
        ref: param.string(),
        name: param.string(),
        context: param.string(),
        target_url: param.string(),
        description: param.string(),
        coverage: param.float(),
        pipeline_id: param.int(),
      },
      variables: (v) => ({
        input: {
          ...projectInput(v.id),
          sha: v.sha,
          state: enumValue(v.state),
          ref: v.ref || undefined,
          // `name` wins over `context`, its GitHub-style alias.
          name: v.name || v.context || undefined,
          targetUrl: v.target_url,
          description: v.description,
          coverage: v.coverage,
          pipelineId: v.pipeline_id,
        },
      }),
      result: (data) => expected(data.commitStatusCreate?.commitStatus, 'commit status'),
    }),
  ],
  { authenticate: 'always' },
);
