import type { NextFunction, Request, Response } from 'express';
import { jsonBytes } from '../http/json-bytes.ts';

/** GitLab's REST answers: exactly this type (no charset; python-gitlab 3 compares it verbatim). */
export const JSON_TYPE = 'application/json';

/** GitLab's Grape answers are never cached by shared caches and always revalidated. */
export const API_CACHE_CONTROL = 'max-age=0, private, must-revalidate';

/**
 * The one writer of REST JSON bodies. Express's `res.json` goes through `res.send`, which appends
 * `; charset=utf-8` to every string body; the serialized JSON is sent as bytes under a type set
 * with Node's own setter, so the type stays exactly as GitLab sends it.
 */
export function writeJson(res: Response, status: number, body: unknown) {
  const bytes = jsonBytes(body);
  // Node's own setter: Express's `res.set` would put the charset back (mime-types' contentType()).
  res.status(status);
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Cache-Control', API_CACHE_CONTROL);
  // JSON has nothing for undefined: nothing to send but the headers.
  if (bytes === undefined) res.end();
  else res.send(bytes);
}

/** `res.json` under /api/v4: `writeJson` with the status set so far. */
function answerJson(this: Response, body: unknown) {
  writeJson(this, this.statusCode, body);
  return this;
}

/**
 * Under /api/v4, every `res.json` (a route's own `respond`, the authentication and error answers)
 * goes through `writeJson`, so no answer there carries Express's charset.
 *
 * One function for every response, not a closure per response: with a closure per response,
 * what each request allocated outlived it and was promoted to the old generation (bench/RESULTS.md, "Figures behind the code").
 */
export function apiJsonAnswers(_req: Request, res: Response, next: NextFunction) {
  res.json = answerJson;
  next();
}
