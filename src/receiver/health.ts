import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookHealth } from '../pipeline/index.js';

/** Anything with a `health()`: the Express router, the node and fetch handlers, Fastify's `app.webhooks`. */
export interface HealthSource {
  health(): WebhookHealth;
}

/**
 * A node:http (and Express) handler for a readiness probe: 200 with the health as JSON when ready,
 * 503 when not (closing, or the queue past `healthQueueThreshold`). Off unless you mount it.
 *
 * @example
 * app.get('/healthz', createHealthHandler(webhooks));
 */
export function createHealthHandler(
  receiver: HealthSource,
): (req: IncomingMessage, res: ServerResponse) => void {
  if (typeof receiver?.health !== 'function') {
    throw new TypeError(
      'createHealthHandler: expected a receiver with health() (router, handler or app.webhooks)',
    );
  }
  return function healthHandler(_req: IncomingMessage, res: ServerResponse): void {
    const health = receiver.health();
    res.writeHead(health.ready ? 200 : 503, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(health));
  };
}
