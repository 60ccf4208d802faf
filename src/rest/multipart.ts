import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import qs from 'qs';
import { DomainError, ParamError } from '../core/errors.ts';
import { MAX_NESTING } from '../core/input.ts';
import { SpooledUpload } from '../core/upload.ts';
import { nestedTooDeeply } from './edge.ts';

export type MultipartLimits = {
  /** Bytes of all text fields together, as the other body parsers cap a form. */
  fieldBytes: number;
  /** Fields and files, like the form parser's parameter limit. */
  parts: number;
  /** Bytes of one file part (spooled to disk, never held in memory). */
  fileBytes: number;
  /** File parts per request. */
  files: number;
};

const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', 413, { message: '413 Request Entity Too Large' }, 'The request body is too large');
const malformed = (reason: string) => new ParamError(`The request body is not valid multipart/form-data: ${reason}`);
// busboy hands over a part whose Content-Disposition has no name, or an empty one, with an
// undefined name (whatever its typings say): no parameter can be read from it.
const nameless = () => malformed('a part has no name');

/**
 * `multipart/form-data` bodies, as clients send edits and uploads (gitbeaker's `Users.edit`, avatar
 * uploads, GitLab's file parameters such as an import's `file`). The text fields become `req.body`
 * exactly as the same fields sent form-urlencoded would (`assets[links][][name]` nests the same
 * way), so every route that reads a form reads this one. File parts are spooled to
 * DATA_DIR/tmp/uploads and land in `req.body` as a `SpooledUpload` (a route declares one with
 * `param.file()`); the spooled files are removed when the response is done. A malformed body is a
 * 400, one past the caps a 413.
 */
export function multipartBody(dataDir: string, limits: MultipartLimits) {
  const dir = path.join(dataDir, 'tmp', 'uploads');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.body !== undefined || !req.is('multipart/form-data')) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fieldSize: limits.fieldBytes, fileSize: limits.fileBytes, parts: limits.parts, files: limits.files, fieldNameSize: 1024 },
      });
    } catch (error) {
      return next(malformed((error as Error).message));
    }
    const fields = new URLSearchParams();
    const files: Record<string, SpooledUpload> = {};
    const spooled: string[] = [];
    const writes: Promise<void>[] = [];
    let count = 0;
    let fieldBytes = 0;
    let failure: DomainError | null = null;
    let settled = false;
    res.on('close', () => {
      for (const file of spooled) fs.rm(file, { force: true }, () => {});
    });
    const streams: Readable[] = [];
    const fail = (error: DomainError) => {
      failure ??= error;
      // Stop reading: what is left of the body does not matter any more, and the file parts in
      // flight would never see their end.
      req.unpipe(parser);
      req.resume();
      for (const stream of streams) stream.destroy();
      finish();
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      Promise.all(writes).then(() => {
        if (failure) return next(failure);
        try {
          const body = qs.parse(fields.toString(), {
            allowPrototypes: true,
            arrayLimit: Math.max(100, count),
            depth: MAX_NESTING,
            strictDepth: true,
            parameterLimit: limits.parts,
          });
          req.body = { ...body, ...files };
        } catch {
          return next(nestedTooDeeply());
        }
        next();
      }, next);
    };
    parser.on('field', (name, value, info) => {
      if (!name) return fail(nameless());
      if (info.nameTruncated || info.valueTruncated) return fail(tooLarge());
      count++;
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (fieldBytes > limits.fieldBytes) return fail(tooLarge());
      fields.append(name, value);
    });
    parser.on('file', (name, stream, info) => {
      count++;
      if (!name) fail(nameless());
      if (failure) return void stream.resume();
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      streams.push(stream);
      const target = path.join(dir, randomUUID());
      spooled.push(target);
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on('limit', () => fail(tooLarge()));
      writes.push(
        pipeline(stream, fs.createWriteStream(target, { mode: 0o600 })).then(
          () => {
            files[name] = new SpooledUpload(info.filename ?? name, size, target);
          },
          (error: Error) => fail(malformed(error.message)),
        ),
      );
    });
    parser.on('partsLimit', () => fail(tooLarge()));
    parser.on('filesLimit', () => fail(tooLarge()));
    parser.on('error', (error: Error) => fail(malformed(error.message)));
    parser.on('close', finish);
    req.on('error', (error) => fail(malformed(error.message)));
    req.pipe(parser);
  };
}
