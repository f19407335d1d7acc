import { randomUUID } from 'node:crypto';

/** Machine-readable codes of the emulator's errors. */
export type EmulatorErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'BAD_REQUEST'
  | 'ILLEGAL_TRANSITION'
  | 'NUMBER_FLAGGED'
  | 'SESSION_NOT_SUPPORTED'
  | 'AGENT_UNAVAILABLE'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL';

/** Options of every emulator error. */
export interface EmulatorErrorOptions {
  readonly cause?: unknown;
  /** The request field at fault (400s name it). */
  readonly field?: string;
  /** Extra JSON-safe details added to the response body. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Base class of every error the emulator raises, from JS methods and over HTTP alike.
 * {@link toErrorResponse} maps one to an HTTP status and JSON body.
 */
export class EmulatorError extends Error {
  override readonly name: string = 'EmulatorError';
  readonly field: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    readonly code: EmulatorErrorCode,
    readonly status: number,
    message: string,
    options: EmulatorErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.field = options.field;
    this.details = options.details;
  }
}

/** The base of a subclass: its name, code and status fixed, the constructor `(message, options?)`. */
function errorClass<N extends string>(
  name: N,
  code: EmulatorErrorCode,
  status: number,
): new (message: string, options?: EmulatorErrorOptions) => EmulatorError & { readonly name: N } {
  return class extends EmulatorError {
    override readonly name: N = name;
    constructor(message: string, options?: EmulatorErrorOptions) {
      super(code, status, message, options);
    }
  };
}

/** 401: missing or unknown API key (section Errors, 401 response). */
export class UnauthorizedError extends errorClass('UnauthorizedError', 'UNAUTHORIZED', 401) {
  constructor(message = 'Unauthorized user: missing or invalid API key', options?: EmulatorErrorOptions) {
    super(message, options);
  }
}

/** 403: the resource belongs to another client, or the caller lacks the role. */
export class ForbiddenError extends errorClass('ForbiddenError', 'FORBIDDEN', 403) {}

/** 404: unknown id or path. */
export class NotFoundError extends errorClass('NotFoundError', 'NOT_FOUND', 404) {}

/** 409: a uniqueness rule (scope rule 5) or a state rule refuses the request. */
export class ConflictError extends errorClass('ConflictError', 'CONFLICT', 409) {}

/** 400: a malformed body or query; `field` names the culprit. */
export class BadRequestError extends errorClass('BadRequestError', 'BAD_REQUEST', 400) {}

/** 409: a delivery status or session change the transition tables do not allow. */
export class IllegalTransitionError extends errorClass('IllegalTransitionError', 'ILLEGAL_TRANSITION', 409) {}

/** 409: a flagged number tried to reconnect before its flag period ended. */
export class NumberFlaggedError extends errorClass('NumberFlaggedError', 'NUMBER_FLAGGED', 409) {}

/** 409: a session change on a Cloud number (only Lite numbers have sessions). */
export class SessionNotSupportedError extends errorClass(
  'SessionNotSupportedError',
  'SESSION_NOT_SUPPORTED',
  409,
) {}

/** 409: the requested agent is offline, disabled or at its agentChatLimit. */
export class AgentUnavailableError extends errorClass('AgentUnavailableError', 'AGENT_UNAVAILABLE', 409) {}

/** The JSON body of every error response. */
export interface ErrorBody {
  /** Always "ERROR", as in the documented 401 body. */
  readonly status: 'ERROR';
  readonly message: string;
  /** A fresh UUID per response. */
  readonly requestId: string;
  /** ISO 8601. */
  readonly timestamp: string;
  /** Emulator extension: a machine-readable code. */
  readonly code: EmulatorErrorCode;
  /** Emulator extension: the request field at fault (400s). */
  readonly field?: string;
  readonly [extra: string]: unknown;
}

/**
 * Maps any thrown value to an HTTP status and JSON body. The documented 401 body shape
 * (status, message, requestId, timestamp) is used for every error; the 403/409 body shapes are
 * not shown in the documentation, so they get the same shape plus `code` (and `field` on 400s).
 * `now` is the emulator clock, so timestamps follow it.
 */
export function toErrorResponse(error: unknown, now: Date): { status: number; body: ErrorBody } {
  const known =
    error instanceof EmulatorError
      ? error
      : new EmulatorError('INTERNAL', 500, 'Internal emulator error', { cause: error });
  const body: ErrorBody = {
    ...known.details,
    status: 'ERROR',
    message: known.message,
    requestId: randomUUID(),
    timestamp: now.toISOString(),
    code: known.code,
    ...(known.field === undefined ? {} : { field: known.field }),
  };
  return { status: known.status, body };
}
