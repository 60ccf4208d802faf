import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { gitEnv } from './run.ts';

/** GitLab's archive formats, in the order release sources list them. */
export const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

/** Every suffix GitLab's archive routes accept, and the format each one means (its archive_formats_regex). */
export const ARCHIVE_SUFFIXES = {
  zip: 'zip',
  tar: 'tar',
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
} as const satisfies Record<string, ArchiveFormat>;
export type ArchiveSuffix = keyof typeof ARCHIVE_SUFFIXES;

/** Workhorse's archive headers: zip is typed, every tar is `application/octet-stream`. */
export const archiveContentType = (format: ArchiveFormat) => (format === 'zip' ? 'application/zip' : 'application/octet-stream');

/** The suffix a file name ends with, longest first (`x.tar.gz` is tar.gz, not gz). */
export function suffixOfFileName(fileName: string): ArchiveSuffix | null {
  const suffixes = Object.keys(ARCHIVE_SUFFIXES) as ArchiveSuffix[];
  return suffixes.sort((a, b) => b.length - a.length).find((s) => fileName.endsWith(`.${s}`)) ?? null;
}

export type ArchiveSpec = {
  commitId: string;
  format: ArchiveFormat;
  /** Directory every path of the archive is under. */
  prefix: string;
  /** Only this subdirectory or file of the tree (GitLab's `path`); validated by the caller. */
  path?: string | null;
};

/** A build could not start: too many archives are being built and the queue is full. */
export class ArchiveQueueFullError extends Error {}

/** An archive to send: its bytes as a stream and, when it came from the cache, its size. */
export type ArchiveStream = { stream: Readable; size?: number };

/**
 * `git archive` of a commit, every path under `prefix/`. git compresses tar.gz itself; tar.bz2 is
 * declared as a tar filter through `-c`, so no config file is involved. The pathspec is literal.
 */
function spawnArchive(dir: string, spec: ArchiveSpec) {
  if (!/^[0-9a-f]{40}$/.test(spec.commitId)) throw new Error('archive needs a full commit id');
  const args = ['-c', 'tar.tar.bz2.command=bzip2 -c', '--literal-pathspecs', 'archive', `--format=${spec.format}`, `--prefix=${spec.prefix}/`, spec.commitId];
  if (spec.path) args.push('--', spec.path);
  return spawn('git', args, { cwd: dir, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Bounded concurrency with a bounded queue: past both, `acquire` refuses at once. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly maxQueued: number,
  ) {}

  async acquire(): Promise<() => void> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueued) throw new ArchiveQueueFullError('too many archives are being built');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}

/**
 * Archives as GitLab (Workhorse) serves them: built by `git archive` and streamed to the client as
 * they are produced, never held in memory; written alongside into a cache under DATA_DIR
 * (`archives/<project>/<commit>/…`), so the next download of the same commit, format and path is a
 * file read. At most `maxConcurrent` builds run in this process and `maxQueued` wait; past that,
 * ArchiveQueueFullError (a 429).
 */
export class ArchiveStore {
  private readonly slots: Slots;

  constructor(
    readonly root: string,
    limits: { maxConcurrent: number; maxQueued: number },
  ) {
    this.slots = new Slots(limits.maxConcurrent, limits.maxQueued);
  }

  private fileFor(projectId: number, spec: ArchiveSpec) {
    const key = createHash('sha256')
      .update(JSON.stringify([spec.prefix, spec.path ?? '']))
      .digest('hex')
      .slice(0, 32);
    return path.join(this.root, String(projectId), spec.commitId, `${key}.${spec.format}`);
  }

  private cached(file: string): ArchiveStream | null {
    try {
      const fd = fs.openSync(file, 'r');
      return { stream: fs.createReadStream('', { fd }), size: fs.fstatSync(fd).size };
    } catch {
      return null;
    }
  }

  async open(projectId: number, repositoryDir: string, spec: ArchiveSpec): Promise<ArchiveStream> {
    const file = this.fileFor(projectId, spec);
    const hit = this.cached(file);
    if (hit) return hit;
    const release = await this.slots.acquire();
    // Another request may have built it while this one waited for a slot.
    const built = this.cached(file);
    if (built) {
      release();
      return built;
    }
    try {
      return { stream: this.build(repositoryDir, spec, file, release) };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Removes the cached archives of a project (its repository is gone). */
  async remove(projectId: number) {
    await fs.promises.rm(path.join(this.root, String(projectId)), { recursive: true, force: true });
  }

  /**
   * Streams `git archive` output to the returned stream and to a temporary file at once, pausing
   * git while either side is behind; the file is renamed into the cache only when git succeeded.
   * A client that goes away stops the build.
   */
  private build(repositoryDir: string, spec: ArchiveSpec, file: string, release: () => void): Readable {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    const out = new PassThrough();
    const child = spawnArchive(repositoryDir, spec);
    const stderr: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    // A cache that cannot be written (disk full) only costs the cache, not the download.
    let cache: fs.WriteStream | null = fs.createWriteStream(partial, { mode: 0o600 });
    const dropCache = () => {
      const dropped = cache;
      cache = null;
      // Whoever waits for this file to drain must not wait forever.
      dropped?.emit('drain');
      dropped?.destroy();
      fs.rm(partial, { force: true }, () => {});
    };
    cache.on('error', dropCache);
    let finished = false;
    const fail = (error: Error) => {
      if (finished) return;
      finished = true;
      child.kill('SIGKILL');
      dropCache();
      release();
      out.destroy(error);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (finished) return;
      const waits: NodeJS.EventEmitter[] = [];
      if (!out.write(chunk)) waits.push(out);
      if (cache && !cache.write(chunk)) waits.push(cache);
      if (!waits.length) return;
      child.stdout.pause();
      let pending = waits.length;
      for (const stream of waits) stream.once('drain', () => --pending === 0 && child.stdout.resume());
    });
    child.on('error', fail);
    out.on('close', () => fail(new Error('client went away')));
    child.on('close', (code) => {
      if (finished) return;
      if (code !== 0) return fail(new Error(`git archive failed (${code}): ${Buffer.concat(stderr).toString('utf8').trim()}`));
      finished = true;
      release();
      out.end();
      const done = cache;
      done?.end(() => fs.rename(partial, file, () => {}));
    });
    return out;
  }
}
