export * from './pipeline.js';
export * from './options.js';
export * from './stats.js';
export { createTokenCheck, type TokenCheck } from './auth.js';
export { parseJsonSafely, stripPrototypeKeys } from './json.js';
export { belowBasePath, normaliseBasePath } from './route.js';
