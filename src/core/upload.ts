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

type WebReader = { read: () => Promise<{ done: boolean; value?: Uint8Array }>; releaseLock: () => void; cancel: () => Promise<void> };
type WebFile = { name: string; size: number; stream: () => { getReader: () => WebReader } };

/** A web stream as a Node stream; Yoga's File is a ponyfill whose stream `Readable.fromWeb` does not accept. */
function nodeStream(web: { getReader: () => WebReader }): Readable {
  const reader = web.getReader();
  return Readable.from(
    (async function* () {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (value) yield Buffer.from(value);
        }
      } finally {
        reader.releaseLock();
      }
    })(),
  );
}
const isWebFile = (value: unknown): value is WebFile =>
  typeof value === 'object' && value !== null && typeof (value as WebFile).stream === 'function' && typeof (value as WebFile).name === 'string';

/** An upload from either source, or null for anything else (a string, a number…). */
export function asUpload(value: unknown): Upload | null {
  if (value instanceof SpooledUpload) return value;
  if (isWebFile(value)) {
    return { filename: value.name, size: value.size, stream: () => nodeStream(value.stream()) };
  }
  return null;
}

/** Reads a (small, already size-checked) upload whole. */
export async function readUpload(upload: Upload): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of upload.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
