import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/**
 * Where a user's export of a project lives: DATA_DIR/relation-exports/<project>/<user>/; of a
 * group: DATA_DIR/relation-exports/groups/<group>/<user>/. Files are written beside their final
 * name and renamed into place, so a reader never sees half a file.
 */
export function exportDir(dataDir: string, portable: { kind: 'project' | 'group'; id: number }, userId: number) {
  const base = path.join(dataDir, 'relation-exports', ...(portable.kind === 'group' ? ['groups'] : []));
  return path.join(base, String(portable.id), String(userId));
}

/** `labels.ndjson.gz`, `repository_bundle.bundle`; a batch: `labels/batch_3.ndjson.gz`. */
export function exportFilePath(dir: string, relation: string, extension: string, batchNumber?: number) {
  return batchNumber === undefined ? path.join(dir, `${relation}.${extension}`) : path.join(dir, relation, `batch_${batchNumber}.${extension}`);
}

/**
 * A gzip-compressed newline-delimited JSON file written one object at a time, waiting for the disk
 * when the compressor's buffer is full: memory stays flat however many objects go through.
 */
export class NdjsonGzipWriter {
  private readonly gzip = createGzip();
  private readonly done: Promise<void>;
  private readonly temporary: string;
  count = 0;

  constructor(private readonly target: string) {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    // Unique: a superseded job may still be writing the same file when its successor starts.
    this.temporary = `${target}.${randomUUID()}.tmp`;
    this.done = pipeline(this.gzip, fs.createWriteStream(this.temporary, { mode: 0o600 }));
    // The pipeline reports a failure through `done`; this keeps it from being unhandled meanwhile.
    this.done.catch(() => {});
  }

  async write(object: unknown) {
    this.count++;
    if (!this.gzip.write(`${JSON.stringify(object)}\n`)) await Promise.race([once(this.gzip, 'drain'), this.done]);
  }

  /** Finishes the file and moves it to its name. */
  async close() {
    this.gzip.end();
    await this.done;
    await fsp.rename(this.temporary, this.target);
  }

  async abort() {
    this.gzip.destroy();
    await this.done.catch(() => {});
    await fsp.rm(this.temporary, { force: true });
  }
}

export class RelationFileError extends Error {}

/** What one relation file may cost, as the instance settings say (bytes, and rows of any kind). */
export type NdjsonLimits = { decompressedBytes: number; rowBytes: number; rows: number };

const NEWLINE = 0x0a;
const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/**
 * The rows of a decompressed stream, as bytes, each counted against the limits while it is read:
 * the first row or byte past a limit stops the reading (the caller's loop ends, which destroys the
 * stream), so a file that decompresses to far more than it weighs costs no more than the limits.
 */
async function* boundedRows(decompressed: Readable, limits: NdjsonLimits): AsyncGenerator<Buffer> {
  let total = 0;
  let rows = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const next = () => {
    if (++rows > limits.rows) throw new RelationFileError(`The file has more than ${limits.rows} rows`);
  };
  for await (const chunk of decompressed as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limits.decompressedBytes) throw new RelationFileError(`The file decompresses to more than ${mib(limits.decompressedBytes)}`);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      next();
      if (pendingBytes + end - start > limits.rowBytes) throw new RelationFileError(`Line ${rows} is larger than ${mib(limits.rowBytes)}`);
      yield pending.length ? Buffer.concat([...pending, chunk.subarray(start, end)]) : chunk.subarray(start, end);
      pending = [];
      pendingBytes = 0;
      start = end + 1;
    }
    if (start === chunk.length) continue;
    pendingBytes += chunk.length - start;
    if (pendingBytes > limits.rowBytes) throw new RelationFileError(`Line ${rows + 1} is larger than ${mib(limits.rowBytes)}`);
    pending.push(chunk.subarray(start));
  }
  if (!pendingBytes) return;
  next();
  yield Buffer.concat(pending);
}

/** One object of a relation file, the line it was read from and its bytes there. */
export type NdjsonRecord = { line: number; bytes: number; record: Record<string, unknown> };

/** The objects of a gzip-compressed NDJSON stream, one at a time (blank lines skipped), within `limits`. */
export async function* readNdjsonGzip(stream: Readable, limits: NdjsonLimits): AsyncGenerator<NdjsonRecord> {
  const gunzip = createGunzip();
  stream.on('error', (error) => gunzip.destroy(error));
  stream.pipe(gunzip);
  let line = 0;
  try {
    for await (const row of boundedRows(gunzip, limits)) {
      line++;
      const text = row.toString('utf8');
      if (!text.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new RelationFileError(`Line ${line} is not valid JSON`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RelationFileError(`Line ${line} is not a JSON object`);
      yield { line, bytes: row.length, record: value as Record<string, unknown> };
    }
  } catch (error) {
    if (error instanceof RelationFileError) throw error;
    throw new RelationFileError('The file is not gzip-compressed newline-delimited JSON');
  } finally {
    // Stops the upload's reading too when the import ends early (a limit, a bad line, a failed chunk).
    stream.unpipe(gunzip);
    stream.destroy();
    gunzip.destroy();
  }
}
