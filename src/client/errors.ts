import type { z } from 'zod';
import { CodedError } from '../util/errors.js';

/** Machine-readable codes of the client's errors. */
export type PlatformErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'HTTP_ERROR'
  | 'INVALID_RESPONSE'
  | 'NETWORK_ERROR';

/** Options of every client error. */
export interface PlatformErrorOptions {
  /** HTTP status of the response; 0 when none was received. */
  readonly status: number;
  /** Response body: parsed JSON, the raw text when it was not JSON, or undefined when empty. */
  readonly body: unknown;
  /** Method and URL of the request. */
  readonly request: { readonly method: string; readonly url: string };
  readonly cause?: unknown;
}

/**
 * Base class of every error the platform client throws. `code` tells the kind; `status` and
 * `body` are the response's (the platform's error body is `{ status: "ERROR", message,
 * requestId, timestamp }`, and its `message`, when a string, is in the error's message).
 */
export abstract class PlatformError extends CodedError<PlatformErrorCode> {
  readonly status: number;
  readonly body: unknown;
  readonly request: { readonly method: string; readonly url: string };

  constructor(message: string, options: PlatformErrorOptions) {
    super(message, options);
    this.status = options.status;
    this.body = options.body;
    this.request = options.request;
  }
}

/** 400: the platform refused the request body or query (the emulator names the field in `body.field`). */
export class PlatformBadRequestError extends PlatformError {
  readonly code = 'BAD_REQUEST';
}

/** 401: missing, unknown or signed-out API key. */
export class PlatformUnauthorizedError extends PlatformError {
  readonly code = 'UNAUTHORIZED';
}

/** 403: e.g. a number not linked to your client, or getCurrentClientUsers without SUPERVISOR. */
export class PlatformForbiddenError extends PlatformError {
  readonly code = 'FORBIDDEN';
}

/** 404: unknown id or path. */
export class PlatformNotFoundError extends PlatformError {
  readonly code = 'NOT_FOUND';
}

/** 409: e.g. a second client default webhook configuration. */
export class PlatformConflictError extends PlatformError {
  readonly code = 'CONFLICT';
}

/** Any other non-2xx status. */
export class PlatformHttpError extends PlatformError {
  readonly code = 'HTTP_ERROR';
}

/** A 2xx response whose body does not match the documented shape. */
export class PlatformResponseValidationError extends PlatformError {
  readonly code = 'INVALID_RESPONSE';
  /** The zod issues. */
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(
    message: string,
    options: PlatformErrorOptions & { readonly issues: readonly z.core.$ZodIssue[] },
  ) {
    super(message, options);
    this.issues = options.issues;
  }
}

/** No response: connection refused, DNS failure, aborted (`status` is 0). */
export class PlatformNetworkError extends PlatformError {
  readonly code = 'NETWORK_ERROR';
}

/** The `message` of a platform error body, when it has one. */
function errorMessageOf(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const { message } = body;
    return typeof message === 'string' ? message : undefined;
  }
  return undefined;
}

/** Maps a non-2xx response to its error class. */
export function errorForStatus(options: PlatformErrorOptions): PlatformError {
  const detail = errorMessageOf(options.body);
  const message = `${options.request.method} ${options.request.url} answered ${options.status}${
    detail === undefined ? '' : `: ${detail}`
  }`;
  switch (options.status) {
    case 400:
      return new PlatformBadRequestError(message, options);
    case 401:
      return new PlatformUnauthorizedError(message, options);
    case 403:
      return new PlatformForbiddenError(message, options);
    case 404:
      return new PlatformNotFoundError(message, options);
    case 409:
      return new PlatformConflictError(message, options);
    default:
      return new PlatformHttpError(message, options);
  }
}
