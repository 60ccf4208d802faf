import fs from 'node:fs';
import { Readable } from 'node:stream';

/**
 * A file a client uploaded, whichever interface it came through: a REST multipart part spooled to
 * disk (`src/rest/multipart.ts`) or a GraphQL multipart request's `File` (Yoga). Use cases read it
 * as a stream, so its size never becomes memory.
 */
export type Upload = {
  filename: string;
  size: number;
  stream: () => Readable;
};

/** What the REST multipart parser puts in the request's body for a file part. */
export class SpooledUpload implements Upload {
  constructor(
    readonly filename: string,
    readonly size: number,
    readonly path: string,
  ) {}

  stream() {
    return fs.createReadStream(this.path);
  }
}

type WebFile = { name: string; size: number; stream: () => ReadableStream };
const isWebFile = (value: unknown): value is WebFile =>
  typeof value === 'object' && value !== null && typeof (value as WebFile).stream === 'function' && typeof (value as WebFile).name === 'string';

/** An upload from either source, or null for anything else (a string, a number…). */
export function asUpload(value: unknown): Upload | null {
  if (value instanceof SpooledUpload) return value;
  if (isWebFile(value)) {
    return { filename: value.name, size: value.size, stream: () => Readable.fromWeb(value.stream() as import('node:stream/web').ReadableStream) };
  }
  return null;
}

/** Reads a (small, already size-checked) upload whole. */
export async function readUpload(upload: Upload): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of upload.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
