/** A unique-index violation (Prisma P2002), e.g. two concurrent creates of the same record. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === 'P2002';
}

// Driver adapter error kinds that mean "the server is not there or not answering".
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// PostgreSQL SQLSTATEs of the same family: statement timeout or lock timeout (57014, 55P03),
// shutdown and crash (57P01-57P03), connection exceptions (08xxx), too many connections (53300).
const UNAVAILABLE_STATES = /^(57014|55P03|57P0[1-3]|08...|53300)$/;
// node-postgres and pg-pool raise these without a code.
const UNAVAILABLE_MESSAGES =
  /Query read timeout|Connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode)|timeout exceeded when trying to connect|connection error and is not queryable|Connection terminated unexpectedly|ECONNREFUSED|ECONNRESET/;

type Inspectable = {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
};

/**
 * True when an error (from Prisma, the driver adapter, node-postgres, or wrapped by GraphQL) says
 * the database is unreachable, stalled past a timeout, or restarting — a 503, not a bug.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 6) return false;
  const e = error as Inspectable;
  if (e.code === 'P1001' || e.code === 'P1002' || e.code === 'P1017' || e.code === 'P2024') return true;
  if (typeof e.kind === 'string' && UNAVAILABLE_KINDS.has(e.kind)) return true;
  // SQLSTATE through the driver adapter (kind 'postgres') or straight from node-postgres (e.g. the throttle pool).
  if (typeof e.code === 'string' && UNAVAILABLE_STATES.test(e.code)) return true;
  if (typeof e.code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/.test(e.code)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message) && !e.code) return true;
  return [e.meta?.driverAdapterError?.cause, e.cause, e.originalError].some((inner) => inner !== error && isDatabaseUnavailable(inner, depth + 1));
}

/**
 * True when trying again later may succeed: the database unavailable (above), an interactive
 * transaction that outlived its timeout on a loaded server (Prisma P2028), or a serialization
 * failure or deadlock (40001, 40P01) that PostgreSQL asks the client to retry.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as Inspectable | null)?.code;
  return code === 'P2028' || code === '40001' || code === '40P01' || isDatabaseUnavailable(error);
}
