/**
 * The platform API written once: the table of operations the emulator serves, the typed client
 * calls and the OpenAPI document lists. Internal to the package; the client entry re-exports
 * what its users need.
 */
export * from './operation.js';
export * from './operations.js';
export * from './errors.js';
export * from './pages.js';
export * from './query.js';
