import type { Server } from 'node:http';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { startRuntime } from './server.ts';

const started = performance.now();
let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const runtime = await startRuntime(config);
const { log } = runtime.deps;
const server: Server = buildApp(runtime.deps).listen(config.port, config.host, () => {
  log.info(
    { url: `http://${config.host}:${config.port}`, externalUrl: config.externalUrl, embeddedDatabase: runtime.database.embedded, startupMs: Math.round(performance.now() - started) },
    'forgegate is listening',
  );
});
server.on('error', async (error) => {
  log.fatal({ err: error }, 'cannot listen');
  await runtime.close();
  process.exit(1);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await runtime.close();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
