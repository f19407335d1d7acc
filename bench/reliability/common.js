// Shared by the parts of `npm run reliability` (bench/reliability.js): the receivers under test on
// node:http or Express, a recorder of the callbacks they run, and the payload facts the parts
// need.
import express from 'express';
import { createServer } from 'node:http';
import { createNodeHandler, createWebhookRouter } from '../../dist/index.js';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const MiB = 1024 * 1024;
export const json = (value) => Buffer.from(JSON.stringify(value));

export const ENDPOINTS = ['/', '/incoming', '/status', '/session', '/events', '/chatbot'];
export const ENDPOINT_OF = {
  incoming: '/incoming',
  status: '/status',
  session: '/session',
  event: '/events',
  chatbot: '/chatbot',
};
export const IDENTITY = {
  chatbot: ['eventId', 'string'],
  incoming: ['gstId', 'string'],
  status: ['gstId', 'string'],
  session: ['timestamp', 'number'],
  event: ['timestamp', 'number'],
};
export const DOCUMENTED_503 = new Set(['queue_full', 'shutting_down', 'store_unavailable', 'claim_held']);

/** Own `__proto__` keys and `constructor.prototype` objects anywhere in a value (iterative). */
export function prototypeKeysIn(value) {
  let found = 0;
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) found += 1;
    if (
      Object.hasOwn(node, 'constructor') &&
      typeof node.constructor === 'object' &&
      node.constructor !== null &&
      Object.hasOwn(node.constructor, 'prototype')
    )
      found += 1;
    for (const key of Object.keys(node)) stack.push(node[key]);
  }
  return found;
}

/** Callbacks that record each run by the request's unique marker (`x-request-id`). */
export function recorder() {
  const runs = new Map();
  const seen = { prototypeKeys: 0 };
  const record = (payload, ctx) => {
    runs.set(ctx.requestId, (runs.get(ctx.requestId) ?? 0) + 1);
    seen.prototypeKeys += prototypeKeysIn(payload);
  };
  const invalid = { count: 0 };
  return {
    runs,
    invalid,
    seen,
    options: {
      onIncoming: record,
      onStatus: record,
      onSession: record,
      onEvent: record,
      onChatbot: record,
      onInvalid: () => {
        invalid.count += 1;
      },
    },
  };
}

export function listen(listener) {
  const server = createServer(listener);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port }));
  });
}

export async function stop(server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The receivers under test, mounted at /hooks: `(options, adapterOptions) => { receiver, listener }`. */
export const ADAPTERS = {
  node: (options) => {
    const receiver = createNodeHandler({ ...options, basePath: '/hooks' });
    return { receiver, listener: receiver };
  },
  express: (options, { caseSensitive = false, jsonFirst = false } = {}) => {
    const receiver = createWebhookRouter(options);
    const app = express();
    if (caseSensitive) app.set('case sensitive routing', true);
    if (jsonFirst) app.use(express.json({ limit: '2mb' }));
    app.use('/hooks', receiver);
    return { receiver, listener: app };
  },
};
