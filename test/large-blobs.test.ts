// Files far bigger than a request should hold (issue #37): the files API streams them, GraphQL and
// blame read at most GitLab's display size, and streamed reads share a bounded number of slots.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { BLOB_DISPLAY_BYTES } from '../src/modules/repository-files/service.ts';

/** Big enough that any whole-blob copy (bytes, base64, JSON text) shows in RSS, quick to write. */
const SIZE = 32 * 1024 * 1024 + 7;
const LINE = 'forgegate large blob line 0123456789 abcdefghijklmnopqrstuvwxyz\n';

let t: TestApp;
let projectId: number;
let base: string;
let blobId: string;
let content: Buffer;

/** A text file of SIZE bytes; the blob is written with git plumbing into the project's repository. */
function commitBigFile(repository: string): string {
  content = Buffer.alloc(SIZE, LINE);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-big-')), 'big.txt');
  fs.writeFileSync(file, content);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Big',
    GIT_AUTHOR_EMAIL: 'big@example.com',
    GIT_COMMITTER_NAME: 'Big',
    GIT_COMMITTER_EMAIL: 'big@example.com',
  };
  const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: repository, env, input, encoding: 'utf8' }).trim();
  const blob = git(['hash-object', '-w', file]);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const tree = git(['mktree'], `${git(['ls-tree', 'HEAD'])}\n100644 blob ${blob}\tbig.txt\n`);
  git(['update-ref', 'refs/heads/main', git(['commit-tree', tree, '-p', 'HEAD', '-m', 'big file'], '')]);
  return blob;
}

beforeAll(async () => {
  // One streamed read at a time and none waiting: the limit test below needs only two requests.
  t = await createTestApp({ env: { BLOB_READ_MAX_CONCURRENT: '1', BLOB_READ_MAX_QUEUED: '0' } });
  const project = (await t.api('post', '/projects').send({ name: 'Big', initialize_with_readme: true }).expect(201)).body;
  projectId = project.id;
  base = `/projects/${projectId}/repository/files/big.txt`;
  blobId = commitBigFile(t.deps.git.pathFor(projectId));
}, 60_000);
afterAll(() => t.close());

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Peak RSS growth over `run`, sampled while it runs. */
async function peakRssGrowth(run: () => Promise<unknown>): Promise<number> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}

type Streamed = { status: number; headers: http.IncomingHttpHeaders; head: string; bytes: number; digest: string };

/** A GET whose body is hashed as it arrives (only its first 4 KB kept): the client holds no copy. */
function streamedGet(p: string): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.base}/api/v4${p}`, { headers: { 'PRIVATE-TOKEN': t.root.token } }, (res) => {
        const hash = createHash('sha256');
        let head = '';
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          if (head.length < 4096) head += chunk.subarray(0, 4096).toString('latin1');
          hash.update(chunk);
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, head, bytes, digest: hash.digest('hex') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** SHA-256 of `before` + base64(content) + `after`, encoded piece by piece like the server does. */
function expectedJsonDigest(before: string, after: string) {
  const hash = createHash('sha256').update(before);
  const step = 3 * 1024 * 1024;
  for (let i = 0; i < content.length; i += step) hash.update(content.subarray(i, i + step).toString('base64'));
  return hash.update(after).digest('hex');
}

describe('a 32 MB file', () => {
  it('positive control: the RSS sampler sees a 64 MB allocation', async () => {
    let held: Buffer | null = null;
    const growth = await peakRssGrowth(async () => {
      held = Buffer.alloc(64 * 1024 * 1024, 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    expect(held!.length).toBe(64 * 1024 * 1024);
    expect(growth).toBeGreaterThan(48 * 1024 * 1024);
  });

  it('GET file answers the whole content, base64 in JSON, streamed: RSS grows by less than the file', async () => {
    await streamedGet(`${base}?ref=main`); // settles the one-time costs (handles, SHA-256 cache)
    let res!: Streamed;
    const growth = await peakRssGrowth(async () => {
      res = await streamedGet(`${base}?ref=main`);
    });
    expect(res.status).toBe(200);
    // Held whole, the bytes, their base64 and the JSON text around it come to several times SIZE.
    expect(growth).toBeLessThan(SIZE);
    const before = res.head.slice(0, res.head.indexOf('"content":"') + '"content":"'.length);
    const meta = JSON.parse(`${before}"}`);
    expect(meta).toMatchObject({
      file_name: 'big.txt',
      file_path: 'big.txt',
      size: SIZE,
      encoding: 'base64',
      content_sha256: sha256(content),
      blob_id: blobId,
      content: '',
    });
    expect(res.headers['x-gitlab-size']).toBe(String(SIZE));
    expect(Number(res.headers['content-length'])).toBe(res.bytes);
    expect(res.digest).toBe(expectedJsonDigest(before, '"}'));
  }, 60_000);

  it('HEAD file answers its headers without reading it into memory', async () => {
    const res = await t.api('head', `${base}?ref=main`).expect(200);
    expect(res.headers['x-gitlab-size']).toBe(String(SIZE));
    expect(res.headers['x-gitlab-content-sha256']).toBe(sha256(content));
  });

  it('raw stays a stream of the bytes', async () => {
    const res = await streamedGet(`${base}/raw?ref=main`);
    expect([res.status, res.bytes, res.digest]).toEqual([200, SIZE, sha256(content)]);
  }, 60_000);

  it('blame is refused with a 400 that says why, over REST and GraphQL, never a 500', async () => {
    const reason = `The file is over the blame size limit of ${BLOB_DISPLAY_BYTES} bytes; read it through the raw file endpoint`;
    const rest = await t.api('get', `${base}/blame?ref=main`).expect(400);
    expect(rest.body).toEqual({ message: `400 Bad request - ${reason}` });
    const gql = await t.graphql(`{ project(id: ${projectId}) { repository { blobs(paths: ["big.txt"], ref: "main") { nodes { blame { firstLine } } } } } }`);
    expect(gql.body.errors[0].message).toBe(reason);
    // A small file of the same project still has its blame.
    expect((await t.api('get', `/projects/${projectId}/repository/files/README.md/blame?ref=main`).expect(200)).body).toHaveLength(1);
  });

  it("GraphQL's content fields hold its first 10 MiB, as GitLab loads a blob for display", async () => {
    const res = await t.graphql(`{ project(id: ${projectId}) { repository { blobs(paths: ["big.txt"], ref: "main") { nodes { size rawTextBlob } } } } }`);
    const node = res.body.data.project.repository.blobs.nodes[0];
    expect(node.size).toBe(SIZE);
    expect(node.rawTextBlob.length).toBe(BLOB_DISPLAY_BYTES);
    expect(sha256(node.rawTextBlob)).toBe(sha256(content.subarray(0, BLOB_DISPLAY_BYTES)));
    const base64 = await t.graphql(`{ project(id: ${projectId}) { repository { blobs(paths: ["big.txt"], ref: "main") { nodes { base64EncodedBlob } } } } }`);
    expect(base64.body.data.project.repository.blobs.nodes[0].base64EncodedBlob.length).toBe(4 * Math.ceil(BLOB_DISPLAY_BYTES / 3));
  }, 60_000);

  it('streamed reads past BLOB_READ_MAX_CONCURRENT (and its queue) are refused with GitLab 429, then served again', async () => {
    // A raw download whose client stops reading holds the one slot.
    const held = http.get(`${t.base}/api/v4${base}/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': t.root.token } });
    const response = await new Promise<http.IncomingMessage>((resolve) => held.on('response', resolve));
    response.pause();
    expect(response.statusCode).toBe(200);
    expect(t.deps.git.blobReads.running(0)).toBe(1);
    const refused = await t.api('get', `${base}?ref=main`).expect(429);
    expect(refused.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    expect(refused.headers['retry-after']).toBe('10');
    held.destroy();
    await expect.poll(() => t.deps.git.blobReads.running(0), { timeout: 10_000 }).toBe(0);
    expect((await streamedGet(`${base}?ref=main`)).status).toBe(200);
  }, 60_000);
});
