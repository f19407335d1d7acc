import type { NextFunction, Request, Response } from 'express';
import {
  createWebhookPipeline,
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
  /** The framework-free pipeline behind this receiver. */
  readonly pipeline: WebhookPipeline;
}

/** An Express middleware serving the webhook endpoints, with its controls. */
export type WebhookRouter = ((req: Request, res: Response, next: NextFunction) => void) &
  WebhookReceiverControls;

/** The controls of a receiver over `pipeline`. */
export function controlsOf(pipeline: WebhookPipeline): WebhookReceiverControls {
  return {
    close: (timeoutMs) => pipeline.close(timeoutMs),
    stats: () => pipeline.stats(),
    idle: () => pipeline.idle(),
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
 *   onIncoming: async (message, ctx) => ctx.logger.info({ type: message.messageContentType }, 'message'),
 *   onChatbot: async (event, ctx) => { if (event.direction === 'INCOMING') await reply(event) },
 * });
 * app.use('/webhooks', webhooks);
 * process.on('SIGTERM', () => void webhooks.close(10_000));
 */
export function createWebhookRouter(options: WebhookRouterOptions): WebhookRouter {
  const pipeline = createWebhookPipeline(options, { factory: 'createWebhookRouter' });
  const capture = captureSettingsOf(options);
  function webhookRouter(req: Request, res: Response, _next: NextFunction): void {
    // A body parser mounted before the router leaves req.body set (Express 5 leaves it undefined otherwise).
    const preParsed = req.body === undefined ? undefined : { body: req.body as unknown };
    handleRequest(pipeline, req, res, req.url, preParsed, capture);
  }
  return Object.assign(webhookRouter, controlsOf(pipeline));
}
