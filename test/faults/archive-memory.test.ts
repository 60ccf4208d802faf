// Archives stream: ten archives of a 50 MB repository downloading at once must not grow the
// server's memory by anything like their size (the old in-memory build took 2.3 GB for 20 of 70 MB).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ArchiveQueueFullError } from '../../src/git/archive.ts';
import { GitStore } from '../../src/git/store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const MB = 1024 * 1024;
const BIG_FILES = 10;
const DOWNLOADS = 10;

let t: TestApp;
let port: number;
let projectId: number;

/**
 * 50 MB of incompressible blobs on main, then one small commit per branch b0..b9 (ten distinct
 * archives). The fast-import stream goes through a file, 5 MB at a time, so building it does not
 * itself raise this process's memory before the measurement.
 */
function fillRepository(dir: string) {
  const parent = execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: dir, encoding: 'utf8' }).trim();
  const streamFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-import-')), 'stream');
  const fd = fs.openSync(streamFile, 'w');
  fs.writeSync(fd, `commit refs/heads/main\ncommitter T <t@example.com> 1700000000 +0000\ndata 3\nbig\nfrom ${parent}\n`);
  for (let i = 0; i < BIG_FILES; i++) {
    fs.writeSync(fd, `M 100644 inline big/f${i}.bin\ndata ${5 * MB}\n`);
    fs.writeSync(fd, randomBytes(5 * MB));
    fs.writeSync(fd, '\n');
  }
  for (let b = 0; b < DOWNLOADS; b++) {
    fs.writeSync(
      fd,
      `commit refs/heads/b${b}\ncommitter T <t@example.com> 1700000000 +0000\ndata 2\nb\nfrom refs/heads/main\nM 100644 inline n${b}.txt\ndata 2\n${b}\n\n`,
    );
  }
  fs.closeSync(fd);
  const input = fs.openSync(streamFile, 'r');
  const result = spawnSync('git', ['fast-import', '--quiet'], { cwd: dir, stdio: [input, 'ignore', 'pipe'] });
  fs.closeSync(input);
  fs.rmSync(path.dirname(streamFile), { recursive: true, force: true });
  if (result.status !== 0) throw new Error(`fast-import failed: ${result.stderr}`);
}

function download(
  urlPath: string,
  opts: { read?: boolean } = {},
): { done: Promise<{ status: number; bytes: number; body: string; headers: http.IncomingHttpHeaders }>; request: http.ClientRequest } {
  let request!: http.ClientRequest;
  const done = new Promise<{ status: number; bytes: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    request = http.get({ host: '127.0.0.1', port, path: urlPath, headers: { 'PRIVATE-TOKEN': t.root.token } }, (res) => {
      let bytes = 0;
      let body = '';
      if (opts.read === false) return resolve({ status: res.statusCode!, bytes: 0, body: '', headers: res.headers });
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (body.length < 500) body += c.toString('latin1').slice(0, 500);
      });
      res.on('end', () => resolve({ status: res.statusCode!, bytes, body, headers: res.headers }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
  return { done, request };
}

beforeAll(async () => {
  t = await createTestApp({ env: { ARCHIVE_MAX_CONCURRENT: String(DOWNLOADS), ARCHIVE_MAX_QUEUED: '10' } });
  const group = (await t.api('post', '/groups').send({ name: 'Big', path: 'big' }).expect(201)).body;
  projectId = (await t.api('post', '/projects').send({ name: 'Big', namespace_id: group.id, initialize_with_readme: true }).expect(201)).body.id;
  fillRepository(t.deps.git.pathFor(projectId));
  port = Number(new URL(t.base).port);
});

afterAll(async () => {
  await t.close();
});

describe('streamed archives', () => {
  it(`keeps memory flat while ${DOWNLOADS} archives of a 50 MB repository download at once, then serves them from the cache`, async () => {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const urls = Array.from({ length: DOWNLOADS }, (_, b) => `/api/v4/projects/${projectId}/repository/archive.tar?sha=b${b}`);
    const first = await Promise.all(urls.map((u) => download(u).done));
    clearInterval(sampler);
    const growthMb = (peak - baseline) / MB;
    console.log(
      `archives: ${DOWNLOADS} concurrent downloads of ${(first[0].bytes / MB).toFixed(1)} MB each; RSS ${(baseline / MB).toFixed(0)} MB before, peak ${(peak / MB).toFixed(0)} MB (+${growthMb.toFixed(0)} MB)`,
    );
    for (const answer of first) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/octet-stream'); // as GitLab's Workhorse sends a tar
      expect(answer.bytes).toBeGreaterThan(50 * MB);
    }
    // Buffered, ten archives are more than 500 MB; streamed, the growth is a few buffers per download.
    expect(growthMb).toBeLessThan(150);

    // Cached per commit under DATA_DIR: the same bytes again, with a length, from a file.
    const cacheDir = path.join(t.config.dataDir, 'archives', String(projectId));
    const cachedArchives = () => fs.readdirSync(cacheDir, { recursive: true }).filter((f) => String(f).endsWith('.tar'));
    // An archive enters the cache when git archive has exited with success, which can come just
    // after its last byte reached the client.
    const cached = await vi.waitFor(
      () => {
        const files = cachedArchives();
        expect(files).toHaveLength(DOWNLOADS);
        return files;
      },
      { timeout: 10_000, interval: 50 },
    );
    const again = await download(urls[3]).done;
    expect(again.headers['content-length']).toBe(String(first[3].bytes));
    expect(again.bytes).toBe(first[3].bytes);
    const listings = cached.map((f) => execFileSync('tar', ['-tf', path.join(cacheDir, String(f))], { encoding: 'utf8' }));
    const b3 = listings.find((l) => /^big-b3-[0-9a-f]{40}\//m.test(l));
    expect(b3).toMatch(/^big-b3-[0-9a-f]{40}\/big\/f9\.bin$/m);
    expect(b3).toMatch(/^big-b3-[0-9a-f]{40}\/n3\.txt$/m);
    expect(fs.statSync(path.join(cacheDir, String(cached[0]))).mode & 0o077).toBe(0);

    // Positive control: the same sampler sees what holding the ten archives in memory costs.
    const before = process.memoryUsage().rss;
    let held = before;
    const control = setInterval(() => (held = Math.max(held, process.memoryUsage().rss)), 10);
    const buffers = await Promise.all(cached.map((f) => fs.promises.readFile(path.join(cacheDir, String(f)))));
    held = Math.max(held, process.memoryUsage().rss);
    clearInterval(control);
    console.log(`archives, buffered for comparison: +${((held - before) / MB).toFixed(0)} MB for ${buffers.length} archives`);
    expect((held - before) / MB).toBeGreaterThan(400);
  });

  it('archives only a subdirectory with `path`, named as GitLab names it', async () => {
    const answer = await download(`/api/v4/projects/${projectId}/repository/archive.tar?sha=b1&path=big`).done;
    expect(answer.status).toBe(200);
    expect(answer.headers['content-disposition']).toMatch(/big-b1-[0-9a-f]{40}-big\.tar/);
    const missing = await download(`/api/v4/projects/${projectId}/repository/archive.tar?sha=b1&path=nope`).done;
    expect(missing.status).toBe(404);
    const outside = await download(`/api/v4/projects/${projectId}/repository/archive.tar?sha=b1&path=..%2F..`).done;
    expect(outside.status).toBe(400);
  });

  it('caps concurrent builds: past the slots and the queue, 429 with Retry-After; a slot frees when a download ends', async () => {
    const store = new GitStore(t.deps.git.root, { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-archives-')), maxConcurrent: 1, maxQueued: 0 });
    const capped = http.createServer(buildApp({ ...t.deps, git: store }));
    await new Promise<void>((resolve) => capped.listen(0, '127.0.0.1', resolve));
    const cappedPort = (capped.address() as AddressInfo).port;
    const get = (b: number, read = true) => {
      const saved = port;
      port = cappedPort;
      try {
        return download(`/api/v4/projects/${projectId}/repository/archive.tar?sha=b${b}`, { read });
      } finally {
        port = saved;
      }
    };
    try {
      // The first download is not read: git blocks on the full pipe and keeps its slot.
      const holding = get(0, false);
      expect((await holding.done).status).toBe(200);
      const refused = await get(1).done;
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      expect(JSON.parse(refused.body)).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
      await expect(
        store.archives.open(projectId, t.deps.git.pathFor(projectId), { commitId: 'a'.repeat(40), format: 'tar', prefix: 'x' }),
      ).rejects.toBeInstanceOf(ArchiveQueueFullError);
      holding.request.destroy();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await get(2).done).status;
      }
      expect(status).toBe(200);
    } finally {
      capped.closeAllConnections();
      await new Promise((resolve) => capped.close(resolve));
    }
  });
});
