import express, { type NextFunction, type Request, type Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { authenticateBasic } from '../../auth/authenticate.ts';
import { Viewer } from '../../auth/viewer.ts';
import type { AppDeps } from '../../deps.ts';
import { RepositoryBusyError, RepositoryLimiter } from '../../git/limiter.ts';
import {
  advertiseRefs,
  advertisementPrefix,
  gitProtocol,
  receivePack,
  uploadPack,
  type GitRpc,
  type GitService,
  type RpcResult,
} from '../../git/smart-http.ts';
import { createContext, type Context } from '../../core/context.ts';
import { DomainError, UnauthorizedError } from '../../core/errors.ts';
import { nestedTooDeeply, refuseDeepJson, TOO_DEEP_TYPE } from '../../rest/edge.ts';
import type { ContextRequest } from '../../rest/router.ts';
import { announcePush, authorizeGit, authorizeLfs, LfsError, lfsBatch, lfsDownload, lfsOperation, lfsUpload, reviewPush } from './service.ts';

/**
 * Git's smart HTTP protocol and the Git LFS API at the address every project advertises as
 * `http_url_to_repo` (`<EXTERNAL_URL>/<full_path>.git`):
 *
 *   GET  /<full_path>.git/info/refs?service=git-upload-pack|git-receive-pack
 *   POST /<full_path>.git/git-upload-pack, /<full_path>.git/git-receive-pack
 *   POST /<full_path>.git/info/lfs/objects/batch
 *   GET  /<full_path>.git/gitlab-lfs/objects/<oid>, PUT …/<oid>/<size>
 *
 * HTTP Basic authenticates, the service authorizes, `src/git/smart-http.ts` runs git. Nothing
 * here decides who may do what.
 */

const PROJECT_PATH = '[\\w.-]+(?:/[\\w.-]+)+';
const GIT_PATH = new RegExp(
  `^/(${PROJECT_PATH})\\.git/(info/refs|git-upload-pack|git-receive-pack|info/lfs/objects/batch|gitlab-lfs/objects/([0-9a-f]{64})(?:/(\\d{1,15}))?)$`,
);
const INFO_REFS_WITHOUT_SUFFIX = new RegExp(`^/(${PROJECT_PATH})/info/refs$`);

type Target = { fullPath: string; action: string; oid?: string; size?: number };

function targetOf(path: string): Target | null {
  const match = GIT_PATH.exec(path);
  if (!match) return null;
  const [, fullPath, action, oid, size] = match;
  if (oid) return { fullPath, action: size ? 'lfs-object-sized' : 'lfs-object', oid, size: size ? Number(size) : undefined };
  return { fullPath, action };
}

const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
const NO_CACHE = { 'Cache-Control': 'no-cache, max-age=0, must-revalidate', Expires: 'Fri, 01 Jan 1980 00:00:00 GMT', Pragma: 'no-cache' };
/** How long a request may wait for one of its repository's git process slots. */
const QUEUE_WAIT_MS = 30_000;
const BATCH_BODY_LIMIT = '1mb';

const ACCESS_DENIED =
  'HTTP Basic: Access denied. Git needs a personal access token as the password (any username, e.g. oauth2), ' +
  'or gitlab-ci-token and a CI job token; the token may be wrong, expired, revoked or missing the read_repository or write_repository scope.';

type Handler = (ctx: Context, req: Request, res: Response, target: Target) => Promise<void>;

export function gitHttpRouter(deps: AppDeps) {
  const limiter = new RepositoryLimiter(deps.config.gitHttp.maxProcessesPerRepository, deps.config.gitHttp.maxQueuedPerRepository, QUEUE_WAIT_MS);
  const batchBody = express.json({ type: () => true, limit: BATCH_BODY_LIMIT, verify: refuseDeepJson });

  /** Streams a git process's output with the headers of its service; null when no slot was free. */
  async function streamGit(
    res: Response,
    projectId: number,
    start: () => Promise<GitRpc>,
    contentType: string,
    prefix: Buffer = Buffer.alloc(0),
  ): Promise<RpcResult | null> {
    let release: () => void;
    try {
      release = await limiter.acquire(projectId);
    } catch (error) {
      if (!(error instanceof RepositoryBusyError)) throw error;
      res.status(429).set('Retry-After', '10').type('text/plain').send('Too many git requests for this repository at once. Please try again later.');
      return null;
    }
    let rpc: GitRpc;
    try {
      rpc = await start();
    } catch (error) {
      release();
      throw error;
    }
    res.on('close', () => {
      if (!res.writableFinished) rpc.abort();
    });
    const first = await firstChunk(rpc.output);
    if (first !== null) {
      res.status(200).set({ ...NO_CACHE, 'Content-Type': contentType });
      res.write(Buffer.concat([prefix, first]));
      rpc.output.pipe(res, { end: false });
    }
    // The slot is free before the client sees the end of the response: a client that has its
    // whole answer no longer counts against the repository.
    const result = await rpc.finished;
    release();
    if (first === null && result.exitCode !== 0) return failed(res, result);
    if (first === null) res.status(200).set({ ...NO_CACHE, 'Content-Type': contentType });
    if (result.exitCode !== 0) deps.log.warn({ exitCode: result.exitCode, stderr: result.stderr }, 'git ended with an error mid-response');
    if (!res.destroyed) res.end(first === null ? prefix : undefined);
    return result;
  }

  /** git refused the request before writing anything: its input was not a git request. */
  function failed(res: Response, result: RpcResult) {
    deps.log.warn({ exitCode: result.exitCode, stderr: result.stderr }, 'git refused the request');
    res.status(400).type('text/plain').send('The request is not a valid git request.');
    return result;
  }

  const infoRefs: Handler = async (ctx, req, res, target) => {
    const service = serviceOf(req.query.service);
    const project = await authorizeGit(ctx, target.fullPath, service);
    const protocol = gitProtocol(req.header('git-protocol'));
    await streamGit(
      res,
      project.id,
      () => advertiseRefs(deps.git, project.id, service!, protocol),
      `application/x-git-${service}-advertisement`,
      advertisementPrefix(service!, protocol),
    );
  };

  const rpc =
    (service: GitService): Handler =>
    async (ctx, req, res, target) => {
      const project = await authorizeGit(ctx, target.fullPath, service);
      const input = requestBody(req, res, `application/x-git-${service}-request`);
      if (!input) return;
      const protocol = gitProtocol(req.header('git-protocol'));
      const start =
        service === 'upload-pack'
          ? () => uploadPack(deps.git, project.id, { ...input, protocol })
          : () => receivePack(deps.git, project.id, { ...input, protocol, review: (updates) => reviewPush(ctx, project, updates) });
      const result = await streamGit(res, project.id, start, `application/x-git-${service}-result`);
      if (service === 'receive-pack' && result?.updated.length) await announcePush(ctx, project, result.updated);
    };

  const batch: Handler = async (ctx, req, res, target) => {
    const body = await readBatchBody(ctx, req, res);
    const operation = lfsOperation(ctx, body);
    const project = await authorizeLfs(ctx, target.fullPath, operation);
    const answer = await lfsBatch(ctx, project, operation, body, req.header('authorization'));
    res.status(200).type(LFS_MEDIA_TYPE).send(JSON.stringify(answer));
  };

  const download: Handler = async (ctx, _req, res, target) => {
    const project = await authorizeLfs(ctx, target.fullPath, 'download');
    const object = await lfsDownload(ctx, project, target.oid!);
    res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(object.size) });
    pipeline(object.stream, res, () => {});
  };

  const upload: Handler = async (ctx, req, res, target) => {
    const project = await authorizeLfs(ctx, target.fullPath, 'upload');
    await lfsUpload(ctx, project, { oid: target.oid!, size: target.size! }, req);
    res.status(200).type(LFS_MEDIA_TYPE).end();
  };

  function readBatchBody(ctx: Context, req: Request, res: Response): Promise<unknown> {
    return new Promise((resolve, reject) => {
      batchBody(req, res, (error?: unknown) => {
        const tooDeep = (error as { type?: string } | undefined)?.type === TOO_DEEP_TYPE;
        if (error) reject(new LfsError(ctx, 422, tooDeep ? nestedTooDeeply().message : 'The request body is not valid JSON'));
        else resolve(req.body);
      });
    });
  }

  const handlers: Record<string, Handler> = {
    'GET info/refs': infoRefs,
    'POST git-upload-pack': rpc('upload-pack'),
    'POST git-receive-pack': rpc('receive-pack'),
    'POST info/lfs/objects/batch': batch,
    'GET lfs-object': download,
    'PUT lfs-object-sized': upload,
  };

  const router = express.Router();
  router.use(async (req: ContextRequest, res: Response, next: NextFunction) => {
    const withoutSuffix = req.method === 'GET' && INFO_REFS_WITHOUT_SUFFIX.exec(req.path);
    if (withoutSuffix && !withoutSuffix[1].endsWith('.git')) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      res.redirect(301, `/${withoutSuffix[1]}.git/info/refs${query}`);
      return;
    }
    const target = targetOf(req.path);
    if (!target) return next();
    // GitLab refuses HEAD on the advertisement before looking at credentials.
    if (req.method === 'HEAD' && target.action === 'info/refs') {
      res.status(403).end();
      return;
    }
    const handler = handlers[`${req.method} ${target.action}`];
    if (!handler) return next();
    try {
      // Git clients retry credentials as eagerly as API scripts: the same ban applies.
      const authorization = req.header('authorization');
      const ip = req.socket.remoteAddress ?? 'unknown';
      const viewer =
        (await deps.throttle.authenticateBehindBan(ip, Boolean(authorization), () => authenticateBasic(deps, deps.secrets.tokenDigestKey, authorization))) ??
        Viewer.anonymous();
      req.forgegate = createContext(deps, viewer, (req as ContextRequest & { requestId?: string }).requestId);
      await handler(req.forgegate, req, res, target);
    } catch (error) {
      if (res.headersSent) {
        // The status went out with the first bytes: all that is left is to cut the stream.
        deps.log.error({ err: error, requestId: req.forgegate?.requestId }, 'git over HTTP failed mid-response');
        res.destroy();
        return;
      }
      if (!(error instanceof DomainError)) return next(error);
      sendRefusal(res, error);
    }
  });
  return router;
}

const serviceOf = (value: unknown): GitService | null => (value === 'git-upload-pack' ? 'upload-pack' : value === 'git-receive-pack' ? 'receive-pack' : null);

/** A missing credential asks for one (git only sends credentials after a challenge). */
function sendRefusal(res: Response, error: DomainError) {
  if (error instanceof UnauthorizedError) {
    res.status(401).set('WWW-Authenticate', 'Basic realm="GitLab"').type('text/plain').send(ACCESS_DENIED);
  } else if (error instanceof LfsError) {
    res.status(error.status).type(LFS_MEDIA_TYPE).send(JSON.stringify(error.body));
  } else {
    res.status(error.status).type('text/plain').send(error.message);
  }
}

/** The request body as git sent it (gzip-encoded or not), or null once a 415 is answered. */
function requestBody(req: Request, res: Response, contentType: string): { input: Readable; gzip: boolean } | null {
  const encoding = (req.header('content-encoding') ?? 'identity').toLowerCase();
  const gzip = encoding === 'gzip' || encoding === 'x-gzip';
  if (req.header('content-type') !== contentType || (!gzip && encoding !== 'identity')) {
    res.status(415).type('text/plain').send(`Expected a ${contentType} body, plain or gzip-encoded.`);
    return null;
  }
  return { input: req, gzip };
}

/** Waits for the first chunk of output (or its end) before any status is committed. */
function firstChunk(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const settle = (chunk: Buffer | null) => {
      stream.off('data', onData).off('end', onEnd).off('error', onEnd).off('close', onEnd);
      resolve(chunk);
    };
    const onData = (chunk: Buffer) => {
      stream.pause();
      settle(chunk);
    };
    const onEnd = () => settle(null);
    stream.on('data', onData).on('end', onEnd).on('error', onEnd).on('close', onEnd);
  });
}
