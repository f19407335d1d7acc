import type { WebhookType } from '../schemas/index.js';

/**
 * The secret headers no capture record carries: the receiver leaves them (and its token header)
 * out of the records it hands a sink, and `createJsonlCapture` removes them from any record.
 */
export const CAPTURE_SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
];

/** One received request, as handed to a {@link CaptureSink}. */
export interface CaptureRecord {
  /** ISO 8601 time the request arrived. */
  readonly receivedAt: string;
  /** The endpoint below the mount point, tokens stripped: `/chatbot`, or `/` for the detecting endpoint. */
  readonly path: string;
  /** The webhook type of the endpoint (undefined for the detecting endpoint). */
  readonly type: WebhookType | undefined;
  /**
   * Request headers without secrets (authorization, proxy-authorization, cookie, set-cookie and the
   * token header).
   */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The raw body as received (UTF-8). When a body parser ran before the router and left only a
   * parsed value, this is that value re-serialised with JSON.stringify.
   */
  readonly body: string;
}

/**
 * Receives every request whose body was read, before validation (so invalid payloads are kept
 * too). Called synchronously on the request path: a sink must only hand the record off (e.g.
 * to a write stream), never block. See `createJsonlCapture` (exported by `messaging-webhooks/testing`).
 */
export type CaptureSink = (record: CaptureRecord) => void;
