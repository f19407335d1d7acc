/**
 * Zod schemas and inferred types for every payload the platform sends, and payload type
 * detection. Both the receiver and the emulator use these: one source of truth.
 *
 * @packageDocumentation
 */
export * from './webhook-types.js';
export * from './open-enum.js';
export * from './open-union.js';
export * from './incoming.js';
export * from './status.js';
export * from './session.js';
export * from './partner.js';
export * from './chatbot.js';
export * from './detect.js';
export * from './parse.js';
export * from './webhook-config.js';
export * from './resources.js';
export * from './agent-message.js';
