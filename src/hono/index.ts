/**
 * messaging-webhooks/hono: the Hono adapter. A subpath of its own so that the root import never
 * loads Hono or expects it to be installed.
 *
 * @packageDocumentation
 */
export * from '../receiver/hono.js';
