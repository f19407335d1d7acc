import type { ServerResponse } from 'node:http';
import {
  BodyUnreadableError,
  InvalidJsonError,
  PayloadTooLargeError,
  toErrorResponse,
  UnsupportedEncodingError,
  UnsupportedMediaTypeError,
  type WebhookError,
} from '../errors.js';
import type { RequestBody } from '../pipeline/index.js';
import type { WebhookReceiverControls } from './controls.js';
import { NO_BODY, receiverFor, serve } from './core.js';
import type { WebhookRouterNext, WebhookRouterRequest } from './express.js';
import { NodeExchange, send } from './handle.js';

/** The fields body-parser (express.json(), express.raw(), express.text()) sets on its errors. */
interface BodyParserError {
  readonly type: string;
  readonly status: number;
  readonly message: string;
  readonly limit?: number;
  readonly body?: unknown;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false;
  const { type, status } = error as Partial<BodyParserError>;
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
}

/** The library's error for a body-parser error. */
function webhookErrorOf(error: BodyParserError, req: WebhookRouterRequest): WebhookError {
  switch (error.type) {
    case 'entity.too.large':
      return new PayloadTooLargeError(error.limit ?? 0);
    case 'entity.parse.failed':
      return new InvalidJsonError({ cause: error });
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError(req.headers['content-type']);
    case 'encoding.unsupported':
      return new UnsupportedEncodingError(req.headers['content-encoding'] ?? '');
    default:
      return new BodyUnreadableError(error.message, { cause: error });
  }
}

/**
 * A request a body parser refused, as the seam's exchange: its body is the parser's failure, or
 * for bad JSON the text the parser could not parse (the pipeline's own parse then answers it, as
 * without the parser, and `onInvalid` sees it). Its Content-Encoding was the parser's to decode
 * or refuse (body-parser inflates gzip, deflate and br itself), so the seam does not check it again.
 */
class RefusedBodyExchange extends NodeExchange {
  constructor(
    req: WebhookRouterRequest,
    res: ServerResponse,
    private readonly failure: WebhookError,
    private readonly text: string | undefined,
  ) {
    super(req, res, req.url);
  }

  override contentEncoding(): undefined {
    return undefined;
  }

  override readBody(
    _limit: number,
    _timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
  ): void {
    if (this.text === undefined) done(this.failure, NO_BODY);
    else done(undefined, { raw: this.text });
  }
}

/**
 * An Express error-handling middleware (four parameters), typed structurally like the router so
 * that an app using only the node handler needs no Express types.
 */
export type WebhookErrorHandler = (
  error: unknown,
  req: WebhookRouterRequest,
  res: ServerResponse,
  next: WebhookRouterNext,
) => void;

/**
 * An Express error handler that answers a body parser's failure on a webhook path with the
 * library's JSON error body (`{ "error": { "code": "invalid_json", ... } }`) instead of Express's
 * HTML page: bad JSON (400 `invalid_json`), a body over the parser's limit (413), an unsupported
 * charset or encoding (415), an aborted or unreadable body (400). Mount it after the router, at
 * the same path. Given the receiver, the request is checked and counted as the router would
 * (a wrong token still gets 401; `stats()` counts it), and bad JSON reaches `onInvalid`. Any
 * other error is passed on with `next(error)`.
 *
 * @example
 * app.use(express.json());
 * app.use('/webhooks', webhooks);
 * app.use('/webhooks', webhookErrorHandler(webhooks));
 */
export function webhookErrorHandler(receiver?: WebhookReceiverControls): WebhookErrorHandler {
  return function webhookParserError(error, req, res, next): void {
    if (!isBodyParserError(error) || res.headersSent) {
      next(error);
      return;
    }
    const failure = webhookErrorOf(error, req);
    if (receiver === undefined) {
      // No pipeline to answer through: the error body alone, neither checked nor counted.
      send(res, toErrorResponse(failure));
      return;
    }
    // Through the seam, as the router would have served it: head checks (a wrong token is a
    // 401), capture with the receiver's settings, the pipeline's answer, every failure path.
    const text =
      failure instanceof InvalidJsonError && typeof error.body === 'string' ? error.body : undefined;
    serve(
      receiverFor(receiver.pipeline) ?? { pipeline: receiver.pipeline, capture: undefined },
      new RefusedBodyExchange(req, res, failure, text),
    );
  };
}
