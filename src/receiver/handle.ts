import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodyUnreadableError,
  jsonAnswer,
  toErrorResponse,
  UnsupportedEncodingError,
  WebhookError,
  type HttpAnswer,
} from '../errors.js';
import type {
  AcceptedHead,
  CaptureSink,
  RequestBody,
  RequestHead,
  WebhookPipeline,
  WebhookPipelineOptions,
} from '../pipeline/index.js';
import { WEBHOOK_PATHS } from '../schemas/index.js';
import { collectBody } from './body.js';
import { bodyText } from '../pipeline/json.js';

/** The answer to a request that failed inside the library (a bug): never a stack trace. */
export const INTERNAL_ERROR = jsonAnswer(
  500,
  JSON.stringify({ error: { code: 'internal', message: 'Internal error' } }),
);

/** Writes an answer with the raw node API (Express's response is a node response too). */
export function send(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent) return;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The head of a node request as the pipeline reads it: one object per request, no closure. */
export class NodeRequestHead implements RequestHead {
  readonly method: string;
  constructor(
    private readonly req: IncomingMessage,
    readonly url: string,
  ) {
    this.method = req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }
}

/**
 * The refusal of a request's `Content-Encoding`, or undefined when the body is to be read as it
 * is: no header, an empty one, or `identity`. Every adapter checks this after the head checks
 * (a wrong token is still a 401) and before reading the body, so a gzipped or br-labelled body
 * is a 415 `unsupported_encoding` on each, never read as JSON nor inflated.
 */
export function encodingError(value: string | undefined): UnsupportedEncodingError | undefined {
  if (value === undefined) return undefined;
  const coding = value.trim();
  return coding === '' || coding.toLowerCase() === 'identity'
    ? undefined
    : new UnsupportedEncodingError(coding);
}

/** Headers never written to a capture. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** The capture sink of a receiver and the header that carries its token. */
export interface CaptureSettings {
  readonly sink: CaptureSink;
  readonly tokenHeader: string;
}

/** The capture settings of a receiver's options; undefined when capture is off. */
export function captureSettingsOf(options: WebhookPipelineOptions): CaptureSettings | undefined {
  return options.capture === undefined
    ? undefined
    : { sink: options.capture, tokenHeader: (options.tokenHeader ?? 'x-webhook-token').toLowerCase() };
}

/** Request headers as an adapter has them: node's `req.headers` entries, or a web `Headers`. */
export type HeaderEntries = Iterable<readonly [string, string | readonly string[] | undefined]>;

/**
 * Hands a request to the capture sink, secret headers dropped; a failing sink is logged, never
 * thrown. Every adapter calls this one function, so a capture reads the same whatever the framework.
 */
export function capture(
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

/**
 * Runs one request through the pipeline: head checks before reading the body (so a wrong token
 * costs no body read), then the body, then the answer. `preParsed` is a body an upstream parser
 * already consumed (`express.json()` mounted before the router): reading the stream again would
 * hang forever, so the parsed value is used instead. Never throws: a failure inside the library
 * is logged and answered 500. Callbacks, not promises, on this path: it runs once per request
 * and each promise turn shows in the benchmark.
 */
export function handleRequest(
  pipeline: WebhookPipeline,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  preParsed: { readonly body: unknown } | undefined,
  captureSettings?: CaptureSettings,
): void {
  try {
    const head = pipeline.head(new NodeRequestHead(req, url));
    if (head instanceof WebhookError) {
      // Nothing will read the body: discard it rather than leave the socket stalled.
      req.resume();
      send(res, toErrorResponse(head));
      return;
    }
    if (preParsed !== undefined) {
      const value = preParsed.body;
      const body = Buffer.isBuffer(value) || typeof value === 'string' ? { raw: value } : { parsed: value };
      answer(pipeline, req, res, head, body, captureSettings);
      return;
    }
    // A body parser before the router has decoded the body already (body-parser inflates gzip
    // within its own limit); one read here must be unencoded.
    const encoding = encodingError(req.headers['content-encoding']);
    if (encoding !== undefined) {
      req.resume();
      send(res, pipeline.refuse(head, encoding));
      return;
    }
    if (req.readableEnded) {
      const error = new BodyUnreadableError('the body stream was already consumed by another middleware');
      send(res, pipeline.refuse(head, error));
      return;
    }
    collectBody(
      req,
      pipeline.bodyLimit,
      (error, raw) => {
        // A 408 carries `connection: close`: Node ends the socket once the answer is written,
        // so the client stops sending a body nobody will read.
        if (error === undefined) answer(pipeline, req, res, head, { raw }, captureSettings);
        else send(res, pipeline.refuse(head, error));
      },
      pipeline.bodyTimeoutMs,
    );
  } catch (error) {
    fail(pipeline, res, error);
  }
}

/** Captures the request when asked, accepts its body and sends the answer. */
export function answer(
  pipeline: WebhookPipeline,
  req: IncomingMessage,
  res: ServerResponse,
  head: AcceptedHead,
  body: RequestBody,
  captureSettings: CaptureSettings | undefined,
): void {
  try {
    if (captureSettings) capture(captureSettings, Object.entries(req.headers), head, body, pipeline.logger);
    const answered = pipeline.accept(head, body);
    if (answered instanceof Promise) {
      answered.then(
        (value) => send(res, value),
        (error: unknown) => fail(pipeline, res, error),
      );
    } else {
      send(res, answered);
    }
  } catch (error) {
    fail(pipeline, res, error);
  }
}

/** A failure inside the library (a bug): logged, answered 500 without details. */
function fail(pipeline: WebhookPipeline, res: ServerResponse, error: unknown): void {
  pipeline.logger.error({ err: error }, 'webhook request failed');
  send(res, INTERNAL_ERROR);
}
