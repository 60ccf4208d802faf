import type { NextFunction, Request, Response } from 'express';
import { ParamError } from '../core/errors.ts';
import { findNulByte } from '../core/input.ts';

/**
 * The request edge, ahead of authentication and every route: the one NUL-byte check for HTTP
 * input (path, query, parsed body; nested values too). PostgreSQL cannot store NUL in text and git
 * cuts commit messages at it, so GitLab refuses such requests with 400. GraphQL variables and
 * literals get the same rule in the operation checks.
 */
export function rejectNulBytes(req: Request, _res: Response, next: NextFunction) {
  const name = findNulByte({ ...(req.query as object), ...(req.body as object | undefined) }) ?? (/%00/i.test(req.path) ? 'path' : null);
  if (name) return next(new ParamError(`${name} contains a null byte`));
  next();
}
