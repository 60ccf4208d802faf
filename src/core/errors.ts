import { GraphQLError } from 'graphql';

/**
 * Expected failures. Each carries a machine-readable code plus the HTTP status and GitLab body
 * the REST facade answers with, so the facade maps errors from this one place. They extend
 * GraphQLError so Yoga passes them to GraphQL clients unmasked, with `extensions.code`.
 */
export class DomainError extends GraphQLError {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, { extensions: { code, status } });
  }
}

const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

export class NotFoundError extends DomainError {
  /** `new NotFoundError('Project')` answers `404 {"message":"404 Project Not Found"}`. */
  constructor(resource?: string) {
    const text = resource ? `404 ${resource} Not Found` : '404 Not Found';
    super('NOT_FOUND', 404, { message: text }, resource ? `${resource} not found` : RESOURCE_NOT_AVAILABLE);
  }
}

/** Rails' RecordNotFound: `404 {"message":"404 Not found"}` (lower-case "found", GitLab's quirk). */
export class RecordNotFoundError extends DomainError {
  constructor(message = RESOURCE_NOT_AVAILABLE) {
    super('NOT_FOUND', 404, { message: '404 Not found' }, message);
  }
}

/** A 404 whose GitLab body is a sentence of its own: `{"message":"Tag does not exist"}`. */
export class MissingError extends DomainError {
  constructor(message: string) {
    super('NOT_FOUND', 404, { message }, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(reason?: string) {
    const text = reason ? `403 Forbidden - ${reason}` : '403 Forbidden';
    super('FORBIDDEN', 403, { message: text }, reason ?? RESOURCE_NOT_AVAILABLE);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(body: Record<string, unknown> = { message: '401 Unauthorized' }) {
    super('UNAUTHORIZED', 401, body, String(body.error_description ?? body.message ?? 'Unauthorized'));
  }
}

export class InsufficientScopeError extends DomainError {
  constructor(scopes: readonly string[]) {
    super(
      'INSUFFICIENT_SCOPE',
      403,
      {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: scopes.join(' '),
      },
      `The request requires higher privileges than provided by the access token (needs one of: ${scopes.join(', ')}).`,
    );
  }
}

/**
 * A parameter that is missing or malformed: Grape's `{"error": "<param> is missing"}` family. The
 * REST body names REST's parameters; `graphqlMessage` says the same with GraphQL's field names.
 */
export class ParamError extends DomainError {
  constructor(message: string, graphqlMessage = message) {
    super('BAD_PARAMETER', 400, { error: message }, graphqlMessage);
  }
}

/** A request GitLab refuses through `render_api_error!`: `{"message": "..."}`. */
export class BadRequestError extends DomainError {
  constructor(message: string, code = 'BAD_REQUEST', body: Record<string, unknown> = { message }) {
    super(code, 400, body, message);
  }
}

/** GitLab's `bad_request!(reason)`: `{"message": "400 Bad request - <reason>"}`; GraphQL reads the reason. */
export const badRequestBecause = (reason: string) => new BadRequestError(reason, 'BAD_REQUEST', { message: `400 Bad request - ${reason}` });

/** Model validation failures: `{"message": {"field": ["is invalid"]}}`. */
export class ValidationError extends DomainError {
  constructor(readonly fields: Record<string, string[]>) {
    const sentence = Object.entries(fields)
      .flatMap(([field, messages]) => messages.map((m) => `${humanize(field)} ${m}`.trimStart()))
      .join(', ');
    super('VALIDATION', 400, { message: fields }, sentence);
  }
}

/** Model errors rendered as their full messages: `{"message": ["Url has already been taken"]}`. */
export class FullMessagesError extends DomainError {
  constructor(readonly messages: string[]) {
    super('VALIDATION', 400, { message: messages }, messages.join(', '));
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', 409, { message }, message);
  }
}

export class UnprocessableError extends DomainError {
  /** `body` when GitLab nests the messages, e.g. `{"message": {"error": ["..."]}}`. */
  constructor(message: string, body: Record<string, unknown> = { message }) {
    super('UNPROCESSABLE', 422, body, message);
  }
}

/** The database is unreachable or stalled: a retryable 503, never a 500 (GitLab answers 503 when a dependency is down). */
export class ServiceUnavailableError extends DomainError {
  constructor(retryAfterSeconds = 5) {
    super('SERVICE_UNAVAILABLE', 503, { message: '503 Service Unavailable' }, 'The service is temporarily unavailable, retry later', {
      'Retry-After': String(retryAfterSeconds),
    });
    this.extensions.http = { status: 503, headers: this.headers };
  }
}

/**
 * The database lists the project but this server's repository storage (DATA_DIR) does not hold
 * its repository (a storage that is not mounted, or another host's): a 503 that says so, never a 500.
 */
export class RepositoryUnavailableError extends DomainError {
  constructor() {
    const message = "The project's repository is not in this server's repository storage";
    super('REPOSITORY_UNAVAILABLE', 503, { message: `503 Service Unavailable - ${message}` }, message, { 'Retry-After': '60' });
    this.extensions.http = { status: 503, headers: this.headers };
  }
}

const TOO_MANY_REQUESTS = 'This endpoint has been requested too many times. Try again later.';

/** Too many requests (rate limit, archive queue full): GitLab's application rate limiter 429, with `Retry-After`. */
export class TooManyRequestsError extends DomainError {
  constructor(retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super('TOO_MANY_REQUESTS', 429, { message: { error: TOO_MANY_REQUESTS } }, TOO_MANY_REQUESTS, { 'Retry-After': String(retryAfterSeconds), ...headers });
    this.extensions.http = { status: 429, headers: this.headers };
  }
}

/** Rails' full messages: `Title can't be blank`; errors on `base` are sentences of their own. */
function humanize(field: string) {
  if (field === 'base') return '';
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Errors that GitLab's GraphQL mutations report in the payload's `errors` list. */
export const isPayloadError = (e: unknown): e is DomainError =>
  e instanceof ValidationError ||
  e instanceof ConflictError ||
  e instanceof BadRequestError ||
  e instanceof UnprocessableError ||
  e instanceof ParamError ||
  e instanceof FullMessagesError;
