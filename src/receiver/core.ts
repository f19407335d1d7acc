/**
 * The one seam between the pipeline and the frameworks, public as `messaging-webhooks/adapter`.
 * An adapter describes a request as an {@link Exchange} (its head, how to read or discard its
 * body, how to send an answer) and hands it to {@link serve}, which runs it through the pipeline:
 * head checks, Content-Encoding, body, capture, accept, and every failure path. Every answer to a
 * request on a webhook path comes from the pipeline through {@link serve} (or
 * {@link WebhookPipeline.refuse} for what Node refuses before any listener); an adapter writes
 * only its own 404 for a path outside its mount point and the 500 of a request it could not hand
 * over. (The Express error handler given no receiver has no pipeline: it answers a body parser's
 * failure with the error body alone.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  jsonAnswer,
  toErrorResponse,
  UnsupportedEncodingError,
  WebhookError,
  type HttpAnswer,
} from '../errors.js';
import {
  createWebhookPipeline,
  type AcceptedHead,
  type CaptureSink,
  type RequestBody,
  type RequestHead,
  type WebhookPipeline,
  type WebhookPipelineOptions,
} from '../pipeline/index.js';
import { bodyText } from '../pipeline/json.js';
import { tokenHeaderOf } from '../util/token-header.js';
import { CAPTURE_SECRET_HEADERS } from '../capture/types.js';
import { WEBHOOK_PATHS } from '../schemas/index.js';

/** Request headers as an adapter has them: node's `req.headers` entries, or a web `Headers`. */
export type HeaderEntries = Iterable<readonly [string, string | readonly string[] | undefined]>;

/**
 * One request as an adapter presents it to {@link serve}: the head the pipeline checks (method,
 * path and query below the mount point, headers) and the adapter's few functions. The built-in
 * adapters implement it with one object per request (a class with these methods on its
 * prototype), so a request costs that object, the body and {@link serve}'s one callback for the
 * body read.
 *
 * `serve` calls the methods in this order: `header` (the head checks), then either `discard` and
 * `send` (a refusal before the body), or `contentEncoding`, `readBody`, then `headerEntries` (when
 * capture is on), `accepting`, and `send`. Exactly one `send` per request, never a throw out of
 * `serve`: a method that throws is logged and answered 500.
 */
export interface Exchange extends RequestHead {
  /**
   * The `Content-Encoding` the body still carries, or undefined when it is read as it is (no
   * header, or a body a parser upstream already decoded).
   */
  contentEncoding(): string | undefined;
  /**
   * Leaves the body unread (the request was refused before it): a node stream is drained so that
   * its socket does not stall; a web `Request` needs nothing.
   */
  discard(): void;
  /**
   * Reads the body up to `limit` bytes within `timeoutMs` and calls `done` once: with the body,
   * or with the refusal (413 past the limit, 408 past the deadline, 400 for an unreadable body).
   * `declaredLength` is the head's reading of Content-Length ({@link AcceptedHead.declaredLength}),
   * for an adapter that reads a declared body differently from a streamed one. A node stream can
   * be read with `collectBody`; a body a parser upstream already produced is handed over as
   * `{ parsed }` (then `contentEncoding()` returns undefined: the parser decoded it).
   */
  readBody(
    limit: number,
    timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
    declaredLength: number,
  ): void;
  /** The request headers, for a capture. */
  headerEntries(): HeaderEntries;
  /**
   * Writes the answer: `status`, `headers` (content-type and, on a 408, `connection: close`) and
   * the JSON `body`, through the framework's own response API. At most once: a second call is
   * ignored.
   */
  send(answer: HttpAnswer): void;
  /** Called with the head just before the body is accepted (the fetch adapter's `waitUntil`). */
  accepting?(head: AcceptedHead): void;
}

/** The body to hand `readBody`'s `done` with a refusal (`serve` does not read it). */
export const NO_BODY: RequestBody = { raw: '' };

/** A header of node's `req.headers` (Express, node:http, Fastify): the first of repeated values. */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The answer to a request that failed inside the library (a bug): never a stack trace. */
export const INTERNAL_ERROR = jsonAnswer(
  500,
  JSON.stringify({ error: { code: 'internal', message: 'Internal error' } }),
);

/**
 * The refusal of a request's `Content-Encoding`, or undefined when the body is to be read as it
 * is: no header, an empty one, or `identity`. Checked after the head checks (a wrong token is
 * still a 401) and before reading the body, so a gzipped or br-labelled body is a 415
 * `unsupported_encoding` on every adapter, never read as JSON nor inflated.
 */
function encodingError(value: string | undefined): UnsupportedEncodingError | undefined {
  if (value === undefined) return undefined;
  const coding = value.trim();
  return coding === '' || coding.toLowerCase() === 'identity'
    ? undefined
    : new UnsupportedEncodingError(coding);
}

/**
 * What {@link serve} needs besides the request: the pipeline and the capture settings. Made once
 * per adapter instance by {@link receiverOf}.
 */
export interface Receiver {
  /** The pipeline the adapter's controls (`controlsOf`) and its own refusals go to. */
  readonly pipeline: WebhookPipeline;
  /** Undefined when capture is off. */
  readonly capture: CaptureSettings | undefined;
}

/** Each adapter's receiver by its pipeline, for code that holds only the controls. */
const RECEIVERS = new WeakMap<WebhookPipeline, Receiver>();

/**
 * The pipeline of an adapter. Every adapter takes its options this one way: its own keys
 * (`ownKeys`, e.g. `basePath`) sit beside the pipeline's in one object, the pipeline accepts them
 * as known, and the adapter reads them from the same object. `factory` names the adapter in the
 * errors a bad option throws (`koaWebhooks: unknown option 'tokn' (did you mean 'token'?)`).
 *
 * @example
 * const receiver = receiverOf(options, 'koaWebhooks', ['basePath']);
 */
export function receiverOf(
  options: WebhookPipelineOptions,
  factory: string,
  ownKeys: readonly string[] = [],
): Receiver {
  const pipeline = createWebhookPipeline(options, { factory, extraKeys: ownKeys });
  const receiver = { pipeline, capture: captureSettingsOf(options) };
  RECEIVERS.set(pipeline, receiver);
  return receiver;
}

/**
 * The receiver {@link receiverOf} made for `pipeline` (undefined for a pipeline made otherwise):
 * for the Express error handler, which is given the router's controls and serves through the
 * router's capture settings.
 */
export function receiverFor(pipeline: WebhookPipeline): Receiver | undefined {
  return RECEIVERS.get(pipeline);
}

/**
 * Runs one request through the pipeline: head checks before the body (a wrong token costs no
 * body read), Content-Encoding (anything but identity is a 415), the body (413, 408, 400 from
 * `readBody`), capture, then the answer, always through `exchange.send` exactly once. Never
 * throws: a failure inside the library or the exchange is logged and answered 500. Returns
 * before the answer when the body is read asynchronously; an adapter that must wait for it (a
 * framework whose handler returns a promise) resolves that promise in `send`. Callbacks, not
 * promises, on this path: it runs once per request and each promise turn shows in the benchmark.
 */
export function serve(receiver: Receiver, exchange: Exchange): void {
  const { pipeline } = receiver;
  try {
    const head = pipeline.head(exchange);
    if (head instanceof WebhookError) {
      exchange.discard();
      exchange.send(toErrorResponse(head));
      return;
    }
    const encoding = encodingError(exchange.contentEncoding());
    if (encoding !== undefined) {
      exchange.discard();
      exchange.send(pipeline.refuse(head, encoding));
      return;
    }
    exchange.readBody(
      pipeline.bodyLimit,
      pipeline.bodyTimeoutMs,
      (error, body) => {
        if (error === undefined) answer(receiver, exchange, head, body);
        else refuseBody(pipeline, exchange, head, error);
      },
      head.declaredLength,
    );
  } catch (error) {
    fail(pipeline, exchange, error);
  }
}

/** Captures the request when asked, accepts its body and sends the answer. */
function answer(receiver: Receiver, exchange: Exchange, head: AcceptedHead, body: RequestBody): void {
  const { pipeline } = receiver;
  try {
    if (receiver.capture) capture(receiver.capture, exchange.headerEntries(), head, body, pipeline.logger);
    exchange.accepting?.(head);
    const answered = pipeline.accept(head, body);
    if (answered instanceof Promise) {
      answered.then(
        (value) => exchange.send(value),
        (error: unknown) => fail(pipeline, exchange, error),
      );
    } else {
      exchange.send(answered);
    }
  } catch (error) {
    fail(pipeline, exchange, error);
  }
}

/**
 * Answers a body the adapter could not read (413, 408, 400). A 408 carries `connection: close`:
 * the server ends the connection once the answer is written, so the client stops sending a body
 * nobody will read.
 */
function refuseBody(
  pipeline: WebhookPipeline,
  exchange: Exchange,
  head: AcceptedHead,
  error: WebhookError,
): void {
  try {
    exchange.send(pipeline.refuse(head, error));
  } catch (failure) {
    fail(pipeline, exchange, failure);
  }
}

/** A failure inside the library (a bug): logged, answered 500 without details. */
function fail(pipeline: WebhookPipeline, exchange: Exchange, error: unknown): void {
  pipeline.logger.error({ err: error }, 'webhook request failed');
  exchange.send(INTERNAL_ERROR);
}

/** Headers never written to a capture: the one list capture keeps. */
const SECRET_HEADERS = new Set(CAPTURE_SECRET_HEADERS);

/**
 * The capture sink of a receiver and the header that carries its token (never written to a
 * capture). Set by {@link receiverOf} from the `capture` option.
 */
export interface CaptureSettings {
  /** The `capture` option: called once per request that passed the head checks. */
  readonly sink: CaptureSink;
  /** The header carrying the token (lower-case), dropped from every capture. */
  readonly tokenHeader: string;
}

/** The capture settings of a receiver's options; undefined when capture is off. */
function captureSettingsOf(options: WebhookPipelineOptions): CaptureSettings | undefined {
  return options.capture === undefined
    ? undefined
    : { sink: options.capture, tokenHeader: tokenHeaderOf(options) };
}

/**
 * Hands a request to the capture sink, secret headers dropped; a failing sink is logged, never
 * thrown. Called only from {@link answer}, so a capture reads the same whatever the framework.
 */
function capture(
  settings: CaptureSettings,
  requestHeaders: HeaderEntries,
  head: AcceptedHead,
  body: RequestBody,
  logger: WebhookPipeline['logger'],
): void {
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of requestHeaders) {
      if (value === undefined || SECRET_HEADERS.has(name) || name === settings.tokenHeader) continue;
      headers[name] = typeof value === 'string' ? value : value.join(', ');
    }
    const raw = 'raw' in body ? body.raw : JSON.stringify(body.parsed);
    settings.sink({
      receivedAt: new Date(head.receivedAt).toISOString(),
      // The canonical endpoint path: a token given as a path segment or query parameter is not kept.
      path: head.type === undefined ? '/' : `/${WEBHOOK_PATHS[head.type]}`,
      type: head.type,
      headers,
      body: bodyText(raw),
    });
  } catch (error) {
    logger.error({ err: error }, 'capture sink failed');
  }
}
