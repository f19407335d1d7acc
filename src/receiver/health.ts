import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ComponentHealth } from '../dispatch/types.js';

/**
 * Anything with a synchronous `health()`: the Express router, the node and fetch handlers,
 * Fastify's `app.webhooks`, and from `messaging-webhooks/redis` the BullMQ worker.
 */
export interface HealthSource {
  health(): ComponentHealth;
}

/**
 * A node:http (and Express) handler for a readiness probe: 200 with the health as JSON when ready,
 * 503 when not (`reasons`: closing, the queue past `healthQueueThreshold`, `redis_unreachable`,
 * `worker_not_running`). Off unless you mount it.
 *
 * @example
 * app.get('/healthz', createHealthHandler(webhooks));
 * // a worker process: http.createServer(createHealthHandler(worker)).listen(8081);
 */
export function createHealthHandler(
  receiver: HealthSource,
): (req: IncomingMessage, res: ServerResponse) => void {
  if (typeof receiver?.health !== 'function') {
    throw new TypeError(
      'createHealthHandler: expected a receiver or worker with health() (router, handler, app.webhooks, createWorker)',
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
