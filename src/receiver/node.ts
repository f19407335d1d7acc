import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  HeadersTooLargeError,
  MalformedRequestError,
  NotFoundError,
  RequestTimeoutError,
  toErrorResponse,
  type HttpAnswer,
  type WebhookError,
} from '../errors.js';
import { belowBasePath, normaliseBasePath, type WebhookPipelineOptions } from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { receiverOf, serve } from './core.js';
import { NodeExchange, send } from './handle.js';

export interface NodeHandlerOptions extends WebhookPipelineOptions {
  /** Path prefix the endpoints live under, e.g. `/webhooks`. @default '' */
  readonly basePath?: string | undefined;
}

const NOT_FOUND = toErrorResponse(new NotFoundError());

/** A node:http request listener serving the webhook endpoints, with its controls. */
export type NodeWebhookHandler = ((req: IncomingMessage, res: ServerResponse) => void) &
  WebhookReceiverControls;

/**
 * Creates a plain node:http request listener over the same pipeline as the Express router, for
 * apps without Express and for the highest throughput.
 *
 * @example
 * const handler = createNodeHandler({ basePath: '/webhooks', onIncoming: (message) => save(message) });
 * http.createServer(handler).listen(3000);
 */
export function createNodeHandler(options: NodeHandlerOptions): NodeWebhookHandler {
  const receiver = receiverOf(options, 'createNodeHandler', ['basePath']);
  const basePath = normaliseBasePath(options.basePath);
  function webhookHandler(req: IncomingMessage, res: ServerResponse): void {
    const url = belowBasePath(req.url ?? '/', basePath);
    if (url === undefined) {
      req.resume();
      send(res, NOT_FOUND);
      return;
    }
    serve(receiver, new NodeExchange(req, res, url));
  }
  return Object.assign(webhookHandler, controlsOf(receiver.pipeline));
}

/** The answer to a request Node refused before any listener saw it, by its error code. */
function clientErrorOf(error: NodeJS.ErrnoException): WebhookError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLargeError();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Node's requestTimeout/headersTimeout ran out before the request head was complete.
      return new RequestTimeoutError();
    default:
      return new MalformedRequestError({ cause: error });
  }
}

/** Writes a complete HTTP/1.1 answer on a raw socket, then closes it. */
function writeRaw(socket: Duplex, answer: HttpAnswer): void {
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(answer.headers)) head.push(`${name}: ${value}`);
  head.push('connection: close');
  socket.end(`${head.join('\r\n')}\r\n\r\n${answer.body}`);
}
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Counts the requests Node refuses before any request listener sees them (malformed HTTP: 400;
 * headers over `maxHeaderSize`: 431; a head not received within `headersTimeout`: 408) in the
 * receiver's `stats()` (`unknown` bucket: received, and invalid or rejected), and answers them
 * with the library's JSON error body instead of Node's empty one. It takes over the server's
 * `clientError` event, as Node requires of a listener: a connection reset is left alone. Works
 * for the Express router too: pass the `http.Server` that `app.listen()` returns.
 *
 * @example
 * const handler = createNodeHandler({ onIncoming: save });
 * const server = http.createServer(handler);
 * countClientErrors(server, handler);
 * server.listen(3000);
 */
export function countClientErrors(server: Server, receiver: WebhookReceiverControls): void {
  server.on('clientError', function webhookClientError(error: NodeJS.ErrnoException, socket: Duplex) {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    writeRaw(socket, receiver.pipeline.refuse(undefined, clientErrorOf(error)));
  });
}
