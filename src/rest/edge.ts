import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ParamError } from '../core/errors.ts';
import { findUnstorableText, jsonNestedDeeperThan, MAX_NESTING } from '../core/input.ts';

/** GitLab's answer to a JSON body or form nested past its depth limit. */
export const nestedTooDeeply = () => new ParamError('Parameters nested too deeply');

/** The body parsers' error type for a JSON body refused by `refuseDeepJson`. */
export const TOO_DEEP_TYPE = 'entity.nested.too.deeply';

/**
 * The JSON body parser's `verify`: a body nested deeper than GitLab allows is refused from its
 * bytes, before it is parsed, so neither the parser nor anything that walks the parsed value
 * meets the depth. A plain error carrying status and type, as the body parser passes them on.
 */
export function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, body: Buffer) {
  if (jsonNestedDeeperThan(body, MAX_NESTING)) throw Object.assign(new Error('Parameters nested too deeply'), { status: 400, type: TOO_DEEP_TYPE });
}

const REPEATED_SLASHES = /\/{2,}/g;

/**
 * GitLab's front proxy (nginx's merge_slashes) merges repeated slashes in a path before GitLab
 * routes it, and clients rely on it: python-gitlab sets and deletes every feature flag at
 * `/api/v4/features//<name>`. Only the path is merged; the query string is left as sent.
 */
export function mergeSlashes(req: IncomingMessage, _res: ServerResponse, next: () => void) {
  const url = req.url ?? '';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (path.includes('//')) req.url = path.replace(REPEATED_SLASHES, '/') + (queryAt < 0 ? '' : url.slice(queryAt));
  next();
}

/**
 * The request edge, ahead of authentication and every route: the one check for text HTTP input
 * cannot store (path, query, parsed body; nested values and keys too): a NUL byte, or an unpaired
 * surrogate from a JSON `\ud800` escape. PostgreSQL cannot store either as sent and git cuts
 * commit messages at NUL, so GitLab refuses such requests with 400. GraphQL variables get the same
 * rule in the operation checks.
 */
export function rejectUnstorableText(req: Request, _res: Response, next: NextFunction) {
  const found = findUnstorableText({ ...(req.query as object), ...(req.body as object | undefined) });
  if (found) return next(new ParamError(`${found.name} ${found.problem}`));
  if (/%00/i.test(req.path)) return next(new ParamError('path contains a null byte'));
  next();
}
