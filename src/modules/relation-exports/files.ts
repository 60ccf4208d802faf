import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/**
 * Where a user's export of a project lives: DATA_DIR/relation-exports/<project>/<user>/. Files are
 * written beside their final name and renamed into place, so a reader never sees half a file.
 */
export const exportDir = (dataDir: string, projectId: number, userId: number) =>
  path.join(dataDir, 'relation-exports', String(projectId), String(userId));

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

/** The objects of a gzip-compressed NDJSON stream, one at a time (blank lines skipped). */
export async function* readNdjsonGzip(stream: Readable): AsyncGenerator<Record<string, unknown>> {
  const gunzip = createGunzip();
  stream.on('error', (error) => gunzip.destroy(error));
  const lines = createInterface({ input: stream.pipe(gunzip), crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of lines) {
      number++;
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new RelationFileError(`Line ${number} is not valid JSON`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RelationFileError(`Line ${number} is not a JSON object`);
      yield value as Record<string, unknown>;
    }
  } catch (error) {
    if (error instanceof RelationFileError) throw error;
    throw new RelationFileError('The file is not gzip-compressed newline-delimited JSON');
  }
}
