export * from './pipeline.js';
export * from './options.js';
export * from './stats.js';
export { parseJsonSafely } from './json.js';
export { belowBasePath, normaliseBasePath } from './route.js';
