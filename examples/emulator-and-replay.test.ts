/**
 * How to test a receiver with the emulator and replay, in jest: real HTTP on 127.0.0.1 port 0,
 * no sleeps (wait on emulator.idle() and router.idle()), no fixed ports.
 *
 * Run: NODE_OPTIONS=--experimental-vm-modules npx jest --roots examples
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * (and jest's moduleNameMapper) point them at src/.
 */
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { createEmulator, DEFAULT_API_KEYS, type Emulator } from 'messaging-webhooks/emulator';
import { createWebhookRouter, type WebhookType } from 'messaging-webhooks';
import {
  createJsonlCapture,
  fixtures,
  readCapture,
  replay,
  type CaptureRecord,
} from 'messaging-webhooks/testing';
import { createChatbotRouter, emulatorReplySender, listenLocally } from './chatbot.js';
import { createProductionApp, shutdown } from './production-app.js';

const LITE = '+27820000001';
const CUSTOMER = '+27831234567';

/** Configures the client default webhook through the platform API, as a user would. */
async function configureWebhook(emulatorUrl: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulatorUrl}/Messaging/MessagingClientWebHook`, {
    method: 'POST',
    headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

/** A receiver recording every callback, in order. */
function recordingReceiver(options: Parameters<typeof createWebhookRouter>[0] = {}) {
  const calls: { type: WebhookType; payload: unknown }[] = [];
  const record =
    (type: WebhookType) =>
    (payload: unknown): void => {
      calls.push({ type, payload });
    };
  const router = createWebhookRouter({
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
    ...options,
  });
  return { router, calls, app: express().use('/webhooks', router) };
}

let dir: string;
let emulator: Emulator;
let emulatorUrl: string;
const servers: Server[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-example-'));
  emulator = createEmulator({ retry: { attempts: 1 } });
  emulatorUrl = await emulator.listen();
});

afterEach(async () => {
  await emulator.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
});

it('captures what the emulator sends, then replays it into a fresh receiver with the same result', async () => {
  // 1. A receiver with capture on, fed by the emulator.
  const file = join(dir, 'webhooks.jsonl');
  const capture = createJsonlCapture({ file });
  const live = recordingReceiver({ token: 'secret', capture });
  const { server, url } = await listenLocally(live.app);
  servers.push(server);
  const base = `${url}/webhooks/secret`;
  await configureWebhook(emulatorUrl, {
    incomingMessageURL: `${base}/incoming`,
    statusUpdateURL: `${base}/status`,
    chatbotWebhookURL: `${base}/chatbot`,
    chatbotPayloadVersion: 'v2',
  });

  emulator.customerMessage({ number: LITE, from: CUSTOMER, text: 'Hi' });
  emulator.customerMessage({ number: LITE, from: CUSTOMER, contentType: 'LOCATION', label: 'Home' });
  const { message } = emulator.sendMessage({ number: LITE, to: CUSTOMER });
  emulator.updateMessageStatus({ gstId: message.gstId, status: 'SENT' });
  await emulator.idle();
  await live.router.idle();
  await capture.flush();
  expect(live.calls.map((call) => call.type)).toEqual([
    'incoming',
    'chatbot',
    'incoming',
    'chatbot',
    'status',
    'status',
  ]);

  // 2. The capture holds each request once, token stripped from the path.
  const records: CaptureRecord[] = [];
  for await (const line of readCapture(file)) if (line.record) records.push(line.record);
  expect(records.map((record) => record.path)).toEqual([
    '/incoming',
    '/chatbot',
    '/incoming',
    '/chatbot',
    '/status',
    '/status',
  ]);

  // 3. Replayed in-process into a fresh receiver: same callbacks, same payloads, same order.
  const fresh = recordingReceiver({ token: 'secret' });
  const report = await replay(file, fresh.app, { basePath: '/webhooks', token: 'secret' });
  await fresh.router.idle();
  expect(report.failed).toBe(0);
  expect(fresh.calls).toEqual(live.calls);

  await Promise.all([live.router.close(), fresh.router.close(), capture.close()]);
});

it('replays hand-made fixtures and reports what the receiver refused', async () => {
  const receiver = recordingReceiver();
  const report = await replay(
    [
      { type: 'incoming', payload: fixtures.incoming.TEXT },
      { type: 'status', payload: { status: 'READ' } }, // no gstId: refused with 400
      { payload: fixtures.event.USER_PREFERENCE }, // no type: the detecting endpoint
    ],
    receiver.app,
    { basePath: '/webhooks' },
  );
  await receiver.router.idle();
  expect(report.items.map((item) => item.status)).toEqual([200, 400, 200]);
  expect(report.items[1]?.error).toContain('gstId');
  expect(receiver.calls.map((call) => call.type)).toEqual(['incoming', 'event']);
  await receiver.router.close();
});

it('the example chatbot answers each INCOMING event through the emulator', async () => {
  const router = createChatbotRouter(emulatorReplySender(emulatorUrl));
  const { server, url } = await listenLocally(express().use('/bot', router));
  servers.push(server);
  await configureWebhook(emulatorUrl, {
    chatbotWebhookURL: `${url}/bot/chatbot`,
    chatbotPayloadVersion: 'v2',
    chatbotIncludeOutgoing: true,
  });

  emulator.customerMessage({ number: LITE, from: CUSTOMER, text: 'Where is my order?' });
  await emulator.idle(); // the INCOMING event reached the bot
  await router.idle(); // the bot replied (the emulator queued the OUTGOING event)
  await emulator.idle(); // the OUTGOING event was delivered
  await router.idle();

  const events = emulator.deliveries({ type: 'chatbot' }).map((entry) => entry.payload);
  expect(events.map((event) => [event.direction, event.messageText])).toEqual([
    ['INCOMING', 'Where is my order?'],
    ['OUTGOING', 'Your order is on its way and arrives tomorrow.'],
  ]);
  await router.close();
});

it('the example production app wants its token, reports health, and drains on shutdown', async () => {
  const parts = createProductionApp({ token: 'prod-token', logger: pino({ level: 'silent' }) });
  await request(parts.app).post('/webhooks/incoming').send(fixtures.incoming.TEXT).expect(401);
  await request(parts.app).post('/webhooks/prod-token/incoming').send(fixtures.incoming.TEXT).expect(200);
  const health = await request(parts.app).get('/healthz').expect(200);
  expect(health.body).toMatchObject({ ok: true, stats: { acked: 1 } });

  const { server } = await listenLocally(parts.app);
  expect(await shutdown(server, parts, 5000)).toBe(true);
  await request(parts.app).post('/webhooks/prod-token/incoming').send(fixtures.incoming.TEXT).expect(503);
});
