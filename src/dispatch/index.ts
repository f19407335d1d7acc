export type * from './types.js';
export * from './backoff.js';
export * from './runner.js';
export * from './memory.js';
