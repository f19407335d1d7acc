// Plain JavaScript, ESM: every subpath by import; the Express router, the fetch handler and the
// Fastify plugin each on one fixture.
import express from 'express';
import { once } from 'node:events';
import * as root from 'messaging-webhooks';
import * as schemas from 'messaging-webhooks/schemas';
import * as emulator from 'messaging-webhooks/emulator';
import * as testing from 'messaging-webhooks/testing';
import * as client from 'messaging-webhooks/client';
import * as redis from 'messaging-webhooks/redis';
import * as fastifyEntry from 'messaging-webhooks/fastify';
import Fastify from 'fastify';

const expected = [
  [root, 'createWebhookRouter'],
  [schemas, 'parseWebhook'],
  [emulator, 'createEmulator'],
  [testing, 'replay'],
  [client, 'createPlatformClient'],
  [redis, 'createWorker'],
  [fastifyEntry, 'webhooksPlugin'],
  [root, 'createFetchHandler'],
];
const missing = expected
  .filter(([module, name]) => typeof module[name] !== 'function')
  .map(([, name]) => name);

const received = [];
const router = root.createWebhookRouter({ onIncoming: async (message) => void received.push(message) });
const app = express();
app.use('/webhooks', router);
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const answer = await fetch(`http://127.0.0.1:${server.address().port}/webhooks/incoming`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(testing.fixtures.incoming.TEXT),
});
await router.idle();
server.close();
await router.close();

// The web-standard handler, as Hono, Next.js, Bun or Deno call it.
const viaFetch = [];
const fetchHandler = root.createFetchHandler({
  basePath: '/webhooks',
  onIncoming: async (message) => void viaFetch.push(message),
});
const fetchAnswer = await fetchHandler(
  new Request('http://localhost/webhooks/incoming', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(testing.fixtures.incoming.TEXT),
  }),
);
await fetchHandler.idle();
await fetchHandler.close();

// The Fastify plugin, through Fastify's own inject().
const viaFastify = [];
const app2 = Fastify();
await app2.register(fastifyEntry.webhooksPlugin, {
  prefix: '/webhooks',
  onIncoming: async (message) => void viaFastify.push(message),
});
const injected = await app2.inject({
  method: 'POST',
  url: '/webhooks/incoming',
  headers: { 'content-type': 'application/json' },
  payload: JSON.stringify(testing.fixtures.incoming.TEXT),
});
await app2.webhooks.idle();
await app2.close();

const outcome = {
  express: [answer.status, received.length],
  fetch: [fetchAnswer.status, viaFetch.length],
  fastify: [injected.statusCode, viaFastify.length],
  missing,
};
if (
  JSON.stringify(outcome) !==
  JSON.stringify({ express: [200, 1], fetch: [200, 1], fastify: [200, 1], missing: [] })
) {
  console.error('js-esm: FAIL', outcome);
  process.exit(1);
}
console.log('js-esm: ok (7 subpaths imported; Express, fetch and Fastify: 200, callback ran)');
