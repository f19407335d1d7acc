import type { WebhookHealth, WebhookPipeline, WebhookStats } from '../pipeline/index.js';

/** The controls every receiver has: the Express router, the node and fetch handlers, Fastify's `app.webhooks`. */
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
