/**
 * Test helpers for code that receives the platform's webhooks: a typed fixture corpus and
 * payload builders whose output always passes the schemas.
 *
 * @example
 * import { fixtures, buildIncoming } from 'messaging-webhooks/testing';
 *
 * @packageDocumentation
 */
export * from './fixtures.js';
export * from './builders.js';
export * from './capture.js';
export * from './replay.js';
export * from './settle.js';
