import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createWebhookPipeline,
  type WebhookHealth,
  type WebhookPipeline,
  type WebhookPipelineOptions,
  type WebhookStats,
} from '../pipeline/index.js';
import { captureSettingsOf, handleRequest } from './handle.js';

/** Options of {@link createWebhookRouter}. */
export type WebhookRouterOptions = WebhookPipelineOptions;

/** The controls shared by the Express router and the node:http handler. */
export interface WebhookReceiverControls {
  /** Stops accepting (503 from then on), waits up to `timeoutMs` for queued callbacks; true when all ran. */
  close(timeoutMs?: number): Promise<boolean>;
  /** Counts per webhook type: received, acked, duplicates, invalid, rejected, queued, running, succeeded, failed, deadLettered. */
  stats(): WebhookStats;
  /** Resolves when no callback is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  /**
   * Readiness for a load balancer: not ready while closing, or with the queue at
   * `healthQueueThreshold` (before it is full and answers 503). `reasons` says why.
   */
  health(): WebhookHealth;
  /** The framework-free pipeline behind this receiver. */
  readonly pipeline: WebhookPipeline;
}

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

/** The controls of a receiver over `pipeline`. */
export function controlsOf(pipeline: WebhookPipeline): WebhookReceiverControls {
  return {
    close: (timeoutMs) => pipeline.close(timeoutMs),
    stats: () => pipeline.stats(),
    idle: () => pipeline.idle(),
    health: () => pipeline.health(),
    pipeline,
  };
}

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
  const pipeline = createWebhookPipeline(options, { factory: 'createWebhookRouter' });
  const capture = captureSettingsOf(options);
  function webhookRouter(req: WebhookRouterRequest, res: ServerResponse, _next: WebhookRouterNext): void {
    // A body parser mounted before the router leaves req.body set (Express 5 leaves it undefined otherwise).
    const preParsed = req.body === undefined ? undefined : { body: req.body as unknown };
    handleRequest(pipeline, req, res, req.url, preParsed, capture);
  }
  return Object.assign(webhookRouter, controlsOf(pipeline));
}
