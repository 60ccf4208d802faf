import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../core/context.ts';
import type { CommitAction, RepositoryFileMetaFragment } from '../../generated/operations.ts';
import { param, type Rule, type Values } from '../../rest/declare.ts';
import { defineRoutes, route, type OperationData } from '../../rest/route.ts';
import { enumValue, expected, found, nodesOf } from '../../rest/shape.ts';
import { API_CACHE_CONTROL, JSON_TYPE } from '../../rest/json.ts';
import { projectInput } from '../../rest/sources.ts';
import { pageVariables, readPage, setPaginationHeaders, withoutCredentials, type PageRequest } from '../../rest/pagination.ts';
import qs from 'qs';
import { rawFile, type RawSource } from './service.ts';

const FILE = '/projects/:id/repository/files/:file_path';

type FileMeta = RepositoryFileMetaFragment & { content?: string | null; lfs_oid?: string | null };

type FileQuery<T> = {
  project: { repository: { commit: { sha: string | null } | null; blobs: { nodes: (T | null)[] | null } | null } | null } | null;
};

/** The one file a read operation found: unknown ref → 404 Commit, missing file → 404 File. */
function foundFile<T>(data: FileQuery<T>): T {
  const repository = found(data.project, 'Project').repository;
  found(repository?.commit, 'Commit');
  return found(nodesOf(repository?.blobs)[0], 'File');
}

/** GitLab's blob_data, in its key order; `content` only where the route returns it. */
function fileEntity({ content, last_commit, lfs_oid: _lfs, ...meta }: FileMeta) {
  const { file_name, file_path, size, content_sha256, ref, blob_id, commit_id, execute_filemode } = meta;
  const entity = {
    file_name,
    file_path,
    size,
    encoding: 'base64',
    content_sha256,
    ref,
    blob_id,
    commit_id,
    last_commit_id: last_commit?.sha ?? null,
    execute_filemode,
  };
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

function setRawHeaders(res: Response, meta: FileMeta, size: number) {
  setFileHeaders(res, meta);
  const name = meta.file_name ?? '';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.setHeader('Content-Disposition', `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  res.setHeader('Cache-Control', 'max-age=0, private, must-revalidate, no-store, no-cache');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Expires', 'Fri, 01 Jan 1990 00:00:00 GMT');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', String(size));
}

type RawRequest = { meta: FileMeta; source: RawSource; lfs: boolean };

/** The bytes the service chose (LFS object or blob), typed by their first bytes. */
async function sendRaw(res: Response, { meta, source, lfs }: RawRequest, ctx: Context) {
  const raw = await rawFile(ctx, source, { lfs });
  setRawHeaders(res, meta, raw.size);
  res.setHeader('Content-Type', raw.contentType);
  if (Buffer.isBuffer(raw.body)) res.end(raw.body);
  else await sendStream(res, raw.body, ctx);
}

/** A body streamed after the headers: a client that leaves, or a read that fails, ends it there (logged). */
function sendStream(res: Response, body: Readable, ctx: Context) {
  return pipeline(body, res).catch((error: Error) => ctx.deps.log.warn({ err: error, requestId: ctx.requestId }, 'file download ended early'));
}

/** The one file a read operation found, with what reading its bytes takes. */
function foundSource(data: OperationData<'RepositoryFileRaw'> | OperationData<'RepositoryFile'>) {
  const meta: FileMeta = foundFile(data);
  const source: RawSource = {
    projectId: expected(data.project?.id, 'project id'),
    oid: expected(meta.blob_id, 'blob id'),
    size: expected(meta.size, 'blob size'),
    lfsOid: meta.lfs_oid ?? null,
  };
  return { meta, source };
}

/** Base64 of a byte stream, chunk by chunk: each chunk's last bytes that are no whole triple wait for the next. */
async function* base64Of(chunks: AsyncIterable<Buffer>) {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 3);
    rest = bytes.subarray(whole);
    yield bytes.subarray(0, whole).toString('base64');
  }
  yield rest.toString('base64');
}

/**
 * GitLab's file JSON, `content` last, written as the blob's bytes arrive: a big file is base64-encoded
 * on the fly from git's stream, as raw serves it, and never held whole (with its encoding and the
 * JSON text around it) in memory. The length is known before the first byte: JSON text before
 * and after the content, and base64's four characters per three bytes.
 */
async function sendFileJson(res: Response, { meta, source }: ReturnType<typeof foundSource>, ctx: Context) {
  const { body } = await rawFile(ctx, source, { lfs: false });
  const before = `${JSON.stringify(fileEntity(meta)).slice(0, -1)},"content":"`;
  const after = '"}';
  setFileHeaders(res, meta);
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Cache-Control', API_CACHE_CONTROL);
  res.setHeader('Content-Length', String(Buffer.byteLength(before) + 4 * Math.ceil(source.size / 3) + after.length));
  const content = Buffer.isBuffer(body) ? [body.toString('base64')] : base64Of(body);
  async function* json() {
    yield before;
    yield* content;
    yield after;
  }
  await sendStream(res, Readable.from(json()), ctx);
}

const READ = { id: param.ref(), file_path: param.string({ required: true }), ref: param.string({ required: true, allowBlank: false }) };

const readVariables = (v: Values<typeof READ>) => ({ ...v.id, path: v.file_path, ref: v.ref });

/**
 * GitLab's raw route accepts a leading slash (`allow_initial_path_separator`), and its `ref` is
 * optional: the default branch, which is what the repository's HEAD points to.
 */
const RAW = {
  id: param.ref(),
  file_path: param.string({ required: true }),
  ref: param.string({ allowBlank: false, default: 'HEAD' }),
  lfs: param.bool({ default: false }),
};

const rawVariables = (v: Values<typeof RAW>) => ({ ...v.id, path: v.file_path.replace(/^\/+/, ''), ref: v.ref });

/** `range[start]`/`range[end]`: both required once `range` is given (the service checks the values). */
const RANGE = param.hash({
  start: param.int({ required: true, allowBlank: false, documented: { minimum: 1 } }),
  end: param.int({ required: true, allowBlank: false, documented: { minimum: 1 } }),
});

const COMMIT = {
  id: param.ref(),
  file_path: param.string({ required: true }),
  branch: param.string({ required: true, allowBlank: false }),
  start_branch: param.string({ allowBlank: false }),
  commit_message: param.string({ required: true, allowBlank: false }),
  author_name: param.string(),
  author_email: param.string(),
  last_commit_id: param.string(),
};

const CHANGE = {
  ...COMMIT,
  encoding: param.oneOf(['text', 'base64']),
  content: param.string(),
  execute_filemode: param.bool(),
};

/** `content` is required, except JSON null with `encoding: base64`: an empty file. */
const contentRequired: Rule = {
  description: 'content is required; null is an empty file when encoding is base64.',
  check: (p) => {
    if (p.value('content') === null && p.value('encoding') === 'base64') return;
    if (p.value('content') == null) p.problem('content', 'is missing');
  },
};

/** The one-action commit a file write makes. */
function commitVariables(v: Values<typeof COMMIT>, action: CommitAction) {
  return {
    input: {
      ...projectInput(v.id),
      branch: v.branch,
      startBranch: v.start_branch,
      message: v.commit_message,
      authorName: v.author_name,
      authorEmail: v.author_email,
      actions: [{ ...action, filePath: v.file_path, lastCommitId: v.last_commit_id }],
    },
  };
}

const changeVariables = (action: 'CREATE' | 'UPDATE') => (v: Values<typeof CHANGE>) =>
  commitVariables(v, {
    action,
    filePath: v.file_path,
    content: v.content ?? '',
    encoding: v.encoding && enumValue(v.encoding),
    executeFilemode: v.execute_filemode,
  });

const writeResult = (_data: unknown, v: Values<typeof COMMIT>) => ({ file_path: v.file_path, branch: v.branch });

const headRoute = (path: string) =>
  route({
    method: 'HEAD',
    path,
    operation: 'RepositoryFileHead',
    jobToken: true,
    params: READ,
    variables: readVariables,
    result: (data) => foundFile(data),
    respond: headersOnly,
  });

type TreeNode = { id: string | null; name: string | null; type: string | null; path: string | null; mode?: string | null };
type TreePage = { keyset: boolean; page: PageRequest; total: number; nodes: TreeNode[] };

/** GitLab's tree entry: `{id, name, type, path, mode}`. */
const treeEntity = ({ id, name, type, path, mode }: TreeNode) => ({ id, name, type, path, mode: mode ?? null });

/**
 * Offset pagination with GitLab's headers, or keyset pagination (`pagination=keyset`): only a
 * `rel="next"` link whose `page_token` is the last entry's id, while more entries follow.
 */
function sendTree(res: Response, body: TreePage, ctx: Context) {
  const req = res.req;
  if (!body.keyset) {
    setPaginationHeaders(req, res, ctx.deps.config.externalUrl, body.page, body.total);
  } else if (body.total > body.nodes.length && body.nodes.length > 0) {
    const query = {
      ...withoutCredentials(req.query as Record<string, unknown>),
      page_token: body.nodes[body.nodes.length - 1].id,
      per_page: body.page.perPage,
    };
    const search = qs.stringify(query, { arrayFormat: 'brackets', sort: (a, b) => a.localeCompare(b) });
    res.set('Link', `<${ctx.deps.config.externalUrl}${req.baseUrl}${req.path}?${search}>; rel="next"`);
  }
  res.json(body.nodes);
}

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/projects/:id/repository/tree',
    operation: 'RepositoryTree',
    params: {
      id: param.ref(),
      path: param.string(),
      ref: param.string({ allowBlank: false }),
      recursive: param.bool({ default: false }),
      pagination: param.oneOf(['legacy', 'keyset', 'none']),
      page_token: param.string(),
      page: param.int(),
      per_page: param.int(),
    },
    variables: (v, p) => {
      const page = readPage(p);
      const common = { ...v.id, path: v.path ?? '', ref: v.ref, recursive: v.recursive };
      return v.pagination === 'keyset' ? { ...common, pageToken: v.page_token, first: page.perPage } : { ...common, ...pageVariables(page) };
    },
    result: (data, v, p): TreePage => {
      const tree = found(found(data.project, 'Project').repository?.tree, 'Tree');
      return {
        keyset: v.pagination === 'keyset',
        page: readPage(p),
        total: tree.entries?.totalCount ?? 0,
        nodes: nodesOf(tree.entries).map((node) => treeEntity(node)),
      };
    },
    respond: sendTree,
  }),
  headRoute(FILE),
  headRoute(`${FILE}/blame`),
  route({
    method: 'HEAD',
    path: `${FILE}/raw`,
    operation: 'RepositoryFileHead',
    jobToken: true,
    params: RAW,
    variables: rawVariables,
    result: (data) => foundFile(data),
    respond: headersOnly,
  }),
  route({
    method: 'GET',
    path: `${FILE}/raw`,
    operation: 'RepositoryFileRaw',
    jobToken: true,
    params: RAW,
    variables: rawVariables,
    result: (data, v): RawRequest => ({ ...foundSource(data), lfs: v.lfs }),
    respond: sendRaw,
  }),
  route({
    method: 'GET',
    path: `${FILE}/blame`,
    operation: 'RepositoryFileBlame',
    jobToken: true,
    params: { ...READ, range: RANGE },
    variables: (v) => ({ ...readVariables(v), from: v.range?.start, to: v.range?.end }),
    result: (data) => foundFile(data).blame?.groups ?? [],
  }),
  route({
    method: 'GET',
    path: FILE,
    operation: 'RepositoryFile',
    jobToken: true,
    params: READ,
    variables: readVariables,
    result: foundSource,
    respond: sendFileJson,
  }),
  route({
    method: 'POST',
    path: FILE,
    operation: 'RepositoryFileCommit',
    status: 201,
    params: CHANGE,
    rules: [contentRequired],
    variables: changeVariables('CREATE'),
    result: writeResult,
  }),
  route({
    method: 'PUT',
    path: FILE,
    operation: 'RepositoryFileCommit',
    params: CHANGE,
    rules: [contentRequired],
    variables: changeVariables('UPDATE'),
    result: writeResult,
  }),
  route({
    method: 'DELETE',
    path: FILE,
    operation: 'RepositoryFileCommit',
    params: COMMIT,
    variables: (v) => commitVariables(v, { action: 'DELETE', filePath: v.file_path }),
  }),
]);
