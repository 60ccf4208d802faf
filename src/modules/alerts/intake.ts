// The intake endpoints under a project's web path. They authenticate by the endpoint's key, not
// by a user, and answer GitLab's bare statuses (empty bodies on errors), so they are plain Express
// handlers around the service rather than REST-facade routes.
import express, { type Request, type Response } from 'express';
import { Viewer } from '../../auth/viewer.ts';
import { createContext } from '../../core/context.ts';
import type { AppDeps } from '../../deps.ts';
import { MAX_PAYLOAD_BYTES } from './payload.ts';
import { receiveAlerts } from './service.ts';

/** Bearer key, Basic with a blank user and the key as password, or the same in the URL (which arrives as Basic). */
export function alertKey(req: Request): string | null {
  const header = req.header('authorization') ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(header);
  if (bearer) return bearer[1].trim();
  const basic = /^Basic\s+(.+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1].trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

export function intakeRouter(deps: AppDeps) {
  const router = express.Router();
  // One byte over the limit is enough to know the payload is too big; the service answers 400.
  const body = express.raw({ type: () => true, limit: MAX_PAYLOAD_BYTES + 1 });
  const handle = (identifier: (req: Request) => string | null) => async (req: Request, res: Response) => {
    const ctx = createContext(deps, Viewer.anonymous(), res.get('X-Request-Id'));
    const params = req.params as Record<string, string | string[]>;
    const fullPath = ([] as string[]).concat(params.full_path).join('/');
    const result = await receiveAlerts(ctx, {
      fullPath,
      identifier: identifier(req),
      key: alertKey(req),
      body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    if (result.body) res.status(result.status).json(result.body);
    else res.status(result.status).end();
  };
  const tooLarge = (error: unknown, _req: Request, res: Response, next: express.NextFunction) => {
    if ((error as { type?: string })?.type === 'entity.too.large') return void res.status(400).end();
    next(error);
  };
  router.post(
    '/{*full_path}/prometheus/alerts/notify{.json}',
    body,
    handle(() => null),
    tooLarge,
  );
  router.post(
    '/{*full_path}/alerts/notify/:name/:identifier{.json}',
    body,
    handle((req) => String(req.params.identifier)),
    tooLarge,
  );
  return router;
}
