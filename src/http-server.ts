import http from 'node:http';
import net from 'node:net';
import type { Express } from 'express';
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

/** A request listener, and where it is an Express app, the prototypes it gives its requests and responses. */
export type AppListener = http.RequestListener & Partial<Pick<Express, 'request' | 'response'>>;

/**
 * The HTTP server of an app. An Express app moves every request and response onto its own
 * prototypes (`Object.setPrototypeOf` in `app.handle`), and every object whose prototype changes
 * after it was built is slower to read for the code after (Node's header and socket code,
 * Express's, ours). This server builds them on those prototypes from the start, so the call
 * changes nothing: a third of the CPU per request (bench/RESULTS.md, "Figures behind the code").
 */
export function createAppServer(app: AppListener, listener: http.RequestListener = app): http.Server {
  if (!app.request || !app.response) return http.createServer(listener);
  return http.createServer(
    { IncomingMessage: bornWith(http.IncomingMessage, app.request), ServerResponse: bornWith(http.ServerResponse, app.response) },
    listener,
  );
}

/** Node's message class, with instances born on `prototype` (which must inherit from the class's). */
function bornWith<C extends typeof http.IncomingMessage | typeof http.ServerResponse>(base: C, prototype: object): C {
  // Node's message classes are constructor functions: called on the new object, they set it up.
  function Message(this: object, ...args: unknown[]) {
    (base as unknown as (...a: unknown[]) => void).apply(this, args);
  }
  Message.prototype = prototype;
  return Message as unknown as C;
}

/**
 * The listening HTTP server with request draining. `http.Server.close()` would also drop idle
 * keep-alive sockets at once, so a request a client is writing on one at that moment is cut; while
 * draining, every answer says `Connection: close` instead, and idle sockets are closed only when no
 * request is left in flight.
 */
export function startHttpServer(app: AppListener, config: Pick<Config, 'port' | 'host'>, log: Logger, onListening: () => void): HttpServer {
  let inFlight = 0;
  let draining = false;
  const server = createAppServer(app, (req, res) => {
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
