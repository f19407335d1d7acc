import { randomUUID } from 'node:crypto';
import { CodedError } from '../util/errors.js';

/** Every code the emulator answers with, each with its HTTP status. */
export const EMULATOR_ERROR_STATUS = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_REQUEST: 400,
  ILLEGAL_TRANSITION: 409,
  NUMBER_FLAGGED: 409,
  SESSION_NOT_SUPPORTED: 409,
  AGENT_UNAVAILABLE: 409,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
} as const;
/** Machine-readable codes of the emulator's errors. */
export type EmulatorErrorCode = keyof typeof EMULATOR_ERROR_STATUS;

/** Options of every emulator error. */
export interface EmulatorErrorOptions {
  readonly cause?: unknown;
  /** The request field at fault (400s name it). */
  readonly field?: string;
  /** Extra JSON-safe details added to the response body. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Base class of every error the emulator raises, from JS methods and over HTTP alike: one
 * subclass per code (over `CodedError`, the base of the package's coded errors).
 * `emulatorErrorResponse` maps one to an HTTP status and JSON body.
 */
export abstract class EmulatorError extends CodedError<EmulatorErrorCode> {
  readonly field: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(message: string, options: EmulatorErrorOptions = {}) {
    super(message, options);
    this.field = options.field;
    this.details = options.details;
  }

  get status(): number {
    return EMULATOR_ERROR_STATUS[this.code];
  }
}

/** 401: missing or unknown API key (section Errors, 401 response). */
export class UnauthorizedError extends EmulatorError {
  readonly code = 'UNAUTHORIZED';
  constructor(message = 'Unauthorized user: missing or invalid API key', options?: EmulatorErrorOptions) {
    super(message, options);
  }
}

/** 403: the resource belongs to another client, or the caller lacks the role. */
export class ForbiddenError extends EmulatorError {
  readonly code = 'FORBIDDEN';
}

/** 404: unknown id or path. */
export class NotFoundError extends EmulatorError {
  readonly code = 'NOT_FOUND';
}

/** 409: a uniqueness rule (scope rule 5) or a state rule refuses the request. */
export class ConflictError extends EmulatorError {
  readonly code = 'CONFLICT';
}

/** 400: a malformed body or query; `field` names the culprit. */
export class BadRequestError extends EmulatorError {
  readonly code = 'BAD_REQUEST';
}

/** 409: a delivery status or session change the transition tables do not allow. */
export class IllegalTransitionError extends EmulatorError {
  readonly code = 'ILLEGAL_TRANSITION';
}

/** 409: a flagged number tried to reconnect before its flag period ended. */
export class NumberFlaggedError extends EmulatorError {
  readonly code = 'NUMBER_FLAGGED';
}

/** 409: a session change on a Cloud number (only Lite numbers have sessions). */
export class SessionNotSupportedError extends EmulatorError {
  readonly code = 'SESSION_NOT_SUPPORTED';
}

/** 409: the requested agent is offline, disabled or at its agentChatLimit. */
export class AgentUnavailableError extends EmulatorError {
  readonly code = 'AGENT_UNAVAILABLE';
}

/** 405: A method the route does not serve. */
export class MethodNotAllowedError extends EmulatorError {
  readonly code = 'METHOD_NOT_ALLOWED';
}

/** 413: A request body over the emulator's limit. */
export class PayloadTooLargeError extends EmulatorError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}

/** 415: An upload of a media type the emulator does not accept. */
export class UnsupportedMediaTypeError extends EmulatorError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** 500: A bug in the emulator: a state or payload it should never have built. */
export class InternalError extends EmulatorError {
  readonly code = 'INTERNAL';
}

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
export function emulatorErrorResponse(error: unknown, now: Date): { status: number; body: ErrorBody } {
  const known =
    error instanceof EmulatorError ? error : new InternalError('Internal emulator error', { cause: error });
  const body: ErrorBody = {
    ...known.details,
    status: 'ERROR',
    message: known.message,
    requestId: randomUUID(),
    timestamp: isoTimestamp(now),
    code: known.code,
    ...(known.field === undefined ? {} : { field: known.field }),
  };
  return { status: known.status, body };
}

/**
 * `now` in ISO 8601; an invalid Date (an injected clock past what a Date holds) becomes the wall
 * clock's time rather than a throw: an error answer must always be writable.
 */
function isoTimestamp(now: Date): string {
  return Number.isNaN(now.getTime()) ? new Date().toISOString() : now.toISOString();
}

/**
 * The answer of last resort, when even an error answer could not be built or serialised (a
 * handler's error details that JSON cannot hold): a fixed 500 body, built without anything that
 * can throw.
 */
export function fallbackErrorResponse(): { status: 500; body: ErrorBody } {
  return {
    status: 500,
    body: {
      status: 'ERROR',
      message: 'Internal emulator error',
      requestId: randomUUID(),
      timestamp: new Date().toISOString(),
      code: 'INTERNAL',
    },
  };
}
