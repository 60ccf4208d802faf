import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.ts';
import { main, runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import { jobDefinitions } from '../src/kernel.ts';
import { startRuntime } from '../src/server.ts';
import { createTestDatabase } from './helpers/app.ts';
import { testTempDir } from './helpers/temp.ts';

const run = promisify(execFile);
const ROOT_TOKEN = 'glpat-bootstrap-0123456789abcdef';

function environment(url: string) {
  const dataDir = testTempDir('forgegate-boot-');
  return { DATA_DIR: dataDir, DATABASE_URL: url, LOG_LEVEL: 'silent', TOKEN_DIGEST_KEY: randomBytes(32).toString('hex') };
}

describe('first start', () => {
  it('creates root with INITIAL_ROOT_TOKEN once, with the documented scopes', async () => {
    const env = { ...environment(await createTestDatabase()), INITIAL_ROOT_TOKEN: ROOT_TOKEN };
    const first = await startRuntime(loadConfig(env), { databaseUrl: env.DATABASE_URL });
    const res = await request(buildApp(first.deps)).get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).expect(200);
    expect(res.body).toMatchObject({ username: 'root', is_admin: true });
    const tokens = await first.deps.db.personalAccessToken.findMany();
    expect(tokens).toHaveLength(1);
    expect(tokens[0].scopes.sort()).toEqual(['admin_mode', 'api', 'read_api', 'read_repository', 'read_user', 'sudo', 'write_repository']);
    await first.close();

    const second = await startRuntime(loadConfig(env), { databaseUrl: env.DATABASE_URL });
    expect(await second.deps.db.user.count()).toBe(1);
    expect(await second.deps.db.personalAccessToken.count()).toBe(1);
    await second.close();
  });
});

describe('CLI', () => {
  it('migrates, creates a user and prints a token that the API accepts (in-process main)', async () => {
    const env = environment(await createTestDatabase());
    const cli = async (...args: string[]) => {
      const lines: string[] = [];
      const status = await main(args, { env, print: (line) => lines.push(line) });
      return { status, stdout: lines.join('\n') };
    };
    expect(await cli('migrate')).toEqual({ status: 0, stdout: 'database is up to date' });
    expect((await cli('create-user', '--username', 'ops', '--name', 'Ops', '--email', 'ops@example.com')).stdout).toMatch(/^created user ops \(id \d+\)$/);
    const created = await cli('create-token', '--username', 'ops', '--name', 'ci', '--scopes', 'read_api');
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^glpat-/);
    await expect(cli('create-token', '--username', 'ops', '--scopes', 'everything')).rejects.toThrow(/unknown scopes: everything/);
    await expect(cli('create-token', '--username', 'nobody')).rejects.toThrow(/no user nobody/);
    const usage = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await cli('unknown-command')).status).toBe(2);
    expect(String(usage.mock.calls[0][0])).toMatch(/^usage: forgegate <command>/);
    usage.mockRestore();

    const runtime = await startRuntime(loadConfig(env), { databaseUrl: env.DATABASE_URL });
    const app = buildApp(runtime.deps);
    expect((await request(app).get('/api/v4/user').set('PRIVATE-TOKEN', token).expect(200)).body.username).toBe('ops');
    expect((await request(app).post('/api/v4/groups').set('PRIVATE-TOKEN', token).send({ name: 'x', path: 'x' }).expect(403)).body.error).toBe(
      'insufficient_scope',
    );
    await runtime.close();
  });

  it("migrate declares every area's job queue, so a server's start finds them as declared and changes nothing", async () => {
    // A database an earlier version migrated: the job tables are there, the queues are not.
    const env = environment(await createTestDatabase());
    const sql = async <T extends pg.QueryResultRow>(text: string) => {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      try {
        return (await client.query<T>(text)).rows;
      } finally {
        await client.end();
      }
    };
    await sql('SELECT pgboss.delete_queue(name) FROM pgboss.queue');
    const queues = () => sql<{ name: string; updated: string }>('SELECT name, updated_on::text AS updated FROM pgboss.queue ORDER BY name');
    expect(await queues()).toEqual([]);

    expect(await main(['migrate'], { env, print: () => {} })).toBe(0);
    const declared = jobDefinitions.flatMap((definitions) => Object.keys(definitions)).sort();
    const installed = await queues();
    expect(installed.map((q) => q.name)).toEqual(declared);
    expect(declared.length).toBeGreaterThanOrEqual(5);

    const runtime = await startRuntime(loadConfig(env), { databaseUrl: env.DATABASE_URL, jobMaintenance: false });
    await runtime.close();
    expect(await queues()).toEqual(installed);
  });

  it('prints a failure as one line on stderr with status 1', async () => {
    const env = environment(await createTestDatabase());
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await runCli(['create-token', '--username', 'nobody'], { env })).toBe(1);
      expect(await runCli(['migrate'], { env: { ...env, TOKEN_DIGEST_KEY: 'short' } })).toBe(1);
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        'error: no user nobody',
        expect.stringMatching(/^Invalid configuration:\n {2}TOKEN_DIGEST_KEY: /),
      ]);
    } finally {
      stderr.mockRestore();
    }
  });

  it('runs as a process: bin/forgegate.mjs migrate (the one spawned smoke test)', async () => {
    const env = environment(await createTestDatabase());
    const { stdout } = await run(process.execPath, ['bin/forgegate.mjs', 'migrate'], { env: { ...env, PATH: process.env.PATH } });
    expect(stdout).toBe('database is up to date\n');
  });
});

describe('embedded PostgreSQL', () => {
  it("fails to start with PostgreSQL's own message, and stops at once once it has exited", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-badconf-'));
    const dir = path.join(parent, 'postgres');
    try {
      const server = await startEmbeddedPostgres({ dir, password: 'badconf-test' });
      await server.stop();
      await server.stop();
      fs.appendFileSync(path.join(dir, 'postgresql.conf'), '\nshared_buffers = lots\n');
      await expect(startEmbeddedPostgres({ dir, password: 'badconf-test' })).rejects.toThrow(/invalid value for parameter "shared_buffers": "lots"/);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('starts inside a folder only its owner may enter (a mktemp -d checkout, /root)', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-private-'));
    expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
    const server = await startEmbeddedPostgres({ dir: path.join(parent, 'data', 'postgres'), password: 'private-test' });
    try {
      // Through the Unix socket in the data directory: a socket connection has no client address.
      expect(await clientAddress(server.url('postgres'))).toBeNull();
    } finally {
      await server.stop();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('connects over 127.0.0.1 when the data directory is too deep for a socket path', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-deep-'));
    const dir = path.join(parent, 'd'.repeat(Math.max(1, 100 - parent.length)), 'postgres');
    const server = await startEmbeddedPostgres({ dir, password: 'deep-test' });
    try {
      expect(new URL(server.url('postgres')).hostname).toBe('127.0.0.1');
      expect(await clientAddress(server.url('postgres'))).toBe('127.0.0.1');
    } finally {
      await server.stop();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

async function clientAddress(url: string): Promise<string | null> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<{ address: string | null }>('SELECT host(inet_client_addr()) AS address')).rows[0].address;
  } finally {
    await client.end();
  }
}
