/**
 * messaging-webhooks: receive the messaging platform's webhooks in Express, node:http, a fetch
 * runtime or Fastify:
 * validated, deduplicated, acknowledged at once and handed to typed callbacks in order.
 *
 * @packageDocumentation
 */
export * from './receiver/index.js';
export * from './pipeline/index.js';
export * from './errors.js';
export * from './dedupe/index.js';
export * from './dispatch/index.js';
export * from './delivery/tracker.js';
export { REDACT_PATHS, type LoggerOptions } from './logger.js';
export * from './schemas/index.js';
export { logRef, maskPayload } from './logger.js';
export * from './capture/index.js';
