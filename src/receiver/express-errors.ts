import type { ServerResponse } from 'node:http';
import {
  BodyUnreadableError,
  InvalidJsonError,
  PayloadTooLargeError,
  toErrorResponse,
  UnsupportedEncodingError,
  UnsupportedMediaTypeError,
  WebhookError,
} from '../errors.js';
import type { WebhookReceiverControls } from './controls.js';
import { answer } from './core.js';
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
      send(res, toErrorResponse(failure));
      return;
    }
    const { pipeline } = receiver;
    const exchange = new NodeExchange(req, res, req.url);
    const head = pipeline.head(exchange);
    if (head instanceof WebhookError) send(res, toErrorResponse(head));
    // The text the parser refused goes through the pipeline's own parse: the same answer as
    // without express.json(), and onInvalid sees it.
    else if (failure instanceof InvalidJsonError && typeof error.body === 'string')
      answer({ pipeline, capture: undefined }, exchange, head, { raw: error.body });
    else send(res, pipeline.refuse(head, failure));
  };
}
