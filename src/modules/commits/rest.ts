import type { CommitEntityFragment, CommitStatsEntityFragment, DiffEntityFragment, PipelineBasicEntityFragment } from '../../generated/operations.ts';
import { checkFilePath } from '../../git/paths.ts';
import { param, type Rule } from '../../rest/declare.ts';
import { pageOf, sendPage } from '../../rest/pagination.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { enumValue, expected, found, omit, page } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';
import { commitEntity } from './entity.ts';

type WithStats = CommitEntityFragment & { stats?: CommitStatsEntityFragment | null };

/** A list entry: `stats` only when asked for (`with_stats`). */
const listedCommit = (commit: WithStats) => {
  const entity = commitEntity(omit(commit, ['stats']));
  return commit.stats === undefined ? entity : { ...entity, stats: commit.stats };
};

type WithPipeline = WithStats & { pipelines?: { nodes: (PipelineBasicEntityFragment | null)[] | null } | null };

/** GitLab's PipelineBasic: the pipeline with its project, the status as REST spells it. */
const pipelineEntity = ({ status, ...pipeline }: PipelineBasicEntityFragment, projectId: number | null) => ({
  id: pipeline.id,
  iid: Number(pipeline.iid),
  project_id: projectId,
  sha: pipeline.sha,
  ref: pipeline.ref,
  status: status?.toLowerCase() ?? null,
  source: pipeline.source,
  created_at: pipeline.created_at,
  updated_at: pipeline.updated_at,
  web_url: pipeline.web_url,
});

/** GitLab's CommitDetail: the commit, its stats unless `stats=false`, its last pipeline and that pipeline's status. */
function commitDetail({ pipelines, ...commit }: WithPipeline, projectId: number | null) {
  const last = pipelines?.nodes?.[0];
  const pipeline = last ? pipelineEntity(last, projectId) : null;
  return { ...listedCommit(commit), status: pipeline?.status ?? null, project_id: projectId, last_pipeline: pipeline };
}

/** GitLab's diff entity; with `unidiff` each patch carries its `---`/`+++` header lines, as `git diff` prints them. */
function diffEntity(diff: DiffEntityFragment, unidiff = false) {
  if (!unidiff || diff.diff === '') return diff;
  const from = diff.new_file ? '/dev/null' : `a/${diff.old_path}`;
  const to = diff.deleted_file ? '/dev/null' : `b/${diff.new_path}`;
  return { ...diff, diff: `--- ${from}\n+++ ${to}\n${diff.diff}` };
}

const COMMITS = '/projects/:id/repository/commits';

const ACTION = param.hashes({
  action: param.oneOf(['create', 'update', 'move', 'delete', 'chmod'], { required: true }),
  file_path: param.string({ required: true }),
  previous_path: param.string(),
  content: param.string(),
  encoding: param.oneOf(['text', 'base64'], { default: 'text' }),
  last_commit_id: param.string(),
  execute_filemode: param.bool(),
});

/** Grape's `file_path: true` validator on each action's paths, named as GitLab names them. */
const actionPaths: Rule = {
  description: 'actions[n][file_path] and actions[n][previous_path] must be valid file paths.',
  check: (p) => {
    const actions = p.value('actions');
    if (actions == null) return p.problem('actions', 'is missing');
    if (typeof actions !== 'object') return;
    Object.values(actions as Record<string, unknown>).forEach((action, i) => {
      if (!action || typeof action !== 'object') return;
      for (const key of ['file_path', 'previous_path']) {
        const value = (action as Record<string, unknown>)[key];
        if (typeof value === 'string' && value !== '' && checkFilePath(value) === null) p.problem(`actions[${i}][${key}]`, 'should be a valid file path');
      }
    });
  },
};

const PAGE = { page: param.int(), per_page: param.int() };

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: COMMITS,
    operation: 'ProjectCommits',
    paginated: true,
    params: {
      id: param.ref(),
      ref_name: param.string(),
      since: param.dateTime(),
      until: param.dateTime(),
      path: param.string(),
      author: param.string(),
      all: param.bool(),
      with_stats: param.bool({ default: false }),
      first_parent: param.bool(),
      order: param.oneOf(['default', 'topo'], { default: 'default' }),
      trailers: param.bool(),
    },
    variables: (v) => ({
      ...v.id,
      ref: v.ref_name || undefined,
      since: v.since,
      until: v.until,
      path: v.path || undefined,
      author: v.author || undefined,
      all: v.all,
      firstParent: v.first_parent,
      order: enumValue(v.order),
      withStats: v.with_stats,
    }),
    result: (data) => page(found(data.project, 'Project').repository?.commits, listedCommit),
  }),
  route({
    method: 'GET',
    path: `${COMMITS}/:sha`,
    operation: 'ProjectCommitDetail',
    params: { id: param.ref(), sha: param.string({ required: true }), stats: param.bool({ default: true }) },
    variables: (v) => ({ ...v.id, ref: v.sha, withStats: v.stats }),
    result: (data) => {
      const project = found(data.project, 'Project');
      return commitDetail(found(project.repository?.commit, 'Commit'), project.project_id);
    },
  }),
  route({
    method: 'GET',
    path: `${COMMITS}/:sha/diff`,
    operation: 'ProjectCommitDiff',
    params: { id: param.ref(), sha: param.string({ required: true }), unidiff: param.bool({ default: false }), ...PAGE },
    variables: (v) => ({ ...v.id, ref: v.sha }),
    result: (data, v, p) => {
      const commit = found(found(data.project, 'Project').repository?.commit, 'Commit');
      return pageOf(
        p,
        (commit.diffs ?? []).map((d) => diffEntity(d, v.unidiff)),
      );
    },
    respond: sendPage,
  }),
  route({
    method: 'POST',
    path: COMMITS,
    operation: 'CommitCreate',
    status: 201,
    params: {
      id: param.ref(),
      branch: param.string({ required: true, allowBlank: false }),
      commit_message: param.string({ required: true, allowBlank: false }),
      start_branch: param.string({ allowBlank: false }),
      start_sha: param.string({ allowBlank: false }),
      actions: { ...ACTION, required: true },
      author_email: param.string(),
      author_name: param.string(),
      stats: param.bool({ default: true }),
      force: param.bool({ default: false }),
    },
    rules: [actionPaths],
    variables: (v) => ({
      withStats: v.stats,
      input: {
        ...projectInput(v.id),
        branch: v.branch,
        startBranch: v.start_branch,
        startSha: v.start_sha,
        force: v.force,
        message: v.commit_message,
        authorName: v.author_name,
        authorEmail: v.author_email,
        actions: (v.actions ?? []).map((a) => ({
          action: enumValue(a.action),
          filePath: a.file_path,
          previousPath: a.previous_path,
          content: a.content,
          encoding: enumValue(a.encoding),
          lastCommitId: a.last_commit_id,
          executeFilemode: a.execute_filemode,
        })),
      },
    }),
    result: (data) => {
      const { project, ...commit } = expected(data.commitCreate?.commit, 'commit');
      return commitDetail(commit, project?.project_id ?? null);
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/compare',
    operation: 'ProjectCompare',
    params: {
      id: param.ref(),
      from: param.string({ required: true, allowBlank: false }),
      to: param.string({ required: true, allowBlank: false }),
      from_project_id: param.int(),
      straight: param.bool({ default: false }),
      unidiff: param.bool({ default: false }),
    },
    variables: (v) => ({ ...v.id, from: v.from, to: v.to, straight: v.straight, fromProjectId: v.from_project_id }),
    result: (data, v) => {
      const compare = found(found(data.project, 'Project').repository?.compare, 'Ref');
      return {
        commit: compare.commit && commitEntity(compare.commit),
        commits: (compare.commits ?? []).map(commitEntity),
        diffs: (compare.diffs ?? []).map((d) => diffEntity(d, v.unidiff)),
        compare_timeout: compare.compare_timeout,
        compare_same_ref: compare.compare_same_ref,
        web_url: compare.web_url,
      };
    },
  }),
]);
