// Plain JavaScript, ESM: every subpath by import, the Express router on one fixture.
import express from 'express';
import { once } from 'node:events';
import * as root from 'messaging-webhooks';
import * as schemas from 'messaging-webhooks/schemas';
import * as emulator from 'messaging-webhooks/emulator';
import * as testing from 'messaging-webhooks/testing';
import * as client from 'messaging-webhooks/client';
import * as redis from 'messaging-webhooks/redis';

const expected = [
  [root, 'createWebhookRouter'],
  [schemas, 'parseWebhook'],
  [emulator, 'createEmulator'],
  [testing, 'replay'],
  [client, 'createPlatformClient'],
  [redis, 'createWorker'],
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

if (answer.status !== 200 || received.length !== 1 || missing.length > 0) {
  console.error('js-esm: FAIL', { status: answer.status, received: received.length, missing });
  process.exit(1);
}
console.log('js-esm: ok (6 subpaths imported; 200, callback ran)');
