import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const list = (value?: string) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function isAddressOrRange(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const postgresUrl = z.string().refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgresql:// URL');

const millis = (fallback: number) => z.coerce.number().int().min(1).max(86_400_000).default(fallback);
const seconds = (fallback: number) => z.coerce.number().int().min(1).max(31_536_000).default(fallback);
const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
/** `<requests>/<seconds>`, e.g. `3600/3600`; unset means off. */
const throttle = z
  .string()
  .regex(/^\d{1,9}\/\d{1,7}$/, 'must be <requests>/<seconds>, e.g. 3600/3600')
  .transform((v) => {
    const [requests, period] = v.split('/').map(Number);
    return { requests, periodSeconds: Math.max(1, period) };
  })
  .optional();

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  EXTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  INITIAL_ROOT_TOKEN: z.string().min(20, 'must be at least 20 characters').optional(),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  // `development` enables development-only features (the mock CI integration).
  FORGEGATE_ENV: z.enum(['production', 'development']).default('production'),
  // Secrets: generated on first start and kept in DATA_DIR unless given here.
  TOKEN_DIGEST_KEY: z.string().min(32).optional(),
  EMBEDDED_PG_PASSWORD: z.string().min(8).optional(),
  // Background jobs (see README "Background jobs and scale-out").
  JOB_WORKERS_IN_SERVER: z.enum(['true', 'false']).default('true'),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(5),
  JOB_QUEUES: z
    .string()
    .regex(/^[a-z0-9_.,-]+$/, 'must be a comma-separated list of queue names')
    .optional(),
  JOB_WORKER_TAG: z.string().min(1).max(100).default('forgegate'),
  JOB_WORKER_LABELS: z.string().max(500).optional(),
  JOB_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  JOB_HEARTBEAT_SECONDS: z.coerce.number().min(0.2).max(60).default(5),
  JOB_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(3600).default(25),
  // Outgoing e-mail: smtp:// or smtps:// (user and password in the URL); unset keeps mail in the outbox table.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  // Alert intake: requests one alert endpoint accepts per minute, across all processes (then 429).
  ALERT_INTAKE_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(3600),
  // Git over HTTP: git processes at once per repository, and requests that may wait for one.
  GIT_HTTP_MAX_PROCESSES_PER_REPOSITORY: z.coerce.number().int().min(1).max(1000).default(8),
  GIT_HTTP_MAX_QUEUED_PER_REPOSITORY: z.coerce.number().int().min(0).max(100_000).default(32),
  // Who may read /-/metrics (GitLab's monitoring allowlist): addresses or CIDR ranges.
  MONITORING_ALLOWLIST: z
    .string()
    .default('127.0.0.0/8,::1/128')
    .refine((v) => list(v).every(isAddressOrRange), 'must be comma-separated IP addresses or CIDR ranges'),
  // Database timeouts: a stalled or lost database answers 503 instead of hanging requests.
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  DB_CONNECT_TIMEOUT_MS: millis(5_000),
  DB_STATEMENT_TIMEOUT_MS: millis(15_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: millis(60_000),
  // The hot reads as prepared statements (planned once per connection); off behind a PgBouncer in
  // transaction mode that does not track them (before 1.21, or max_prepared_statements = 0).
  DB_PREPARED_STATEMENTS: flag(true),
  EMBEDDED_PG_MAX_RESTARTS: z.coerce.number().int().min(0).max(100).default(3),
  SHUTDOWN_GRACE_MS: millis(10_000),
  GRAPHQL_TIMEOUT_MS: millis(30_000),
  /** How long a process trusts a token lookup; any token or user change drops it at once (0: no cache). */
  AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  ARCHIVE_MAX_CONCURRENT: z.coerce.number().int().min(1).max(256).default(4),
  ARCHIVE_MAX_QUEUED: z.coerce.number().int().min(0).max(10_000).default(16),
  // Reads of blobs too big for one in-process read (raw, file, blame, GraphQL content), streamed by
  // git: at once in this process, and how many may wait for a slot (then 429).
  BLOB_READ_MAX_CONCURRENT: z.coerce.number().int().min(1).max(256).default(4),
  BLOB_READ_MAX_QUEUED: z.coerce.number().int().min(0).max(10_000).default(16),
  MAX_UPLOAD_SIZE_MB: z.coerce.number().int().min(1).max(100_000).default(1024),
  // GitLab's failed-authentication ban: maxretry failures within findtime → banned for bantime.
  AUTH_BAN_ENABLED: flag(true),
  AUTH_BAN_MAX_RETRY: z.coerce.number().int().min(1).max(1_000_000).default(30),
  AUTH_BAN_FIND_TIME_S: seconds(60),
  AUTH_BAN_TIME_S: seconds(3_600),
  // GitLab's API throttles, off by default as on self-managed GitLab.
  RATE_LIMIT_UNAUTHENTICATED_API: throttle,
  RATE_LIMIT_AUTHENTICATED_API: throttle,
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  // Tests only: run the suite against this server instead of an embedded one.
  TEST_DATABASE_URL: postgresUrl.optional(),
  // Objects per file of a batched relation export (GitLab's batch size, 1,000).
  RELATION_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  // The epics feature of groups (GitLab's licensed `epics`); off answers 403 on every epic call.
  EPICS_ENABLED: z.enum(['true', 'false']).default('true'),
});

export type Throttle = { requests: number; periodSeconds: number };

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  externalUrl: string;
  initialRootToken?: string;
  logLevel: (typeof logLevels)[number];
  /** Development mode (FORGEGATE_ENV=development): development-only features are on. */
  development: boolean;
  tokenDigestKey?: string;
  embeddedPgPassword?: string;
  database: { poolSize: number; connectTimeoutMs: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number; preparedStatements: boolean };
  embeddedPgMaxRestarts: number;
  shutdownGraceMs: number;
  graphqlTimeoutMs: number;
  authCacheMs: number;
  archives: { maxConcurrent: number; maxQueued: number };
  /** Streamed reads of large blobs at once in this process, and requests that may wait for one. */
  blobReads: { maxConcurrent: number; maxQueued: number };
  /** Bytes of one uploaded file (multipart file part), spooled to disk. */
  maxUploadBytes: number;
  authBan: { enabled: boolean; maxRetry: number; findTimeSeconds: number; banTimeSeconds: number };
  rateLimits: { unauthenticated?: Throttle; authenticated?: Throttle };
  redisUrl?: string;
  testDatabaseUrl?: string;
  jobs: JobsConfig;
  mail: MailConfig;
  /** Requests one alert endpoint accepts per minute (all processes together). */
  alertIntakeRateLimit: number;
  gitHttp: { maxProcessesPerRepository: number; maxQueuedPerRepository: number };
  /** Addresses and CIDR ranges allowed to read /-/metrics. */
  monitoringAllowlist: string[];
  epicsEnabled: boolean;
  /** Objects per file of a batched relation export. */
  relationExportBatchSize: number;
};

export type MailConfig = {
  /** SMTP server; undefined keeps every message in the outbox table only. */
  smtpUrl?: string;
  from: string;
};

export type JobsConfig = {
  /** Run workers inside the server process (off when separate `forgegate worker` processes do it). */
  workersInServer: boolean;
  concurrency: number;
  /** Queues this process works on; undefined = every declared queue. */
  queues?: string[];
  tag: string;
  labels: string[];
  pollIntervalMs: number;
  heartbeatMs: number;
  shutdownTimeoutMs: number;
};

export class ConfigError extends Error {}

const emptyToUndefined = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));

/** Reads and validates the environment once; every other module takes a Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    externalUrl: (e.EXTERNAL_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    initialRootToken: e.INITIAL_ROOT_TOKEN,
    logLevel: e.LOG_LEVEL,
    development: e.FORGEGATE_ENV === 'development',
    tokenDigestKey: e.TOKEN_DIGEST_KEY,
    embeddedPgPassword: e.EMBEDDED_PG_PASSWORD,
    database: {
      poolSize: e.DB_POOL_SIZE,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      preparedStatements: e.DB_PREPARED_STATEMENTS,
    },
    embeddedPgMaxRestarts: e.EMBEDDED_PG_MAX_RESTARTS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    authCacheMs: e.AUTH_CACHE_MS,
    archives: { maxConcurrent: e.ARCHIVE_MAX_CONCURRENT, maxQueued: e.ARCHIVE_MAX_QUEUED },
    blobReads: { maxConcurrent: e.BLOB_READ_MAX_CONCURRENT, maxQueued: e.BLOB_READ_MAX_QUEUED },
    maxUploadBytes: e.MAX_UPLOAD_SIZE_MB * 1024 * 1024,
    authBan: { enabled: e.AUTH_BAN_ENABLED, maxRetry: e.AUTH_BAN_MAX_RETRY, findTimeSeconds: e.AUTH_BAN_FIND_TIME_S, banTimeSeconds: e.AUTH_BAN_TIME_S },
    rateLimits: { unauthenticated: e.RATE_LIMIT_UNAUTHENTICATED_API, authenticated: e.RATE_LIMIT_AUTHENTICATED_API },
    redisUrl: e.REDIS_URL,
    testDatabaseUrl: e.TEST_DATABASE_URL,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `forgegate@${new URL(e.EXTERNAL_URL ?? 'http://localhost').hostname}` },
    alertIntakeRateLimit: e.ALERT_INTAKE_RATE_LIMIT,
    gitHttp: { maxProcessesPerRepository: e.GIT_HTTP_MAX_PROCESSES_PER_REPOSITORY, maxQueuedPerRepository: e.GIT_HTTP_MAX_QUEUED_PER_REPOSITORY },
    monitoringAllowlist: list(e.MONITORING_ALLOWLIST),
    jobs: {
      workersInServer: e.JOB_WORKERS_IN_SERVER === 'true',
      concurrency: e.JOB_CONCURRENCY,
      queues: e.JOB_QUEUES ? list(e.JOB_QUEUES) : undefined,
      tag: e.JOB_WORKER_TAG,
      labels: list(e.JOB_WORKER_LABELS),
      pollIntervalMs: Math.round(e.JOB_POLL_INTERVAL_SECONDS * 1000),
      heartbeatMs: Math.round(e.JOB_HEARTBEAT_SECONDS * 1000),
      shutdownTimeoutMs: Math.round(e.JOB_SHUTDOWN_TIMEOUT_SECONDS * 1000),
    },
    epicsEnabled: e.EPICS_ENABLED === 'true',
    relationExportBatchSize: e.RELATION_EXPORT_BATCH_SIZE,
  };
}
