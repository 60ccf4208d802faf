import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Gitlab } from '@gitbeaker/rest';

/** The app on an ephemeral 127.0.0.1 port, for clients that need a real URL. */
export async function listen(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A @gitbeaker/rest client for `token` against the listening app. */
export const gitbeaker = (url: string, token: string) => new Gitlab({ host: url, token });
