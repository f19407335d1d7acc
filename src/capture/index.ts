export * from './jsonl.js';
