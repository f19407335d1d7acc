import type { PayloadIssue } from './schemas/index.js';
import { CodedError } from './util/errors.js';

/** Every error code the receiver answers with (the table below gives each its HTTP status). */
export type WebhookErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'unsupported_encoding'
  | 'payload_too_large'
  | 'request_timeout'
  | 'headers_too_large'
  | 'malformed_request'
  | 'invalid_json'
  | 'payload_too_complex'
  | 'body_unreadable'
  | 'unknown_webhook_type'
  | 'invalid_payload'
  | 'queue_full'
  | 'shutting_down'
  | 'store_unavailable'
  | 'claim_held';

/** Each error code's HTTP status; `satisfies` keeps it and {@link WebhookErrorCode} the same set. */
const ERROR_STATUS = {
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  unsupported_encoding: 415,
  payload_too_large: 413,
  request_timeout: 408,
  headers_too_large: 431,
  malformed_request: 400,
  invalid_json: 400,
  payload_too_complex: 400,
  body_unreadable: 400,
  unknown_webhook_type: 400,
  invalid_payload: 400,
  queue_full: 503,
  shutting_down: 503,
  store_unavailable: 503,
  claim_held: 503,
} as const satisfies Record<WebhookErrorCode, number>;

/**
 * Base class of every error the receiver answers with. `code` is a literal per subclass;
 * `toErrorResponse` maps any of them to an HTTP status and a JSON body.
 */
export abstract class WebhookError extends CodedError<WebhookErrorCode> {
  /** Extra response headers (Allow, Retry-After). */
  readonly headers: Readonly<Record<string, string>> = {};

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The JSON body's `error` object. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message };
  }
}

export class UnauthorizedError extends WebhookError {
  readonly code = 'unauthorized';
  constructor() {
    super('Missing or wrong webhook token');
  }
}

export class NotFoundError extends WebhookError {
  readonly code = 'not_found';
  /** The path is not echoed: it may carry a token segment (`/<token>/chatbot`). */
  constructor() {
    super('No webhook endpoint here; they are POST /incoming, /status, /session, /events, /chatbot and /');
  }
}

export class MethodNotAllowedError extends WebhookError {
  readonly code = 'method_not_allowed';
  override readonly headers = { allow: 'POST' };
  constructor(method: string) {
    super(`Method ${method} is not allowed; webhooks are delivered with POST`);
  }
}

export class UnsupportedMediaTypeError extends WebhookError {
  readonly code = 'unsupported_media_type';
  constructor(contentType: string | undefined) {
    super(
      `Expected Content-Type application/json, got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}`,
    );
  }
}

/**
 * 415: a body with a Content-Encoding other than `identity` (gzip, br, ...). Refused before the
 * body is read: a compressed body is never inflated, so it cannot grow past `bodyLimit` once decoded.
 */
export class UnsupportedEncodingError extends WebhookError {
  readonly code = 'unsupported_encoding';
  constructor(encoding: string) {
    super(
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 64))} is not supported; send the body unencoded (identity)`,
    );
  }
}

export class PayloadTooLargeError extends WebhookError {
  readonly code = 'payload_too_large';
  constructor(readonly limit: number) {
    super(`Body exceeds the limit of ${limit} bytes`);
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), limit: this.limit };
  }
}

/** 408: the body did not arrive within `bodyTimeoutMs` (trickled, or shorter than its Content-Length). */
export class RequestTimeoutError extends WebhookError {
  readonly code = 'request_timeout';
  override readonly headers = { connection: 'close' };
  /** `timeoutMs` undefined: Node's own headersTimeout or requestTimeout ran out. */
  constructor(readonly timeoutMs?: number) {
    super(
      timeoutMs === undefined ? 'Request not received in time' : `Body not received within ${timeoutMs} ms`,
    );
  }
}

/** 431: Node refused the request's headers as too large (counted through `countClientErrors`). */
export class HeadersTooLargeError extends WebhookError {
  readonly code = 'headers_too_large';
  override readonly headers = { connection: 'close' };
  constructor() {
    super('Request headers too large');
  }
}

/** 400: Node could not parse the request as HTTP (counted through `countClientErrors`). */
export class MalformedRequestError extends WebhookError {
  readonly code = 'malformed_request';
  override readonly headers = { connection: 'close' };
  constructor(options?: ErrorOptions) {
    super('Malformed HTTP request', options);
  }
}

/** 400: valid JSON whose structure exceeds `maxJsonDepth`, `maxJsonKeys` or `maxJsonItems`. */
export class PayloadTooComplexError extends WebhookError {
  readonly code = 'payload_too_complex';
  constructor(
    readonly limit: 'maxDepth' | 'maxKeys' | 'maxItems',
    readonly max: number,
  ) {
    super(`Body exceeds the ${limit} bound of ${max}`);
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), limit: this.limit, max: this.max };
  }
}

export class InvalidJsonError extends WebhookError {
  readonly code = 'invalid_json';
  constructor(options?: ErrorOptions) {
    super('Body is not valid JSON', options);
  }
}

export class BodyUnreadableError extends WebhookError {
  readonly code = 'body_unreadable';
  constructor(reason: string, options?: ErrorOptions) {
    super(`Body could not be read: ${reason}`, options);
  }
}

export class UnknownWebhookTypeError extends WebhookError {
  readonly code = 'unknown_webhook_type';
  constructor() {
    super(
      'Cannot tell the webhook type from the payload; post it to /incoming, /status, /session, /events or /chatbot',
    );
  }
}

export class InvalidPayloadError extends WebhookError {
  readonly code = 'invalid_payload';
  constructor(
    readonly type: string,
    readonly issues: readonly PayloadIssue[],
  ) {
    super(`Invalid ${type} payload: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), type: this.type, issues: this.issues };
  }
}

/** Base of the 503 answers: the sender should retry after `retryAfterSeconds`. */
abstract class RetryLaterError extends WebhookError {
  override readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, retryAfterSeconds: number, options?: ErrorOptions) {
    super(message, options);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

export class QueueFullError extends RetryLaterError {
  readonly code = 'queue_full';
  constructor(retryAfterSeconds: number) {
    super('The receiver is at capacity; retry later', retryAfterSeconds);
  }
}

export class ShuttingDownError extends RetryLaterError {
  readonly code = 'shutting_down';
  constructor(retryAfterSeconds: number) {
    super('The receiver is shutting down; retry later', retryAfterSeconds);
  }
}

export class StoreUnavailableError extends RetryLaterError {
  readonly code = 'store_unavailable';
  constructor(retryAfterSeconds: number, options?: ErrorOptions) {
    super('The dedupe store or queue is unavailable; retry later', retryAfterSeconds, options);
  }
}

/**
 * The same event is being enqueued by another request (another instance sharing the Redis dedupe
 * store, racing with this one): not a failure. 503 + Retry-After rather than a 200, because the
 * other request may still fail to enqueue and release its claim; the sender's retry is then
 * accepted, or answered as a duplicate once the other claim is confirmed.
 */
export class ClaimHeldError extends RetryLaterError {
  readonly code = 'claim_held';
  constructor(retryAfterSeconds: number) {
    super('This event is being accepted by another request; retry later', retryAfterSeconds);
  }
}

/** An HTTP answer: status, complete headers (content type and length included) and a JSON body. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Builds an answer with a serialised JSON body; the headers are computed once, here. */
export function jsonAnswer(
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): HttpAnswer {
  return {
    status,
    headers: {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

/** Maps a {@link WebhookError} to its HTTP status, headers and `{ "error": {...} }` body. */
export function toErrorResponse(error: WebhookError): HttpAnswer {
  return jsonAnswer(error.status, JSON.stringify({ error: error.toJSON() }), error.headers);
}
