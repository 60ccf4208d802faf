import path from 'node:path';
import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgresql:// URL');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  EXTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  INITIAL_ROOT_TOKEN: z.string().min(20, 'must be at least 20 characters').optional(),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  // Secrets: generated on first start and kept in DATA_DIR unless given here.
  TOKEN_DIGEST_KEY: z.string().min(32).optional(),
  EMBEDDED_PG_PASSWORD: z.string().min(8).optional(),
  // Tests only: run the suite against this server instead of an embedded one.
  TEST_DATABASE_URL: postgresUrl.optional(),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  externalUrl: string;
  initialRootToken?: string;
  logLevel: (typeof logLevels)[number];
  tokenDigestKey?: string;
  embeddedPgPassword?: string;
  testDatabaseUrl?: string;
};

export class ConfigError extends Error {}

const emptyToUndefined = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));

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
    tokenDigestKey: e.TOKEN_DIGEST_KEY,
    embeddedPgPassword: e.EMBEDDED_PG_PASSWORD,
    testDatabaseUrl: e.TEST_DATABASE_URL,
  };
}
