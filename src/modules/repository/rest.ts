import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../core/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import { param } from '../../rest/declare.ts';
import { writeJson } from '../../rest/json.ts';
import { pageOf, sendPage } from '../../rest/pagination.ts';
import { defineRoutes, route, type OperationData } from '../../rest/route.ts';
import { enumValue, expected, found } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';
import { commitEntity } from '../commits/entity.ts';
import { rawFile } from '../repository-files/service.ts';
import { blobObjectContent, repositorySnapshot, type BlobObject } from './service.ts';

const REPOSITORY = '/projects/:id/repository';
const COMMIT = `${REPOSITORY}/commits/:sha`;

/** Headers GitLab's `no_cache_headers` sets on raw bodies. */
function noCache(res: Response) {
  res.setHeader('Cache-Control', 'no-cache, no-store, max-age=0, must-revalidate');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Expires', 'Fri, 01 Jan 1990 00:00:00 GMT');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** The blob as GitLab's `{size, encoding, content, sha}`, its content base64. */
async function sendBlobJson(res: Response, blob: BlobObject, ctx: Context) {
  const content = await blobObjectContent(ctx, blob);
  writeJson(res, 200, { size: blob.size, encoding: 'base64', content: content.toString('base64'), sha: blob.sha });
}

/** The blob's bytes, typed by their first ones as Workhorse does. */
async function sendBlobRaw(res: Response, blob: BlobObject, ctx: Context) {
  const raw = await rawFile(ctx, { projectId: blob.projectId, oid: blob.sha, size: blob.size, lfsOid: null }, { lfs: false });
  noCache(res);
  res.setHeader('Content-Type', raw.contentType);
  res.setHeader('Content-Length', String(raw.size));
  res.setHeader('Content-Disposition', 'inline');
  if (Buffer.isBuffer(raw.body)) res.end(raw.body);
  else await pipeline(raw.body, res);
}

async function sendSnapshot(res: Response, project: { id: number; path: string }, ctx: Context) {
  const body = await repositorySnapshot(ctx, project.id);
  res.setHeader('Content-Type', 'application/x-tar');
  res.setHeader('Content-Disposition', `attachment; filename="${project.path}-${project.id}.tar"`);
  noCache(res);
  await pipeline(body, res);
}

/** A cherry-pick or revert answers the new commit (201), or `{dry_run: "success"}` (200) for a dry run. */
function sendChange(res: Response, body: ReturnType<typeof changeResult>) {
  if ('dry_run' in body) writeJson(res, 200, body);
  else writeJson(res, 201, body);
}

type ChangeData = { commit: Parameters<typeof commitEntity>[0] | null; dryRun: boolean | null } | null | undefined;

const changeResult = (payload: ChangeData) => {
  const change = expected(payload, 'change');
  return change.dryRun ? { dry_run: 'success' } : commitEntity(expected(change.commit, 'commit'));
};

/** The blob the operation found, with its project's id for the read that follows. */
function foundBlob(data: OperationData<'RepositoryBlobObject'>): BlobObject {
  const project = found(data.project, 'Project');
  const blob = found(project.repository?.blobObject, 'Blob');
  return { sha: expected(blob.sha, 'blob id'), size: expected(blob.size, 'blob size'), projectId: expected(project.project_id, 'project id') };
}

const CHANGE = {
  id: param.ref(),
  sha: param.string({ required: true }),
  branch: param.string({ required: true, allowBlank: false }),
  dry_run: param.bool({ default: false }),
};

const PAGE = { page: param.int(), per_page: param.int() };

/** REST's name of each kind of signature GraphQL types. */
const SIGNATURE_TYPES = { GpgSignature: 'PGP', SshSignature: 'SSH', X509Signature: 'X509' } as const;

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: `${REPOSITORY}/blobs/:sha`,
    operation: 'RepositoryBlobObject',
    params: { id: param.ref(), sha: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, sha: v.sha }),
    result: foundBlob,
    respond: sendBlobJson,
  }),
  route({
    method: 'GET',
    path: `${REPOSITORY}/blobs/:sha/raw`,
    operation: 'RepositoryBlobObject',
    params: { id: param.ref(), sha: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, sha: v.sha }),
    result: foundBlob,
    respond: sendBlobRaw,
  }),
  route({
    method: 'GET',
    path: '/projects/:id/snapshot',
    operation: 'ProjectSnapshot',
    authenticate: true,
    params: { id: param.ref(), wiki: param.bool({ default: false }) },
    variables: (v) => ({ ...v.id }),
    result: (data) => {
      const project = found(data.project, 'Project');
      return { id: expected(project.project_id, 'project id'), path: expected(project.path, 'project path') };
    },
    respond: sendSnapshot,
  }),
  route({
    method: 'GET',
    path: `${COMMIT}/refs`,
    operation: 'CommitContainingRefs',
    paginated: true,
    params: { id: param.ref(), sha: param.string({ required: true }), type: param.oneOf(['branch', 'tag', 'all'], { default: 'all' }) },
    variables: (v) => ({ ...v.id, sha: v.sha, type: enumValue(v.type) }),
    result: (data) => found(found(data.project, 'Project').repository?.commit, 'Commit').containingRefs,
  }),
  route({
    method: 'GET',
    path: `${COMMIT}/signature`,
    operation: 'CommitSignature',
    params: { id: param.ref(), sha: param.string({ required: true }) },
    variables: (v) => ({ ...v.id, sha: v.sha }),
    result: (data) => {
      const commit = found(found(data.project, 'Project').repository?.commit, 'Commit');
      const signature = found(commit.signature, 'Signature');
      // forgegate keeps no GPG, SSH or X.509 keys: a signature is never tied to a key of a user.
      return {
        signature_type: SIGNATURE_TYPES[signature.__typename],
        verification_status: signature.verificationStatus?.toLowerCase(),
        commit_source: 'gitaly',
      };
    },
  }),
  route({
    method: 'POST',
    path: `${COMMIT}/cherry_pick`,
    operation: 'CommitCherryPick',
    params: { ...CHANGE, message: param.string() },
    variables: (v) => ({ input: { ...projectInput(v.id), sha: v.sha, branch: v.branch, dryRun: v.dry_run, message: v.message } }),
    result: (data) => changeResult(data.commitCherryPick),
    respond: sendChange,
  }),
  route({
    method: 'POST',
    path: `${COMMIT}/revert`,
    operation: 'CommitRevert',
    params: CHANGE,
    variables: (v) => ({ input: { ...projectInput(v.id), sha: v.sha, branch: v.branch, dryRun: v.dry_run } }),
    result: (data) => changeResult(data.commitRevert),
    respond: sendChange,
  }),
  route({
    method: 'GET',
    path: `${REPOSITORY}/merge_base`,
    operation: 'ProjectMergeBase',
    params: { id: param.ref(), refs: param.stringArray({ required: true }) },
    variables: (v) => ({ ...v.id, refs: v.refs }),
    result: (data) => commitEntity(found(found(data.project, 'Project').repository?.mergeBase, 'Merge Base')),
  }),
  route({
    method: 'GET',
    path: `${REPOSITORY}/contributors`,
    operation: 'ProjectContributors',
    params: {
      id: param.ref(),
      ref: param.string(),
      order_by: param.oneOf(['email', 'name', 'commits'], { default: 'commits' }),
      sort: param.oneOf(['asc', 'desc'], { default: 'asc' }),
      ...PAGE,
    },
    variables: (v) => ({ ...v.id, ref: v.ref || undefined, orderBy: enumValue(v.order_by), sort: v.sort }),
    result: (data, _v, p) => {
      const contributors = found(data.project, 'Project').repository?.contributors;
      // GitLab answers a bare 404 for an unknown ref here.
      if (!contributors) throw new NotFoundError();
      return pageOf(p, contributors);
    },
    respond: sendPage,
  }),
  route({
    method: 'DELETE',
    path: `${REPOSITORY}/merged_branches`,
    operation: 'DeleteMergedBranches',
    status: 202,
    params: { id: param.ref() },
    variables: (v) => ({ input: projectInput(v.id) }),
    result: () => ({ message: '202 Accepted' }),
  }),
]);
