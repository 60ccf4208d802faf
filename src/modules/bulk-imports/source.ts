// The source instance as the destination's importer talks to it (GitLab's BulkImports::Clients::HTTP):
// GitLab's REST API v4 with the user's personal access token, only through the SSRF-guarded
// outbound client. A network error or a 5xx is the source being away (retried by the job queue);
// any other unexpected answer is the source refusing (a failure of the relation).
import type { Db } from '../../db/client.ts';
import { OutboundError, sendOutbound, type OutboundResponse } from '../../http/outbound.ts';

/** The source did not answer, or answered 5xx: worth retrying later. */
export class SourceUnavailableError extends Error {
  override readonly name = 'BulkImports::NetworkError';
}

/** The source answered, but not as expected (401, 404, a body that is not what GitLab sends). */
export class SourceRefusedError extends Error {
  override readonly name = 'BulkImports::Error';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const JSON_LIMIT = 8 * 1024 * 1024;

export class SourceClient {
  constructor(
    private readonly db: Db,
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  private url(path: string, query: Record<string, string | number | boolean> = {}) {
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}/api/v4${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
    return url.toString();
  }

  /**
   * One request; `saveTo` streams a 2xx body to that file (bounded by `maxBytes`), so a relation
   * file or a bundle never sits in memory.
   */
  async send(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string | number | boolean> = {},
    { maxBytes = JSON_LIMIT, saveTo }: { maxBytes?: number; saveTo?: string } = {},
  ): Promise<OutboundResponse> {
    let res: OutboundResponse;
    try {
      res = await sendOutbound(this.db, this.url(path, query), {
        method,
        headers: { 'PRIVATE-TOKEN': this.token, Accept: 'application/json' },
        maxResponseBytes: maxBytes,
        timeoutMs: 60_000,
        saveTo,
      });
    } catch (error) {
      if (error instanceof OutboundError && error.reason !== 'network' && error.reason !== 'timeout') throw new SourceRefusedError(0, error.message);
      throw new SourceUnavailableError(`${method} ${path}: ${(error as Error).message}`);
    }
    if (res.status >= 500) throw new SourceUnavailableError(`${method} ${path}: the source answered ${res.status}`);
    if (res.status >= 300) throw new SourceRefusedError(res.status, `${method} ${path}: the source answered ${res.status}`);
    return res;
  }

  async json<T>(path: string, query: Record<string, string | number | boolean> = {}): Promise<T> {
    const res = await this.send('GET', path, query);
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw new SourceRefusedError(res.status, `GET ${path}: the answer is not JSON`);
    }
  }
}

/** A full path as one URL segment, as GitLab's `:id` takes it. */
export const encodedPath = (fullPath: string) => encodeURIComponent(fullPath);
