// TypeScript, ESM ("type": "module", module nodenext): the Express router from the packed tarball.
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createWebhookRouter, type IncomingMessage } from 'messaging-webhooks';
import { parseWebhook } from 'messaging-webhooks/schemas';
import { createEmulator } from 'messaging-webhooks/emulator';
import { fixtures } from 'messaging-webhooks/testing';
import { createPlatformClient } from 'messaging-webhooks/client';
import { createWorker } from 'messaging-webhooks/redis';
import { Hono } from 'hono';
import { createHonoWebhooks } from 'messaging-webhooks/hono';
import { createLambdaHandler, type LambdaHttpEventV2 } from 'messaging-webhooks/lambda';

const received: IncomingMessage[] = [];
const router = createWebhookRouter({
  onIncoming: async (message) => {
    received.push(message);
  },
});
const app = express();
app.use('/webhooks', router);
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;

const answer = await fetch(`http://127.0.0.1:${port}/webhooks/incoming`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(fixtures.incoming.TEXT),
});
await router.idle();
server.close();
await router.close();

// The Hono adapter (Hono's app.request, its fetch path) and the Lambda handler (an HTTP API event).
const hooks = createHonoWebhooks({ onIncoming: async (message) => void received.push(message) });
const viaHono = await new Hono().route('/webhooks', hooks).request('/webhooks/incoming', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ...fixtures.incoming.TEXT, gstId: 'via-hono' }),
});
const handler = createLambdaHandler({
  basePath: '/webhooks',
  onIncoming: async (message) => void received.push(message),
});
const event: LambdaHttpEventV2 = {
  version: '2.0',
  rawPath: '/webhooks/incoming',
  rawQueryString: '',
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ ...fixtures.incoming.TEXT, gstId: 'via-lambda' })).toString('base64'),
  isBase64Encoded: true,
  requestContext: { http: { method: 'POST' }, stage: '$default' },
};
const viaLambda = await handler(event);
await hooks.idle();

const subpaths = [parseWebhook, createEmulator, createPlatformClient, createWorker].map((f) => typeof f);
const statuses = [answer.status, viaHono.status, viaLambda.statusCode];
if (
  statuses.some((status) => status !== 200) ||
  received.length !== 3 ||
  subpaths.some((t) => t !== 'function')
) {
  console.error('ts-esm: FAIL', { statuses, received: received.length, subpaths });
  process.exit(1);
}
console.log(
  `ts-esm: ok (200 from Express, Hono and Lambda, callbacks ran for ${received[0]?.messageContentType})`,
);
