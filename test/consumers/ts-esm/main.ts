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

const subpaths = [parseWebhook, createEmulator, createPlatformClient, createWorker].map((f) => typeof f);
if (answer.status !== 200 || received.length !== 1 || subpaths.some((t) => t !== 'function')) {
  console.error('ts-esm: FAIL', { status: answer.status, received: received.length, subpaths });
  process.exit(1);
}
console.log(`ts-esm: ok (200, callback ran for ${received[0]?.messageContentType})`);
