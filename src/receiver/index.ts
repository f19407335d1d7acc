export * from './express.js';
export * from './node.js';
export * from './fetch.js';
export { createHealthHandler } from './health.js';
