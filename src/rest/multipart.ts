import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { DomainError, ParamError } from '../core/errors.ts';
import { SpooledUpload } from '../core/upload.ts';

/** The largest file part accepted (GitLab's default maximum import size is unlimited; this bounds the disk). */
export const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

const LIMITS = { files: 4, fields: 100, fieldSize: 1024 * 1024, parts: 110, fileSize: MAX_UPLOAD_BYTES };

/**
 * `multipart/form-data` for the REST facade (GitLab's file parameters): plain fields land in
 * `req.body` as strings, file parts are spooled to DATA_DIR/tmp/uploads (never held in memory)
 * and land in `req.body` as a `SpooledUpload`, which a route declares with `param.file()`. The
 * spooled files are removed when the response is done.
 */
export function multipartBody(dataDir: string) {
  const dir = path.join(dataDir, 'tmp', 'uploads');
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: LIMITS });
    } catch {
      return next(new ParamError('The request body is not valid multipart/form-data'));
    }
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const body: Record<string, unknown> = {};
    const spooled: string[] = [];
    const writes: Promise<void>[] = [];
    let failure: Error | null = null;
    const fail = (error: Error) => {
      failure ??= error;
    };
    res.on('close', () => {
      for (const file of spooled) fs.rm(file, { force: true }, () => {});
    });
    parser.on('field', (name, value) => {
      body[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const target = path.join(dir, randomUUID());
      spooled.push(target);
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on('limit', () => fail(new DomainError('PAYLOAD_TOO_LARGE', 413, { message: '413 Request Entity Too Large' }, 'The file is too large')));
      writes.push(
        pipeline(stream, fs.createWriteStream(target, { mode: 0o600 })).then(
          () => {
            body[name] = new SpooledUpload(info.filename ?? name, size, target);
          },
          (error: Error) => fail(error),
        ),
      );
    });
    parser.on('partsLimit', () => fail(new ParamError('Too many parts in the multipart body')));
    parser.on('filesLimit', () => fail(new ParamError('Too many files in the multipart body')));
    parser.on('fieldsLimit', () => fail(new ParamError('Too many fields in the multipart body')));
    parser.on('error', () => fail(new ParamError('The request body is not valid multipart/form-data')));
    parser.on('close', () => {
      Promise.all(writes).then(() => {
        if (failure) return next(failure);
        req.body = body;
        next();
      }, next);
    });
    req.pipe(parser);
  };
}
