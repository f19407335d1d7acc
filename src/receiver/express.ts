import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookPipelineOptions } from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { receiverOf, serve } from './core.js';
import { NodeExchange } from './handle.js';

export type { WebhookReceiverControls } from './controls.js';

/** Options of {@link createWebhookRouter}. */
export type WebhookRouterOptions = WebhookPipelineOptions;

/**
 * The request the router reads: a node request, with `body` set when a body parser ran before it.
 * Structural, so the declarations need no `@types/express`: an Express `Request` is one.
 */
export interface WebhookRouterRequest extends IncomingMessage {
  /** The path under the mount point (Express strips the prefix `app.use` was given). */
  url: string;
  /** Set by a body parser mounted before the router; undefined otherwise. */
  body?: unknown;
}

/** The `next` callback of a middleware (the router answers every request itself and never calls it). */
export type WebhookRouterNext = (error?: unknown) => void;

/**
 * An Express middleware serving the webhook endpoints, with its controls. Its parameters are the
 * node request and response types Express's own extend, so `app.use('/webhooks', router)` type-checks
 * while an app using only `createNodeHandler` needs no Express types.
 */
export type WebhookRouter = ((
  req: WebhookRouterRequest,
  res: ServerResponse,
  next: WebhookRouterNext,
) => void) &
  WebhookReceiverControls;

/**
 * Creates the Express router for the platform's webhooks: POST `/incoming`, `/status`,
 * `/session`, `/events`, `/chatbot`, and `/` (type detected from the payload). Each payload is
 * validated, deduplicated and queued, then answered 200 at once; callbacks run on a background
 * queue, one conversation at a time in arrival order.
 *
 * @example
 * const webhooks = createWebhookRouter({
 *   token: process.env.WEBHOOK_TOKEN,
 *   onIncoming: async (message, ctx) => ctx.logger.info({ contentType: message.messageContentType }, 'message'),
 *   onChatbot: async (event, ctx) => { if (event.direction === 'INCOMING') await reply(event) },
 * });
 * app.use('/webhooks', webhooks);
 * process.on('SIGTERM', () => void webhooks.close(10_000));
 */
export function createWebhookRouter(options: WebhookRouterOptions): WebhookRouter {
  const receiver = receiverOf(options, 'createWebhookRouter');
  function webhookRouter(req: WebhookRouterRequest, res: ServerResponse, _next: WebhookRouterNext): void {
    // A body parser mounted before the router leaves req.body set (Express 5 leaves it undefined otherwise).
    const preParsed = req.body === undefined ? undefined : { body: req.body as unknown };
    serve(receiver, new NodeExchange(req, res, req.url, preParsed));
  }
  return Object.assign(webhookRouter, controlsOf(receiver.pipeline));
}
