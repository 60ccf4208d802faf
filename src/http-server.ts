import http from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

export type HttpServer = {
  server: http.Server;
  /** Requests being answered right now. */
  inFlight: () => number;
  /**
   * Stops accepting connections, lets the requests in flight finish for up to `graceMs`, then
   * closes whatever is left. Resolves when nothing is open any more.
   */
  drain: (graceMs: number) => Promise<void>;
};

/**
 * The listening HTTP server with request draining. `http.Server.close()` would also drop idle
 * keep-alive sockets at once, so a request a client is writing on one at that moment is cut; while
 * draining, every answer says `Connection: close` instead, and idle sockets are closed only when no
 * request is left in flight.
 */
export function startHttpServer(app: http.RequestListener, config: Pick<Config, 'port' | 'host'>, log: Logger, onListening: () => void): HttpServer {
  let inFlight = 0;
  let draining = false;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    res.once('close', () => (inFlight -= 1));
    if (draining) res.setHeader('Connection', 'close');
    app(req, res);
  });
  server.listen(config.port, config.host, onListening);

  async function drain(graceMs: number) {
    draining = true;
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    const deadline = Date.now() + graceMs;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    if (inFlight > 0) log.warn({ inFlight, graceMs }, 'grace period over: closing the connections of unfinished requests');
    else log.info('all requests in flight answered');
    server.closeAllConnections();
    await closed;
  }

  return { server, inFlight: () => inFlight, drain };
}
