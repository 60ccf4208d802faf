import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../graphql/context.ts';
import { NotFoundError } from '../../graphql/errors.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes, type RouteDef } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { rawBlob, rawLfsObject } from './service.ts';

const FILE = '/projects/:id/repository/files/:file_path';

type FileMeta = {
  file_name: string;
  file_path: string;
  size: number;
  content_sha256: string;
  ref: string;
  blob_id: string;
  commit_id: string;
  last_commit: { sha: string } | null;
  execute_filemode: boolean;
  content?: string;
  lfs_oid?: string | null;
};

const readVariables = (p: Params) => ({
  ...p.ref('id'),
  path: p.string('file_path', { required: true }),
  ref: p.string('ref', { required: true, allowBlank: false }),
});

/** The one file a read operation found: unknown ref → 404 Commit, missing file → 404 File. */
function foundFile<T = FileMeta>(data: any): T {
  const repository = found(data.project, 'Project').repository;
  found(repository.commit, 'Commit');
  return found(repository.blobs.nodes[0], 'File');
}

/** GitLab's blob_data, in its key order; `content` only where the route returns it. */
function fileEntity({ content, last_commit, lfs_oid: _lfs, ...meta }: FileMeta) {
  const { file_name, file_path, size, content_sha256, ref, blob_id, commit_id, execute_filemode } = meta;
  const entity = { file_name, file_path, size, encoding: 'base64', content_sha256, ref, blob_id, commit_id, last_commit_id: last_commit?.sha ?? null, execute_filemode };
  return content === undefined ? entity : { ...entity, content };
}

const headerName = (key: string) =>
  key
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('-');

/** Every metadata key as a header, under GitLab's name and under the spec's. */
function setFileHeaders(res: Response, meta: FileMeta) {
  for (const [key, value] of Object.entries(fileEntity({ ...meta, content: undefined }))) {
    res.setHeader(`X-Gitlab-${headerName(key)}`, String(value));
    res.setHeader(`X-Service-${headerName(key)}`, String(value));
  }
}

const headersOnly = (res: Response, meta: FileMeta) => {
  setFileHeaders(res, meta);
  res.end();
};

const contentType = (head: Buffer) => (head.subarray(0, 8000).includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

function setRawHeaders(res: Response, meta: FileMeta, size: number) {
  setFileHeaders(res, meta);
  const ascii = meta.file_name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.setHeader('Content-Disposition', `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(meta.file_name)}`);
  res.setHeader('Cache-Control', 'max-age=0, private, must-revalidate, no-store, no-cache');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Expires', 'Fri, 01 Jan 1990 00:00:00 GMT');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', String(size));
}

/** Streams a body; the content type is decided on the first chunk, as workhorse does. */
async function sendStream(res: Response, stream: Readable) {
  let typed = false;
  await pipeline(
    stream,
    async function* (source) {
      for await (const chunk of source) {
        if (!typed) res.setHeader('Content-Type', contentType(chunk as Buffer));
        typed = true;
        yield chunk;
      }
      if (!typed) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    },
    res,
  );
}

async function sendRaw(res: Response, { meta, projectId, lfs }: { meta: FileMeta; projectId: number; lfs: boolean }, ctx: Context) {
  if (lfs && meta.lfs_oid) {
    const object = await rawLfsObject(ctx, projectId, meta.lfs_oid);
    if (!object) throw new NotFoundError();
    setRawHeaders(res, meta, object.size);
    return sendStream(res, object.stream);
  }
  setRawHeaders(res, meta, meta.size);
  const body = await rawBlob(ctx, projectId, meta.blob_id, meta.size);
  if (!Buffer.isBuffer(body)) return sendStream(res, body);
  res.setHeader('Content-Type', contentType(body));
  res.end(body);
}

/**
 * GitLab's raw route accepts a leading slash (`allow_initial_path_separator`), and its `ref` is
 * optional: the default branch, which is what the repository's HEAD points to.
 */
const rawVariables = (p: Params) => ({
  ...p.ref('id'),
  path: p.string('file_path', { required: true })?.replace(/^\/+/, ''),
  ref: p.string('ref', { allowBlank: false }) ?? 'HEAD',
});

const rawResult = (data: any, p: Params) => ({ meta: foundFile(data), projectId: data.project.id as number, lfs: p.bool('lfs') ?? false });

/** `range[start]`/`range[end]`: both required once `range` is given, positive integers. */
function blameRange(p: Params) {
  if (!p.has('range')) return {};
  const bound = (name: string) => p.int(name, { required: true, allowBlank: false, min: 1 });
  return { from: bound('range[start]'), to: bound('range[end]') };
}

function writeVariables(action: 'create' | 'update' | 'delete') {
  return (p: Params) => {
    const encoding = action === 'delete' ? undefined : p.oneOf('encoding', ['text', 'base64'] as const);
    const content = action === 'delete' ? undefined : encoding === 'base64' && p.raw.content === null ? '' : p.string('content', { required: true });
    return {
      ...p.ref('id'),
      branch: p.string('branch', { required: true, allowBlank: false }),
      startBranch: p.string('start_branch', { allowBlank: false }),
      message: p.string('commit_message', { required: true, allowBlank: false }),
      authorName: p.string('author_name'),
      authorEmail: p.string('author_email'),
      actions: [
        {
          action: action.toUpperCase(),
          filePath: p.string('file_path', { required: true }),
          content,
          encoding: encoding?.toUpperCase(),
          executeFilemode: action === 'delete' ? undefined : p.bool('execute_filemode'),
          lastCommitId: p.string('last_commit_id'),
        },
      ],
    };
  };
}

const writeResult = (_data: unknown, p: Params) => ({ file_path: p.string('file_path'), branch: p.string('branch') });

const headRoute = (path: string, operation: string, variables: RouteDef['variables']): RouteDef => ({
  method: 'HEAD',
  path,
  operation,
  variables,
  result: (data) => foundFile(data),
  respond: headersOnly,
});

export const routes = defineRoutes([
  headRoute(FILE, 'RepositoryFileHead', (p) => readVariables(p)),
  headRoute(`${FILE}/blame`, 'RepositoryFileHead', (p) => readVariables(p)),
  headRoute(`${FILE}/raw`, 'RepositoryFileHead', rawVariables),
  {
    method: 'GET',
    path: `${FILE}/raw`,
    operation: 'RepositoryFileRaw',
    variables: rawVariables,
    result: rawResult,
    respond: sendRaw,
  },
  {
    method: 'GET',
    path: `${FILE}/blame`,
    operation: 'RepositoryFileBlame',
    variables: (p) => ({ ...readVariables(p), ...blameRange(p) }),
    result: (data) => foundFile<{ blame: { groups: unknown[] } }>(data).blame.groups,
  },
  {
    method: 'GET',
    path: FILE,
    operation: 'RepositoryFile',
    variables: (p) => readVariables(p),
    result: (data) => fileEntity(foundFile(data)),
  },
  { method: 'POST', path: FILE, operation: 'RepositoryFileCommit', status: 201, variables: writeVariables('create'), result: writeResult },
  { method: 'PUT', path: FILE, operation: 'RepositoryFileCommit', variables: writeVariables('update'), result: writeResult },
  { method: 'DELETE', path: FILE, operation: 'RepositoryFileCommit', variables: writeVariables('delete'), result: () => undefined },
]);
