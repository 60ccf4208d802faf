import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import qs from 'qs';
import { DomainError, ParamError } from '../core/errors.ts';

export type MultipartLimits = {
  /** Bytes of the whole form (fields and files together), as the other body parsers cap it. */
  bytes: number;
  /** Fields and files, like the form parser's parameter limit. */
  parts: number;
};

const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', 413, { message: '413 Request Entity Too Large' }, 'The request body is too large');
const malformed = (reason: string) => new ParamError(`The request body is not valid multipart/form-data: ${reason}`);

/**
 * `multipart/form-data` bodies, as clients send edits and uploads (gitbeaker's `Users.edit`, avatar
 * and file uploads): the text fields become `req.body` exactly as the same fields sent
 * form-urlencoded would (`assets[links][][name]` nests the same way), so every route that reads a
 * form reads this one. File parts are counted against the size cap and dropped: no route stores
 * an upload. A malformed body is a 400, one past the caps a 413.
 */
export function multipartForm(limits: MultipartLimits) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.body !== undefined || !req.is('multipart/form-data')) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: limits.bytes, fileSize: limits.bytes, parts: limits.parts, fieldNameSize: 1024 } });
    } catch (error) {
      return next(malformed((error as Error).message));
    }
    const fields = new URLSearchParams();
    let count = 0;
    let bytes = 0;
    let settled = false;
    const finish = (error?: DomainError) => {
      if (settled) return;
      settled = true;
      if (error) {
        req.unpipe(parser);
        req.resume();
        return next(error);
      }
      try {
        req.body = qs.parse(fields.toString(), { allowPrototypes: true, arrayLimit: Math.max(100, count), depth: 32, strictDepth: true, parameterLimit: limits.parts });
      } catch {
        return next(malformed('the fields are nested too deeply'));
      }
      next();
    };
    const counted = (n: number) => {
      bytes += n;
      if (bytes > limits.bytes) finish(tooLarge());
    };
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) return finish(tooLarge());
      count++;
      counted(Buffer.byteLength(name) + Buffer.byteLength(value));
      fields.append(name, value);
    });
    parser.on('file', (_name, stream) => {
      count++;
      stream.on('data', (chunk: Buffer) => counted(chunk.length));
      stream.on('limit', () => finish(tooLarge()));
      stream.resume();
    });
    parser.on('partsLimit', () => finish(tooLarge()));
    parser.on('error', (error: Error) => finish(malformed(error.message)));
    parser.on('close', () => finish());
    req.on('error', (error) => finish(malformed(error.message)));
    req.pipe(parser);
  };
}
