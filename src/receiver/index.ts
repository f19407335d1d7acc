export * from './express.js';
export * from './node.js';
export { readBody } from './body.js';
export * from './fetch.js';
