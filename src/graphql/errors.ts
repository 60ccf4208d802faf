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

const RESOURCE_NOT_AVAILABLE =
  "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

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

/** A parameter that is missing or malformed: Grape's `{"error": "<param> is missing"}` family. */
export class ParamError extends DomainError {
  constructor(message: string) {
    super('BAD_PARAMETER', 400, { error: message }, message);
  }
}

/** A request GitLab refuses through `render_api_error!`: `{"message": "..."}`. */
export class BadRequestError extends DomainError {
  constructor(message: string, code = 'BAD_REQUEST') {
    super(code, 400, { message }, message);
  }
}

/** Model validation failures: `{"message": {"field": ["is invalid"]}}`. */
export class ValidationError extends DomainError {
  constructor(readonly fields: Record<string, string[]>) {
    const sentence = Object.entries(fields)
      .flatMap(([field, messages]) => messages.map((m) => `${humanize(field)} ${m}`))
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
  constructor(message: string) {
    super('UNPROCESSABLE', 422, { message }, message);
  }
}

function humanize(field: string) {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Errors that GitLab's GraphQL mutations report in the payload's `errors` list. */
export const isPayloadError = (e: unknown): e is DomainError =>
  e instanceof ValidationError || e instanceof ConflictError || e instanceof BadRequestError ||
  e instanceof UnprocessableError || e instanceof ParamError || e instanceof FullMessagesError;
