/**
 * messaging-webhooks/fastify: the Fastify plugin over the webhook pipeline. A subpath of its own
 * so that the root import never loads fastify-plugin or expects fastify to be installed.
 *
 * @packageDocumentation
 */
export * from '../receiver/fastify.js';
