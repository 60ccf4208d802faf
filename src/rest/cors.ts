import type { NextFunction, Request, Response } from 'express';

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** The credentials and body headers API clients send; a preflight may ask for more (GitLab allows any). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'PRIVATE-TOKEN', 'JOB-TOKEN', 'Sudo', 'X-Requested-With', 'If-Unmodified-Since'];

/** What a page may read of an answer: pagination, file metadata, the request id (GitLab's list). */
const EXPOSED_HEADERS = [
  'Link',
  'X-Total',
  'X-Total-Pages',
  'X-Per-Page',
  'X-Page',
  'X-Next-Page',
  'X-Prev-Page',
  'X-Gitlab-Blob-Id',
  'X-Gitlab-Commit-Id',
  'X-Gitlab-Content-Sha256',
  'X-Gitlab-Encoding',
  'X-Gitlab-File-Name',
  'X-Gitlab-File-Path',
  'X-Gitlab-Last-Commit-Id',
  'X-Gitlab-Ref',
  'X-Gitlab-Size',
  'X-Gitlab-Execute-Filemode',
  'X-Request-Id',
  'ETag',
  'Content-Disposition',
].join(', ');

/** A header name as RFC 9110 spells tokens: nothing else is echoed back. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * GitLab's CORS for `/api/*` (Rack::Cors in its config/application.rb): pages of the instance's own
 * origin get their origin back with credentials; every other origin gets `*` and never credentials,
 * so a foreign page can call the API with a token it holds but never ride on a browser's session.
 * Preflights are answered here, before authentication (they carry no credentials). An Origin is
 * never reflected together with `Access-Control-Allow-Credentials` unless it is the instance's.
 */
export function apiCors(externalUrl: string) {
  const ownOrigin = new URL(externalUrl).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.header('origin');
    if (origin) {
      if (origin === ownOrigin) {
        res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' }).vary('Origin');
      } else {
        res.set('Access-Control-Allow-Origin', '*');
      }
      res.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS') return next();
    const requested = (req.header('access-control-request-headers') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => HEADER_NAME.test(h) && !ALLOWED_HEADERS.some((a) => a.toLowerCase() === h.toLowerCase()));
    res.set({
      Allow: METHODS,
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': [...ALLOWED_HEADERS, ...requested].join(', '),
      'Access-Control-Max-Age': '7200',
      'Content-Length': '0',
    });
    res.status(204).end();
  };
}
