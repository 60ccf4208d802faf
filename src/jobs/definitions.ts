import type { Logger } from 'pino';
import type { AppDeps } from '../deps.ts';

/** What a handler learns about the job it runs, besides its data. */
export type JobContext = {
  id: string;
  queue: string;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  /** Retries allowed after the first run; the job is dead when attempt = retryLimit + 1 fails. */
  retryLimit: number;
  deps: AppDeps;
  log: Logger;
};

/**
 * Throw to fail the attempt (it is retried with backoff until its retries run out). `data` is the
 * JSON its queue was sent, whose shape each handler declares: a list of handlers holds them as
 * `JobHandler` (data `never`), which any handler's own data type fits.
 */
export type JobHandler<T = never> = (data: T, job: JobContext) => Promise<void>;

export type QueueDefinition<T = never> = {
  handler: JobHandler<T>;
  /** Retries after the first run (default 3). */
  retryLimit?: number;
  /** Base delay before a retry in seconds (default 1); doubled per retry, with jitter, when retryBackoff. */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** A run that takes longer is failed by the queue's maintenance (default 900 s): covers crashed workers. */
  expireInSeconds?: number;
  /**
   * pg-boss's queue policy for jobs sent with a `singletonKey`: `stately` keeps at most one
   * waiting and one running job per key, `short` one waiting, `singleton` one running (default
   * `standard`: no limit). The database enforces it, so it holds across processes.
   */
  policy?: QueuePolicy;
};

export type QueuePolicy = 'standard' | 'short' | 'singleton' | 'stately';

/** A module's `jobs` entry: queue name → handler, or handler plus retry policy. */
export type JobDefinitions = Record<string, JobHandler | QueueDefinition>;

export type ResolvedQueue = Required<QueueDefinition> & { name: string };

export const QUEUE_DEFAULTS = { retryLimit: 3, retryDelaySeconds: 1, retryBackoff: true, expireInSeconds: 900, policy: 'standard' } as const;

// pg-boss accepts letters, digits, '-', '_', '.' and '/'; we keep to the same set.
const QUEUE_NAME = /^[a-z][a-z0-9_.-]*$/;

export function resolveQueues(definitions: JobDefinitions): ResolvedQueue[] {
  return Object.entries(definitions).map(([name, def]) => {
    if (!QUEUE_NAME.test(name)) throw new Error(`job queue name ${JSON.stringify(name)} must be lower case: letters, digits, '_', '-', '.'`);
    const queue = typeof def === 'function' ? { handler: def } : def;
    return { name, ...QUEUE_DEFAULTS, ...queue };
  });
}
