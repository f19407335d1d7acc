export * from './express.js';
export * from './node.js';
export { webhookErrorHandler } from './express-errors.js';
export { readBody } from './body.js';
export * from './fetch.js';
export { createHealthHandler, type HealthSource } from './health.js';
